// Finding the rocprofv3 outputs under the paths a user gives: rocprofv3 writes
// `<dir>/<hostname>/<pid>_<domain>.csv` by default and puts each pass of a multi-pass counter run
// in `pass_N/` (`pmc_N/` for .txt input files) (rocprofiler-sdk
// source/lib/output/output_config.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ingest/format.hpp"
#include "core/ingest/read_options.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

struct InputFile {
  std::string path;
  Format format;
  std::optional<int64_t> pid;  // from a "<pid>_" file-name prefix
  // Read only for what other files of the pass need (agent_info: "GPU N" ids), not stored.
  bool context = false;
};

struct PassInput {
  // N of the pass_N / pmc_N folder the files sit under; 0 for files outside any pass folder.
  int number = 0;
  std::string folder;            // that folder's path, or the input path itself
  std::vector<InputFile> files;  // agent_info first, then traces, counters, stats
};

struct Discovery {
  std::vector<PassInput> passes;     // by number
  std::vector<std::string> skipped;  // files seen but not read (txt, other json, unknown csv)
  std::vector<std::string> notes;    // files of a searched folder left out, and why
};

// `paths` are files or directories (searched recursively). A CSV file found in a directory that
// holds a header and no rows is left out with a note (a named one is read, and refused). Throws
// kprof::Error for a path that does not exist, a named file that is no format kprof reads, or when
// nothing was found.
Discovery discover(const std::vector<std::string>& paths);

// "counters" when the pass holds counter_collection.csv (or a rocpd file), else "trace".
std::string infer_pass_kind(const PassInput& pass);

// Reads a pass's files into `sink` in order: agent_info first, so "GPU N" ids resolve. Per-file
// pids come from the file names. Throws on the first broken file.
std::vector<FileResult> read_pass(const PassInput& pass, store::RowSink& sink,
                                  const ReadOptions& options);

}  // namespace kprof::ingest
