// Cross-pass join: maps each dispatch of a counter pass to the dispatch of the trace pass that ran
// the same launch. rocprofv3 re-runs the application for every pass, so dispatch ids restart, pids
// change and timestamps are unrelated (counter collection also serializes kernels). What does carry
// over is the program order of launches and each launch's identity: kernel name, grid size and
// workgroup size (products, since counter_collection.csv reports only those). The join therefore
// aligns the two identity sequences with an LCS (align.hpp), per process and agent, and tolerates
// kernels that ran in one pass only (lazy initialisation, allocator kernels, a changed filter).
//
// Contrast: rocprofiler-compute joins passes on Kernel_Name + Grid_Size + cumcount with an inner
// join (ROCm/rocprofiler-compute src/rocprof_compute_profile/profiler_base.py, join_prof), so one
// extra kernel early in a pass shifts every later count of that name.
#pragma once

#include <cstdint>
#include <vector>

#include "core/analysis/capture.hpp"

namespace kprof::analysis {

struct DispatchRef {
  int64_t pid = 0;
  int64_t dispatch_id = 0;
  auto operator<=>(const DispatchRef&) const = default;
};

struct JoinMatch {
  DispatchRef counter;
  DispatchRef trace;
};

// One process (and agent) of the counter pass and the trace process it was paired with.
struct StreamPair {
  int64_t counter_pid = 0, trace_pid = 0, agent = 0;
  size_t counter_dispatches = 0;
  size_t trace_considered = 0;  // trace dispatches of the kernels the counter pass holds
  size_t matched = 0;
};

struct JoinResult {
  std::vector<JoinMatch> matches;  // ordered by (counter pid, counter program order)
  std::vector<DispatchRef> unmatched_counter;
  std::vector<DispatchRef> unmatched_trace;  // among the considered (same-kernel) trace dispatches
  std::vector<StreamPair> streams;
  size_t counter_total = 0;
  size_t trace_considered = 0;
  // True when the counter pass held only some of the trace's kernel names (a kernel filter); the
  // trace side is then the subsequence of those kernels.
  bool filtered = false;

  // Share of the counter pass's dispatches that found their trace dispatch (1 when it has none).
  double matched_share() const {
    return counter_total ? static_cast<double>(matches.size()) / counter_total : 1.0;
  }
};

// Both passes' names must come from one NameTable (the capture database interns them once).
// Program order within a process is dispatch-id order (rocprofv3 numbers dispatches as they are
// enqueued); rows may arrive in any order.
JoinResult join_pass(const PassData& trace, const PassData& counters);

}  // namespace kprof::analysis
