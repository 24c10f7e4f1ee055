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
#include <optional>
#include <string>

#include "core/exec/profiler_backend.hpp"
#include "core/exec/rotation_preview.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

enum class ReplayMode {
  application,  // one application run per counter pass
  rotate,       // one counter run, the passes its groups
  after_trace,  // auto: decided on this run's trace pass (rotate, or application)
  kernel,       // `replay: kernel`: one counter run, each dispatch replayed once per group
};

struct ReplayChoice {
  ReplayMode mode = ReplayMode::application;
  std::string why;  // for auto: why this mode (one line); empty when the runbook chose
};

// Before the run. `passes`: the counter passes planned. Throws Error(input) for `replay: rotate`
// that this profiler or runbook cannot honour (rotates()), and for `replay: kernel` when the
// profiler offers no kernel replay or the workload is outside its limits (kernel_replay_limit).
// `auto` never chooses kernel replay: it is a beta.
ReplayChoice choose_replay(const runbook::Runbook& rb, const ProfilerBackend& backend,
                           size_t passes);

// `auto` on a trace: rotate when the preview (rotation_on_run) serves every variant of interest.
ReplayChoice choose_replay_on_trace(const RotationPreview& preview, const runbook::Runbook& rb);

// Why the runbook's workload cannot be kernel-replayed, with the runbook position to point at, or
// nullopt. rocprofv3's kernel replay (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/
// how-to/using-kernel-replay-rocprofv3.rst, "Limitations") replays one process only, and runs HIP
// graph launches once, unreplayed. kprof cannot see inside an arbitrary workload; it checks what
// the runbook says of the ones it knows: vLLM (its V1 EngineCore is a second process unless
// VLLM_ENABLE_V1_MULTIPROCESSING=0, vllm/envs.py; it captures decode steps as HIP graphs unless
// --enforce-eager or cudagraph_mode NONE), the shipped workloads/qwen3_generate.py (its
// --graph-mode), and the test double's two-process mode (ROCPROF_SIM_PROCESSES=2).
struct ReplayLimit {
  SourcePos pos;
  std::string what;
  std::string fix;
};
std::optional<ReplayLimit> kernel_replay_limit(const runbook::Runbook& rb);

std::string to_string(ReplayMode mode);

}  // namespace kprof::exec
