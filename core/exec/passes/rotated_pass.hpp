// `replay: rotate`: the runbook's counter passes collected as ONE run of the workload that
// rotates them as counter groups over successive dispatches (rocprofv3 input file
// `jobs: [{pmc_groups: [...], pmc_group_interval: N}]`, ROCm 7.0+; the n-th dispatch the kernel
// filters let through on an agent gets group (n / N) mod groups: ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp, get_device_counting_service).
// The groups are the passes the planner packed (each fits the hardware's limits, and no counter
// is in two of them, so a dispatch's counter names tell its group: ingest checks that). Interval
// and repeats are chosen on the run's own trace (core/plan/rotation.hpp) when the rotated pass
// starts, so the plan records the pass first and the command that ran with each attempt.
//
// rocprofv3 also reads ROCPROF_COUNTER_GROUPS_RANDOM_SEED into its configuration
// (projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/config.hpp) but, in rocprofiler-sdk
// 1.0.0 (ROCm 7.0, rocm-systems 1b1610fc), nothing uses it: group selection is the deterministic
// rule above (tool.cpp passes only counter_groups_interval to it). kprof neither sets nor relies
// on it; were a later tool to randomise the order, ingest would still tell each dispatch's group
// from its counter names, but the planned samples per group would no longer be guaranteed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/exec/passes/rotation_preview.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// True when the runbook asks for rotation (`replay: rotate`). Throws Error(input) at the
// runbook's `replay` position when this profiler cannot rotate: before ROCm 7.0 rocprofv3 has no
// pmc_groups (rocprofiler-sdk CHANGELOG.md, 1.0.0), or it counts outside --selected-regions
// (ROCm 7.0 to 7.2), where the warm-up's launches shift the rotation by an amount the trace
// does not show and the region of R repeated requests cannot be told from the warm-up yet.
bool rotates(const runbook::Runbook& rb, const ProfilerBackend& backend);

// The input file of a rotated pass: beside the pass folder, which is emptied before each attempt.
std::filesystem::path rotation_input_file(const runbook::Runbook& rb, int64_t run_id,
                                          int64_t ordinal);

// The input file's text: one job with the groups and the interval (YAML). rocprofv3.py merges a
// single input-file job with the command line's options (main -> get_args) and, with no --pmc,
// writes no pass_N folder (ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3.py,
// rocm-systems 1b1610fc).
std::string rotation_input_text(const std::vector<std::vector<std::string>>& groups,
                                uint64_t interval);

struct RotatedPass {
  std::vector<std::vector<std::string>> groups;
  uint64_t interval = 1;
  int repeats = 1;
  RotationPreview basis;  // the variants, samples per group and the trace it was chosen on
};

// Chooses interval and repeats on run `run_id`'s finished trace and writes `input_file`.
// Throws Error(input), with the reason and a fix, when no interval gives every variant of
// interest min_samples launches of every group within the repeats allowed, or when repeats are
// needed and the workload has no `repeat_option`.
RotatedPass prepare_rotated_pass(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                 const ProfilerBackend& backend,
                                 std::vector<std::vector<std::string>> groups,
                                 const std::filesystem::path& input_file);

}  // namespace kprof::exec
