#include "core/exec/passes/pass_plan.hpp"

#include <algorithm>
#include <chrono>

#include "core/exec/passes/rotated_pass.hpp"
#include "core/hw/metric_set.hpp"
#include "core/plan/rotation.hpp"
#include "core/plan/runbook_request.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

CounterPlan plan_counters(const runbook::Runbook& rb, const plan::PlanOptions& options) {
  CounterPlan cp{hw::Target::load_arch(rb.target.arch.value), {}, {}, 0};
  std::vector<hw::MetricSet> sets;
  const auto known = hw::metric_set_names();
  // Unknown names are left to request_from_runbook, which reports them at their runbook position.
  for (const auto& s : rb.passes.counters.metric_sets.value)
    if (std::find(known.begin(), known.end(), s.value) != known.end())
      sets.push_back(hw::load_metric_set_named(s.value, cp.target));
  cp.request = plan::request_from_runbook(rb, cp.target, sets);
  const auto t0 = std::chrono::steady_clock::now();
  cp.plan = plan::plan_passes(cp.target, cp.request, options);
  cp.planning_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return cp;
}

// What the runbook asks that the detected release has no option for: refused at the key, with
// the release and the option named (never dropped without a word).
void refuse_missing_option(const runbook::Runbook& rb, const ProfilerBackend& backend,
                           const SourcePos& pos, const std::string& key, const char* option,
                           const std::string& fix) {
  const ProfilerVersion& v = backend.version();
  if (v.table().has(option)) return;
  throw Error(ErrorKind::input, runbook::diagnostic(rb, pos,
                                                    key + " needs rocprofv3's " + option +
                                                        ", which " + v.summary() + " does not have",
                                                    fix));
}

// Settings the profiler's version cannot honour are the runbook's error, found before any pass.
void check_against_version(const runbook::Runbook& rb, const ProfilerBackend& backend) {
  const auto& f = rb.profiler.output_format;
  if (f.from_file && f.value == runbook::OutputFormat::rocpd && !backend.version().has_rocpd()) {
    throw Error(ErrorKind::input,
                runbook::diagnostic(rb, f.pos,
                                    "profiler.output_format: rocpd needs rocprofv3 from ROCm 7.0, "
                                    "but " +
                                        backend.version().summary(),
                                    "write output_format: csv, or use a newer ROCm"));
  }
  if (!rb.passes.counters.enabled.value) return;
  const auto& k = rb.passes.counters.kernels;
  const std::string newer = ", or use a rocprofv3 that has it (configs/rocprofv3 lists them)";
  if (k.include_regex.value)
    refuse_missing_option(rb, backend, k.include_regex.pos, "passes.counters.kernels.include_regex",
                          "--kernel-include-regex",
                          "remove include_regex (every kernel is counted)" + newer);
  if (k.exclude_regex.value)
    refuse_missing_option(rb, backend, k.exclude_regex.pos, "passes.counters.kernels.exclude_regex",
                          "--kernel-exclude-regex", "remove exclude_regex" + newer);
  if (k.from_trace)
    refuse_missing_option(rb, backend, k.from_trace->pos, "passes.counters.kernels.from_trace",
                          "--kernel-include-regex", "remove from_trace" + newer);
  const auto& r = rb.passes.counters.iteration_range;
  if (r.value)
    refuse_missing_option(rb, backend, r.pos, "passes.counters.iteration_range",
                          "--kernel-iteration-range", "remove iteration_range" + newer);
  const auto& a = rb.profiler.agent_index;
  if (a.value)
    refuse_missing_option(rb, backend, a.pos, "profiler.agent_index", "--agent-index",
                          "remove agent_index" + newer);
  for (const auto& e : rb.profiler.extra_args.value) {
    const std::string opt = e.value.substr(0, e.value.find('='));
    if (opt.size() > 1 && opt[0] == '-' && !backend.version().table().has(opt))
      refuse_missing_option(rb, backend, e.pos, "profiler.extra_args '" + e.value + "'",
                            opt.c_str(), "remove it from extra_args" + newer);
  }
}

}  // namespace

fs::path run_dir(const runbook::Runbook& rb, int64_t run_id) {
  return rb.captures.value / ("run-" + std::to_string(run_id));
}
fs::path pass_dir(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal) {
  return run_dir(rb, run_id) / ("pass-" + std::to_string(ordinal));
}
fs::path pass_log(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal) {
  return run_dir(rb, run_id) / "logs" / ("pass-" + std::to_string(ordinal) + ".log");
}

PassRequest pass_request(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal,
                         store::PassKind kind, std::vector<std::string> counters,
                         std::optional<std::string> kernel_include_regex) {
  PassRequest r;
  r.mode = kind == store::PassKind::trace ? PassMode::trace : PassMode::counters;
  r.counters = std::move(counters);
  r.output_dir = pass_dir(rb, run_id, ordinal);
  r.output_name = k_output_name;
  r.kernel_include_regex = std::move(kernel_include_regex);
  return r;
}

std::vector<std::vector<std::string>> kernel_replay_groups(const runbook::Runbook& rb,
                                                           const ProfilerBackend& backend,
                                                           const RunPlan& plan,
                                                           store::PassKind kind) {
  // choose_replay checked the profiler and the workload; the plan's passes are the groups.
  if (kind != store::PassKind::counters || !plan.counters ||
      rb.passes.counters.replay.value != runbook::Replay::kernel ||
      !backend.offers_kernel_replay() || plan.counters->plan.passes.size() < 2)
    return {};
  return plan::rotation_groups(plan.counters->plan, plan.counters->request);
}

PlannedCommand pass_command(const runbook::Runbook& rb, const ProfilerBackend& backend,
                            int64_t run_id, int64_t ordinal, store::PassKind kind,
                            PassRequest request) {
  PlannedCommand c;
  c.ordinal = ordinal;
  c.kind = kind;
  c.request = std::move(request);
  c.argv = backend.argv(c.request);
  c.env = backend.env();
  c.output_dir = c.request.output_dir;
  c.log_path = pass_log(rb, run_id, ordinal);
  return c;
}

store::PlannedPass planned_pass(const PlannedCommand& c) {
  store::PlannedPass p;
  p.ordinal = c.ordinal;
  p.kind = c.kind;
  p.counters = c.request.counters;
  p.argv = c.argv;
  p.env = c.env;
  p.output_dir = c.output_dir.string();
  p.log_path = c.log_path.string();
  return p;
}

std::vector<PlannedCommand> commands_for_run(const RunPlan& rp, const runbook::Runbook& rb,
                                             const ProfilerBackend& backend, int64_t run_id,
                                             const std::optional<std::string>& placeholder) {
  const std::optional<std::string> include = rp.filter_after_trace ? placeholder : std::nullopt;
  std::vector<PlannedCommand> out;
  if (rb.passes.trace.enabled.value) {
    out.push_back(pass_command(rb, backend, run_id, 0, store::PassKind::trace,
                               pass_request(rb, run_id, 0, store::PassKind::trace, {}, {})));
  }
  const auto counter_pass = [&](int64_t ordinal, std::vector<std::string> counters) {
    PassRequest r =
        pass_request(rb, run_id, ordinal, store::PassKind::counters, std::move(counters), include);
    r.replay_groups = kernel_replay_groups(rb, backend, rp, store::PassKind::counters);
    return r;
  };
  int64_t ordinal = 1;  // ordinal 0 is the trace pass's, even when there is none
  if (rp.counters && rp.replay.mode == ReplayMode::rotate) {
    // Rotation: the planned passes become the groups of ONE counter run; interval and repeats
    // are chosen on the trace when it starts (rotated_pass.hpp). A counter in two groups is
    // refused here, at plan time (the groups are told apart by counter names).
    std::vector<std::string> all;
    for (const auto& g : plan::rotation_groups(rp.counters->plan, rp.counters->request))
      all.insert(all.end(), g.begin(), g.end());
    PassRequest r = counter_pass(1, std::move(all));
    r.input_file = rotation_input_file(rb, run_id, 1);
    out.push_back(pass_command(rb, backend, run_id, 1, store::PassKind::counters, std::move(r)));
    return out;
  }
  if (rp.counters && rp.replay.mode == ReplayMode::kernel) {
    // Kernel replay: ONE counter run; rocprofv3 replays each counted dispatch once per group.
    std::vector<std::string> all;
    for (const auto& g : plan::rotation_groups(rp.counters->plan, rp.counters->request))
      all.insert(all.end(), g.begin(), g.end());
    out.push_back(pass_command(rb, backend, run_id, 1, store::PassKind::counters,
                               counter_pass(1, std::move(all))));
    return out;
  }
  if (rp.counters) {
    for (const auto& pass : rp.counters->plan.passes) {
      const int64_t k = ordinal++;
      out.push_back(pass_command(rb, backend, run_id, k, store::PassKind::counters,
                                 counter_pass(k, pass.counters)));
    }
  }
  return out;
}

RunPlan plan_run(const runbook::Runbook& rb, const ProfilerBackend& backend, int64_t run_id,
                 const RunPlanOptions& options) {
  check_against_version(rb, backend);
  RunPlan rp;
  if (rb.passes.counters.enabled.value && backend.plans_counter_passes())
    rp.counters = plan_counters(rb, options.planner);

  const auto& k = rb.passes.counters.kernels;
  if (k.from_trace) {
    rp.filter_after_trace = "the top " + std::to_string(k.from_trace->top.value) +
                            " kernels of the trace pass by " +
                            std::string(runbook::to_string(k.from_trace->by.value));
  } else if (backend.counters_count_outside_regions() && rb.passes.trace.enabled.value &&
             backend.version().table().has("--kernel-include-regex")) {
    rp.filter_after_trace = "the kernels the trace pass saw inside the region" +
                            std::string(k.include_regex.value ? " that match include_regex" : "") +
                            " (" +
                            (backend.version().known() ? backend.version().summary()
                                                       : std::string("a rocprofv3 of unknown "
                                                                     "version")) +
                            " does not pause counters outside --selected-regions)";
  }
  rp.replay = choose_replay(rb, backend, rp.counters ? rp.counters->plan.passes.size() : 0);
  rp.passes = commands_for_run(rp, rb, backend, run_id, options.filter_placeholder);
  return rp;
}

}  // namespace kprof::exec
