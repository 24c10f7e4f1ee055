// Reading one rocprofv3 output file into a RowSink: the entry point the rest of kprof uses.
#pragma once

#include <string>
#include <string_view>

#include "core/ingest/format.hpp"
#include "core/ingest/read_options.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

// Sniffs the format (format.hpp), takes the pid from a "<pid>_" name prefix unless options.pid is
// set, and reads. Throws kprof::Error for a broken file; bad rows go to the sink as BadRow.
FileResult read_file(const std::string& path, store::RowSink& sink,
                     const ReadOptions& options = {});

// Reads a file of a known format.
FileResult read_file(const std::string& path, Format format, store::RowSink& sink,
                     const ReadOptions& options);

// Reads CSV bytes already in memory (tests, and chunk-boundary checks): `chunks` are fed one by
// one exactly as given. `name` is used in messages and for the sink's begin_file.
FileResult read_csv_chunks(Format format, const std::string& name, const std::string& kind,
                           const std::vector<std::string_view>& chunks, store::RowSink& sink,
                           const ReadOptions& options);

// The kind string begin_file receives for `path` in `format`.
std::string kind_for(Format format, const std::string& path);

}  // namespace kprof::ingest
