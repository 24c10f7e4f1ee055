// Counter-group rotation in one application run, planned on the trace's own dispatch sequence.
//
// rocprofv3 (ROCm 7.0+, rocprofiler-sdk 1.0.0) takes an input file job
// `{pmc_groups: [[...], [...]], pmc_group_interval: N}` and collects, for each dispatch it counts,
// one group: profile_pos = iter / interval, group = profile_pos % groups, where `iter` is a
// per-agent counter advanced once per dispatch that passed the kernel filters
// (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp,
// dispatch_callback -> is_targeted_kernel -> get_device_counting_service). Two things follow that
// only the trace can settle:
//  * aliasing: a variant that recurs with a period sharing a factor with groups × interval sees
//    only some groups (fused-MoE's w13/w2 alternate: with interval 1 and 12 groups, w13 only ever
//    gets the even groups);
//  * rare variants: 48 prefill launches over 12 groups is 4 samples each; the request must be
//    repeated inside the run (the workload script's --repeat) to reach a sample target.
// Pure functions: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"

namespace kprof::plan {

// The planned passes as rotation groups (pmc_groups), in plan order. rocprofv3 does not record
// which group counted a dispatch (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output/
// generateCSV.cpp writes no group column), so ingest tells it from the counter names: a counter
// in two groups would make the dispatches that carry it ambiguous. Throws Error(input) naming
// the counter (at its position in the runbook or metric set) and both groups, at plan time.
std::vector<std::vector<std::string>> rotation_groups(const Plan& plan, const Request& request);

struct RotationRequest {
  // The variant (0..variants-1) of every dispatch the rotated pass counts (those its kernel filter
  // lets through), in dispatch order, for one measured request: the trace's region.
  std::vector<int> sequence;
  size_t variants = 0;
  size_t groups = 0;
  int64_t min_samples = 30;  // launches of every variant in every group
  // False where the tool also counts dispatches before the region, so the rotation's phase at
  // the region's start is unknown (ROCm 7.0: counter collection is never paused by
  // --selected-regions): the bound must then hold for every phase.
  bool phase_known = true;
  int max_repeats = 64;
  uint64_t max_interval = 16;
};

struct RotationChoice {
  bool feasible = false;
  uint64_t interval = 1;
  int repeats = 1;  // requests per application run (the workload's --repeat)
  // samples[v][g]: launches of variant v counted with group g over `repeats` requests (with an
  // unknown phase, the least over every phase).
  std::vector<std::vector<int64_t>> samples;
  int64_t least = 0;  // min over samples
  std::string why;    // when not feasible
  uint64_t intervals_tried = 0;
};

// Launches of each variant that get each group, for `repeats` back-to-back requests starting at
// rotation counter `phase`.
std::vector<std::vector<int64_t>> rotation_samples(const std::vector<int>& sequence,
                                                   size_t variants, size_t groups,
                                                   uint64_t interval, int repeats, uint64_t phase);

// The fewest repeats, then the interval with the most samples in the worst (variant, group) cell
// (ties: the smallest interval), such that every cell reaches min_samples.
RotationChoice choose_rotation(const RotationRequest& request);

}  // namespace kprof::plan
