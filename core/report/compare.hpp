// `kprof compare A[:RUN] B[:RUN]` (and the report's --baseline): two runs side by side, from the
// same or different capture databases, through the query session of each.
//
//  * families: launches, summed trace time and mean time per launch of each run, with deltas and
//    percentages; every family of either run is a row (missing on one side: '-').
//  * variants: a variant is matched across runs by what defines it except the per-run Kernel_Id
//    (kernel name, grid, workgroup, LDS, scratch, registers) and compared per phase: launches,
//    mean trace time, FLOP/byte, TFLOP/s, TB/s (from each run's metrics view).
//  * launch-count changes are explained in steps × layers where both runs have them
//    ("decode: 63 → 31 steps × 96 launches per step"), and said to be unexplained otherwise.
//  * ranks: when either run has several, per rank number (compute, collective, exposed time).
//  * the workloads are compared first: target, simulated or measured, steps and layers, runbook.
//    Runs of different targets are refused unless forced; other differences are stated at the top.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/views/session.hpp"
#include "core/base/table.hpp"

namespace kprof::report {

// "out/a.db" or "out/a.db:3" (a run id after the last ':'; a path that itself ends in ':digits'
// can be written with a trailing ':' and the run after it).
struct RunRef {
  std::string db;
  std::optional<int64_t> run;
  std::string label;  // "A: out/a.db run 3"
};
RunRef parse_run_ref(const std::string& text);

struct Comparison {
  std::vector<std::string> workload;  // how the two workloads differ (or that they match)
  Table families, variants;
  // Per rank, when either run's trace pass has several (tensor parallelism): compute, collective
  // and exposed time of each run side by side, and each run's arrival skew.
  std::optional<Table> ranks;
  bool simulated = false;  // either run is simulated
};

struct CompareOptions {
  bool force = false;  // compare runs of different targets
};

Comparison compare_runs(analysis::QuerySession& a, const std::string& label_a,
                        analysis::QuerySession& b, const std::string& label_b,
                        const CompareOptions& options);

}  // namespace kprof::report
