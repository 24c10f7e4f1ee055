// What a reader needs besides the bytes: strictness, the pid a format lacks, and the agents
// (from the same process' agent_info.csv) that "GPU N" agent ids refer to.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/store/rows.hpp"

namespace kprof::ingest {

struct ReadOptions {
  // A bad row in an otherwise good file becomes a BadRow; with `strict` it fails the file.
  bool strict = false;
  // Used when the format has no Process_Id column; taken from the %pid% file prefix.
  std::optional<int64_t> pid;
  // For "GPU N"/"CPU N" agent ids (type-relative); empty when no agent_info.csv was read.
  std::vector<store::AgentRow> agents;
  // Bytes read from the file at a time; the tokenizer never holds more than one row beyond it.
  size_t chunk_bytes = size_t{1} << 20;
  // Parse on a second thread while the sink (e.g. SQLite) writes on the calling thread.
  bool pipelined = false;
};

// What reading one file produced.
struct FileResult {
  std::string path;
  std::string kind;           // "kernel_trace", "counter_collection", ...
  int64_t rows_read = 0;      // data rows in the file, bad ones included
  int64_t rows_rejected = 0;  // delivered as BadRow
  int64_t dispatches = 0;
  int64_t counters = 0;
};

}  // namespace kprof::ingest
