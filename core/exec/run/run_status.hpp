// The status of a run as data: what `kprof status` shows and what `kprof run`/`resume` print at
// their end. Views (status_view.hpp) lay it out; nothing here formats text for a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct PassStatus {
  int64_t ordinal = 0;
  store::PassKind kind = store::PassKind::trace;
  std::string label;  // pass_label(): "trace", "counters 2/3"
  store::PassState state = store::PassState::planned;
  // Recorded as running on this host, but the kprof that owns it no longer holds the database's
  // file lock (or is gone): it was killed, and `kprof resume` runs the pass again.
  bool owner_dead = false;
  std::optional<int64_t> owner_pid;
  int64_t attempts = 0;
  std::optional<std::chrono::milliseconds> duration;  // of the last attempt that ended
  size_t counters = 0;                                // requested (0 for the trace pass)
  // Rows stored, for a done pass only.
  std::optional<int64_t> dispatches;
  std::optional<int64_t> counter_values;
  std::string reason;
  std::string log_path;     // the pass's log (the profiler's and the workload's output)
  std::string log_excerpt;  // the tail of that log, stored when the last attempt ended
};

struct RunStatusModel {
  std::filesystem::path db;
  store::RunInfo run;
  std::optional<store::RunLockHolder> lock;  // the run's row lock, when held
  bool lock_holder_alive = true;             // false: the holder is a dead process on this host
  std::vector<PassStatus> passes;
  int done = 0;
  std::vector<store::SelectedKernel> kernels;  // of interest, by rank
};

// The last run of `db` (or `run_id`), read through a read-only connection after an integrity
// check. Throws Error (input) for a missing file, a damaged one, or one without that run.
RunStatusModel load_run_status(const std::filesystem::path& db,
                               std::optional<int64_t> run_id = std::nullopt);

}  // namespace kprof::exec
