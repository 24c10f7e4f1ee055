// How a runbook's counter passes are collected (`passes.counters.replay`): one application run
// per pass, or the passes rotated as counter groups in ONE run (rotated_pass.hpp). `auto` (the
// default) rotates when rotation can serve the request and replays otherwise, and says why:
//  * before the run, from the profiler and the runbook: rocprofv3 older than rocprofiler-sdk
//    1.0.0 (ROCm 7.0) has no pmc_groups (ROCm/rocm-systems projects/rocprofiler-sdk/
//    CHANGELOG.md, 1.0.0; rocprofv3.py reads them from the input file's job and sets
//    ROCPROF_COUNTER_GROUPS), a tool that counts outside --selected-regions (rocprofv3_version.hpp)
//    rotates over the warm-up too, iteration_range changes which dispatches advance the rotation,
//    and without a trace pass there is no dispatch sequence to plan on;
//  * then on this run's own trace (the rotation is simulated on its dispatch sequence): every
//    variant of interest must reach min_samples launches of every group with some number of
//    repeated requests R (and R > 1 needs workload.repeat_option).
#pragma once

#include <cstddef>
#include <string>

#include "core/exec/profiler_backend.hpp"
#include "core/exec/rotation_preview.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

enum class ReplayMode {
  application,  // one application run per counter pass
  rotate,       // one counter run, the passes its groups
  after_trace,  // auto: decided on this run's trace pass (rotate, or application)
};

struct ReplayChoice {
  ReplayMode mode = ReplayMode::application;
  std::string why;  // for auto: why this mode (one line); empty when the runbook chose
};

// Before the run. `passes`: the counter passes planned. Throws Error(input) for `replay: rotate`
// that this profiler or runbook cannot honour (rotates()).
ReplayChoice choose_replay(const runbook::Runbook& rb, const ProfilerBackend& backend,
                           size_t passes);

// `auto` on a trace: rotate when the preview (rotation_on_run) serves every variant of interest.
ReplayChoice choose_replay_on_trace(const RotationPreview& preview, const runbook::Runbook& rb);

std::string to_string(ReplayMode mode);

}  // namespace kprof::exec
