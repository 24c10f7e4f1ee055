// Merging capture databases of one run made on several nodes (`kprof merge DB OTHER.db...`).
//
// Each source's last run must be a run of the same runbook (sha256), with the same simulated flag
// and profiler version, and the same plan (pass ordinals, kinds and counters) as the target's
// latest run of that runbook; a target without runs gets a copy of the source's run. Then, pass by
// pass (a pass is its ordinal in the run):
//   - done in the source, not done in the target: its rows and its bookkeeping (state, attempts,
//     argv, times, log excerpt) are copied; the target's partial rows, if any, are replaced;
//   - done in both with the same rows: kept once (merging the same file twice changes nothing);
//   - done in both with different rows: an error naming both databases and the pass (two captures
//     of one pass; kprof will not pick one silently);
//   - not done in the source: the target's pass is kept as it is.
// The run's kernels of interest are copied when the target has none; differing ones are an error.
// Everything happens in ONE transaction on the target: any error leaves it byte for byte as it was.
//
// The copy is driven by the schema itself (PRAGMA table_info / foreign_key_list,
// https://sqlite.org/pragma.html#pragma_foreign_key_list): every table with a `pass_id` column that
// references passes(id) is pass data; columns that reference strings(id) are re-interned by value;
// a column that references another pass-data table's `id` follows that row's new id. A table a
// later migration adds is merged without a change here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::store {

enum class MergeOutcome {
  added,          // copied from the source
  same,           // done in both with the same rows: kept once
  not_in_source,  // not done in the source: the target's kept
};
std::string_view to_string(MergeOutcome o);

struct MergedPass {
  std::filesystem::path source;
  int64_t ordinal = 0;
  MergeOutcome outcome = MergeOutcome::added;
  int64_t rows = 0;  // rows copied (added only)
};

struct MergeReport {
  int64_t run_id = 0;        // the target's run
  bool run_created = false;  // the target had no run of this runbook: the source's was copied
  std::vector<MergedPass> passes;
  int64_t passes_done = 0, passes_total = 0;  // the target run's, after the merge
  RunStatus status = RunStatus::running;
};

// Throws Error(input) for a source that is not a kprof database or has no run, a source that is
// the target itself, mismatched runs or plans, and conflicting passes; Error(runtime) for I/O.
MergeReport merge_captures(CaptureDb& target, const std::vector<std::filesystem::path>& sources);

}  // namespace kprof::store
