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

#include "core/exec/passes/rotation_preview.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
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
  // Kernel replay: what makes it impractical though allowed (kernel_replay_memory_warning).
  std::string warning = {};
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

// The device memory a vLLM workload makes kernel replay snapshot, with the figure, or nullopt.
// rocprofv3's kernel replay snapshots every tracked coarse-grained allocation of the agent into
// host memory and restores it before each group's re-execution of a dispatch
// (how-to/using-kernel-replay-rocprofv3.rst, "Limitations"; ROCm/rocm-systems PRs #7960,
// #10439). vLLM allocates gpu_memory_utilization of the device up front for weights and KV cache
// (vllm/config/cache.py, default 0.9; --gpu-memory-utilization), so on an MI300X (192 GB HBM3,
// AMD Instinct MI300X data sheet) each counted dispatch would copy about 172.8 GB per group. kprof
// warns from 16 GB: the replay stays allowed (the user may know better, e.g. a smaller
// --gpu-memory-utilization), and the plan and the run say the figure and the way out.
std::optional<std::string> kernel_replay_memory_warning(const runbook::Runbook& rb);

std::string to_string(ReplayMode mode);

}  // namespace kprof::exec
