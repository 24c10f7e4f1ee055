// Reader for rocprofv3's JSON output (`--output-format json`: one `<pid>_results.json` per
// process, written by ROCm/rocprofiler-sdk source/lib/output/generateJSON.cpp): a top-level
// "rocprofiler-sdk-tool" list with one object per process holding metadata, agents,
// kernel_symbols and buffer_records.kernel_dispatch (and record kinds kprof does not read).
#pragma once

#include <string>

#include "core/ingest/read_options.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

// Agents and kernel dispatches, the dispatches named and numbered as rocprofv3's CSV writer
// would have written them (json_reader.cpp says how). The file is read once, as a stream: it is
// never held whole in memory. Throws kprof::Error (input) for a file that is not JSON (file, line,
// column and byte offset) or holds no "rocprofiler-sdk-tool" list; a record without a field kprof
// needs is a BadRow naming the record and the field (an error with options.strict).
FileResult read_rocprof_json(const std::string& path, store::RowSink& sink,
                             const ReadOptions& options);

// Whether the file holds a buffer_records.kernel_dispatch record, read up to the first one (the
// whole file when there is none). True also when the file cannot be opened or is not JSON, so
// that reading it says what is wrong.
bool json_has_kernel_dispatches(const std::string& path);

}  // namespace kprof::ingest
