#include "core/exec/replay_choice.hpp"

#include "core/exec/rotated_pass.hpp"

namespace kprof::exec {

ReplayChoice choose_replay(const runbook::Runbook& rb, const ProfilerBackend& backend,
                           size_t passes) {
  const auto& c = rb.passes.counters;
  if (!c.enabled.value || passes == 0) return {};
  if (c.replay.value == runbook::Replay::application) return {};
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
  }
  return "application";
}

}  // namespace kprof::exec
