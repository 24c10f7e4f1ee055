#include "core/exec/passes/replay_choice.hpp"

#include <cstdio>

#include "core/base/error.hpp"
#include "core/exec/passes/rotated_pass.hpp"

namespace kprof::exec {

namespace {

std::optional<std::string> env_value(const runbook::Runbook& rb, std::string_view name,
                                     SourcePos* pos = nullptr) {
  for (const auto& e : rb.workload.env.value)
    if (e.name.value == name) {
      if (pos) *pos = e.value.pos;
      return e.value.value;
    }
  return std::nullopt;
}

bool has_word(const runbook::Runbook& rb, std::string_view word) {
  for (const auto& w : rb.workload.command.value)
    if (w.value.find(word) != std::string::npos) return true;
  return false;
}

// The value after `option` in the command (`--graph-mode none` or `--graph-mode=none`).
std::optional<std::string> option_value(const runbook::Runbook& rb, const std::string& option) {
  const auto& cmd = rb.workload.command.value;
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (cmd[i].value == option && i + 1 < cmd.size()) return cmd[i + 1].value;
    if (cmd[i].value.rfind(option + "=", 0) == 0) return cmd[i].value.substr(option.size() + 1);
  }
  return std::nullopt;
}

// The choice for `replay: kernel` (choose_replay).
ReplayChoice kernel_replay_choice(const runbook::Runbook& rb, const ProfilerBackend& backend,
                                  size_t passes) {
  const auto& r = rb.passes.counters.replay;
  if (passes < 2) return {ReplayMode::application, "one counter pass: nothing to replay"};
  if (!backend.offers_kernel_replay())
    throw Error(ErrorKind::input,
                runbook::diagnostic(
                    rb, r.pos,
                    "passes.counters.replay: kernel needs rocprofv3's kernel replay (--replay-mode "
                    "kernel --kernel-replay-beta-enabled, a beta no release up to rocprofiler-sdk "
                    "1.3.5 lists), but " +
                        backend.kernel_replay_probe(),
                    "write replay: auto (one rotated run when the trace allows it, else one run "
                    "per pass), or use a rocprofv3 that offers kernel replay"));
  if (const auto limit = kernel_replay_limit(rb))
    throw Error(ErrorKind::input, runbook::diagnostic(rb, limit->pos, limit->what, limit->fix));
  ReplayChoice c{ReplayMode::kernel,
                 std::to_string(passes) +
                     " groups replayed on every counted dispatch in one run "
                     "(rocprofv3 kernel replay, beta): " +
                     std::to_string(rb.passes.trace.enabled.value ? 2 : 1) +
                     " application runs instead of " +
                     std::to_string(passes + (rb.passes.trace.enabled.value ? 1 : 0))};
  if (const auto w = kernel_replay_memory_warning(rb)) c.warning = *w;
  return c;
}

}  // namespace

std::optional<ReplayLimit> kernel_replay_limit(const runbook::Runbook& rb) {
  const std::string why = "passes.counters.replay: kernel ";
  SourcePos pos = rb.workload.command.pos;
  if (rb.workload.ranks.value > 1)
    return ReplayLimit{rb.workload.ranks.pos,
                       why + "replays one process only, but workload.ranks: " +
                           std::to_string(rb.workload.ranks.value) + " runs " +
                           std::to_string(rb.workload.ranks.value) + " worker processes",
                       "write replay: auto (or application)"};
  if (const auto v = env_value(rb, "ROCPROF_SIM_PROCESSES", &pos); v && *v == "2")
    return ReplayLimit{pos,
                       why +
                           "replays one process only, but ROCPROF_SIM_PROCESSES=2 runs the "
                           "modelled work in a second process",
                       "remove ROCPROF_SIM_PROCESSES, or write replay: auto"};
  const bool script = has_word(rb, "qwen3_generate.py");
  if (!script && !has_word(rb, "vllm")) return std::nullopt;
  pos = rb.workload.command.pos;
  const auto mp = env_value(rb, "VLLM_ENABLE_V1_MULTIPROCESSING", &pos);
  if (!mp || *mp != "0")
    return ReplayLimit{pos,
                       why +
                           "replays one process only, and vLLM runs the model in its EngineCore "
                           "process unless VLLM_ENABLE_V1_MULTIPROCESSING=0 (here " +
                           (mp ? *mp : std::string("unset: vLLM's default 1")) + ")",
                       "set workload.env VLLM_ENABLE_V1_MULTIPROCESSING: \"0\", or write "
                       "replay: auto"};
  const auto mode = option_value(rb, "--graph-mode");
  const bool graphs = script ? mode && *mode == "vllm-default"
                             : !has_word(rb, "--enforce-eager") && !has_word(rb, "cudagraph_mode");
  if (graphs)
    return ReplayLimit{rb.workload.command.pos,
                       why +
                           "runs HIP graph launches once, unreplayed, and this vLLM workload "
                           "captures its decode steps as HIP graphs" +
                           (script ? " (--graph-mode vllm-default)" : " (no --enforce-eager)"),
                       script ? "use --graph-mode none (the shipped runbook's), or write "
                                "replay: auto"
                              : "add --enforce-eager (or compilation_config cudagraph_mode "
                                "NONE), or write replay: auto"};
  return std::nullopt;
}

std::optional<std::string> kernel_replay_memory_warning(const runbook::Runbook& rb) {
  constexpr double k_device_gb = 192.0;  // MI300X
  constexpr double k_warn_gb = 16.0;
  if (!has_word(rb, "qwen3_generate.py") && !has_word(rb, "vllm")) return std::nullopt;
  double share = 0.9;
  std::string from = "vLLM's default gpu_memory_utilization 0.9";
  if (const auto v = option_value(rb, "--gpu-memory-utilization")) {
    try {
      share = std::stod(*v);
      from = "--gpu-memory-utilization " + *v;
    } catch (const std::exception&) {
      return std::nullopt;  // the workload refuses it itself
    }
  }
  const double gb = share * k_device_gb;
  if (gb < k_warn_gb) return std::nullopt;
  char figure[64];
  std::snprintf(figure, sizeof figure, "%.1f GB", gb);
  return "kernel replay snapshots the device memory vLLM holds (" + from + " of an MI300X's " +
         "192 GB = " + figure +
         ") into host memory and restores it before every group of every "
         "counted dispatch: impractical at that size. Lower --gpu-memory-utilization to what the "
         "model needs, or write replay: auto";
}

ReplayChoice choose_replay(const runbook::Runbook& rb, const ProfilerBackend& backend,
                           size_t passes) {
  const auto& c = rb.passes.counters;
  if (!c.enabled.value || passes == 0) return {};
  if (c.replay.value == runbook::Replay::application) return {};
  if (c.replay.value == runbook::Replay::kernel) return kernel_replay_choice(rb, backend, passes);
  if (c.replay.value == runbook::Replay::rotate)
    return {rotates(rb, backend) && passes >= 2 ? ReplayMode::rotate : ReplayMode::application,
            passes >= 2 ? "" : "one counter pass: nothing to rotate"};
  // auto
  const auto app = [](std::string why) { return ReplayChoice{ReplayMode::application, why}; };
  if (passes < 2) return app("one counter pass: nothing to rotate");
  const ProfilerVersion& v = backend.version();
  if (!v.known())
    return app("rocprofv3 reports no version (" + v.summary() +
               "): pmc_groups need rocprofiler-sdk 1.0.0 (ROCm 7.0) or later");
  if (!v.has_rocpd())
    return app(v.summary() + " has no pmc_groups (rocprofiler-sdk 1.0.0, ROCm 7.0, added them)");
  if (rb.profiler.selected_regions.value && backend.counters_count_outside_regions())
    return app(v.summary() +
               " counts, and so rotates, outside --selected-regions: the warm-up would shift "
               "the groups by an amount the trace does not show");
  if (c.iteration_range.value)
    return app(
        "iteration_range: rocprofv3 advances the rotation only over the iterations it "
        "counts");
  if (!rb.passes.trace.enabled.value)
    return app("rotation is planned on this run's trace, and the runbook has no trace pass");
  return {ReplayMode::after_trace,
          "decided on the run's trace: one rotated run when every variant of interest gets " +
              std::to_string(c.min_samples.value) +
              " launches of every group, else one run per pass"};
}

ReplayChoice choose_replay_on_trace(const RotationPreview& p, const runbook::Runbook& rb) {
  const auto app = [](std::string why) { return ReplayChoice{ReplayMode::application, why}; };
  if (!p.unavailable.empty()) return app(p.unavailable);
  if (!p.choice.feasible) return app(p.choice.why);
  if (p.choice.repeats > 1 && !rb.workload.repeat_option.value)
    return app("rotation needs --repeat " + std::to_string(p.choice.repeats) +
               ", and the workload has no repeat_option");
  return {ReplayMode::rotate,
          std::to_string(p.groups) + " groups rotated in one run (pmc_group_interval " +
              std::to_string(p.choice.interval) + ", --repeat " + std::to_string(p.choice.repeats) +
              "): every variant of interest gets >= " + std::to_string(p.choice.least) +
              " launches of every group; 2 application runs " + "instead of " +
              std::to_string(1 + p.groups)};
}

std::string to_string(ReplayMode mode) {
  switch (mode) {
    case ReplayMode::application:
      return "application";
    case ReplayMode::rotate:
      return "rotate";
    case ReplayMode::after_trace:
      return "after the trace";
    case ReplayMode::kernel:
      return "kernel";
  }
  return "application";
}

}  // namespace kprof::exec
