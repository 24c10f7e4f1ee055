#include "core/exec/rocprofv3_backend.hpp"

#include <signal.h>
#include <unistd.h>

#include <random>

#include "core/base/error.hpp"
#include "core/base/paths.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_sim_name = "rocprofv3-sim";

std::string agent_index_text(runbook::AgentIndex a) {
  switch (a) {
    case runbook::AgentIndex::absolute:
      return "absolute";
    case runbook::AgentIndex::relative:
      return "relative";
    case runbook::AgentIndex::type_relative:
      return "type-relative";
  }
  return "relative";
}

}  // namespace

Rocprofv3Backend::Rocprofv3Backend(const runbook::Runbook& rb, Rocprofv3Options options,
                                   KernelReplaySupport kernel_replay)
    : m_rb(rb), m_options(std::move(options)), m_kernel_replay(std::move(kernel_replay)) {
  for (const auto& e : rb.workload.env.value) m_env.emplace_back(e.name.value, e.value.value);
  if (m_options.simulated) {
    // Variables of the double (core/sim/tool.hpp). The runbook's `sim` map wins over an inherited
    // value so that the recorded seed is the one used.
    if (rb.sim.present && !rb.sim.model.value.empty())
      m_env.emplace_back("ROCPROF_SIM_MODEL", rb.sim.model.value);
    if (m_options.seed) m_env.emplace_back("ROCPROF_SIM_SEED", std::to_string(*m_options.seed));
  }
}

std::string_view Rocprofv3Backend::name() const {
  return m_options.simulated ? k_sim_name : "rocprofv3";
}

bool Rocprofv3Backend::counters_count_outside_regions() const {
  return m_rb.profiler.selected_regions.value && !m_options.version.regions_pause_counters();
}

std::string Rocprofv3Backend::output_format() const {
  const auto& f = m_rb.profiler.output_format;
  if (f.from_file && f.value == runbook::OutputFormat::csv) return "csv";
  if (!m_options.version.has_rocpd()) return "csv";
  if (f.from_file && f.value == runbook::OutputFormat::rocpd) return "rocpd";
  return "rocpd";  // rocprofv3's own default from 1.0.0; its CSV writer is deprecated
}

std::vector<std::string> Rocprofv3Backend::argv(const PassRequest& pass) const {
  plan::PassCommand c;
  c.rocprofv3 = m_options.executable;
  c.mode = pass.mode;
  c.output_dir = pass.output_dir;
  c.output_name = pass.output_name;
  c.output_format = output_format();
  c.selected_regions = m_rb.profiler.selected_regions.value;
  c.truncate_kernels = m_rb.profiler.truncate_kernels.value;
  if (m_rb.profiler.agent_index.value)
    c.agent_index = agent_index_text(*m_rb.profiler.agent_index.value);
  for (const auto& e : m_rb.profiler.extra_args.value) c.extra_args.push_back(e.value);
  if (m_rb.workload.shell.value) {
    c.app = {"/bin/sh", "-c",
             m_rb.workload.command.value.empty() ? "" : m_rb.workload.command.value[0].value};
  } else {
    for (const auto& w : m_rb.workload.command.value) c.app.push_back(w.value);
  }
  // With ROCm 7.0's tool, roctxProfilerResume/Pause only reach the tracing context when marker
  // tracing is on (rocprofv3_version.hpp); without it a --selected-regions trace stays empty.
  const bool regions_marker = c.selected_regions && m_options.version.regions_need_marker_trace();
  if (pass.mode == PassMode::trace) {
    c.stats = m_rb.passes.trace.stats.value;
    c.marker_trace = m_rb.passes.trace.markers.value || regions_marker;
  } else {
    c.counters = pass.counters;
    c.input_file = pass.input_file;
    c.replay_groups = pass.replay_groups;
    // The rotated run repeats the measured request inside one application run.
    if (pass.repeats > 1 && m_rb.workload.repeat_option.value) {
      const std::string& opt = *m_rb.workload.repeat_option.value;
      if (m_rb.workload.shell.value)
        c.app.back() += " " + opt + " " + std::to_string(pass.repeats);
      else
        c.app.insert(c.app.end(), {opt, std::to_string(pass.repeats)});
    }
    const auto& k = m_rb.passes.counters.kernels;
    c.kernel_include_regex =
        pass.kernel_include_regex ? pass.kernel_include_regex : k.include_regex.value;
    c.kernel_exclude_regex = k.exclude_regex.value;
    c.kernel_iteration_range = m_rb.passes.counters.iteration_range.value;
    // The marker records of roctxProfilerResume/Pause say where the measured region is in a
    // counter pass that also counted outside it.
    c.marker_trace = regions_marker;
  }
  return plan::rocprof_argv(c);
}

std::span<const runbook::OwnedOption> Rocprofv3Backend::owned_options() const {
  return runbook::rocprofv3_owned_options();
}

bool log_shows_error_38(const std::string& log_tail) {
  return log_tail.find("error code 38") != std::string::npos ||
         log_tail.find("Request exceeds the capabilities of the hardware to collect") !=
             std::string::npos;
}

Failure Rocprofv3Backend::classify(const RunResult& r, const PassRequest& pass) const {
  if (r.interrupted || r.ok()) return classify_generic(r);
  // rocprofv3 re-raises SIGABRT after its handler; through `sh -c` the same death reads as 134.
  const bool aborted = r.signal == SIGABRT || r.exit_code == 128 + SIGABRT;
  if (!r.timed_out && aborted && log_shows_error_38(r.log_tail)) {
    std::string what = "counters exceed hardware limits (rocprofiler error 38)";
    if (!pass.counters.empty()) what += ": " + join(pass.counters, " ");
    return {FailureKind::deterministic, what};
  }
  return classify_generic(r);
}

ProfilerVersion read_rocprofv3_version(const std::string& executable, const store::EnvDelta& env) {
  std::random_device rd;
  const fs::path log = fs::temp_directory_path() / ("kprof-version-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(rd()) + ".log");
  LaunchSpec s;
  s.argv = {executable, "--version"};
  for (const auto& [k, v] : env) s.env[k] = v;
  s.log_path = log;
  s.timeout = std::chrono::seconds(60);  // a python launcher on a busy node; never a workload
  s.kill_grace = std::chrono::seconds(2);
  s.log_tail_bytes = 4096;
  ProfilerVersion v;
  try {
    const RunResult r = run_process(s);
    const std::string out = file_tail(log, 4096);
    if (r.ok()) {
      v = parse_rocprofv3_version(out);
      if (!v.known())
        v = unknown_rocprofv3_version("'" + executable + " --version' printed no version");
    } else {
      // rocprofv3 before ROCm 7.0 has no --version: argparse rejects it with exit 2.
      v = unknown_rocprofv3_version("'" + executable + " --version' failed (" + r.describe() +
                                    "): a rocprofv3 older than ROCm 7.0");
    }
  } catch (const Error& e) {
    v = unknown_rocprofv3_version(std::string("could not run '") + executable +
                                  " --version': " + e.what());
  }
  std::error_code ec;
  fs::remove(log, ec);
  return v;
}

bool read_rocprofv3_kernel_replay(const std::string& executable, const store::EnvDelta& env,
                                  std::string& probe) {
  std::random_device rd;
  const fs::path log = fs::temp_directory_path() / ("kprof-help-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(rd()) + ".log");
  LaunchSpec s;
  s.argv = {executable, "--help"};
  for (const auto& [k, v] : env) s.env[k] = v;
  s.log_path = log;
  s.timeout = std::chrono::seconds(60);
  s.kill_grace = std::chrono::seconds(2);
  s.log_tail_bytes = 4096;
  bool offered = false;
  try {
    const RunResult r = run_process(s);
    const std::string out = file_tail(log, 1 << 20);  // rocprofv3's help is tens of KB
    const bool mode = out.find("--replay-mode") != std::string::npos;
    const bool beta = out.find("--kernel-replay-beta-enabled") != std::string::npos;
    offered = r.ok() && mode && beta;
    probe = offered
                ? "'" + executable + " --help' lists --replay-mode and --kernel-replay-beta-enabled"
            : !r.ok() ? "'" + executable + " --help' failed (" + r.describe() + ")"
                      : "'" + executable + " --help' lists no " +
                            (mode ? "--kernel-replay-beta-enabled" : "--replay-mode");
  } catch (const Error& e) {
    probe = std::string("could not run '") + executable + " --help': " + e.what();
  }
  std::error_code ec;
  fs::remove(log, ec);
  return offered;
}

std::unique_ptr<ProfilerBackend> make_rocprofv3_backend(const runbook::Runbook& rb,
                                                        const BackendChoice& choice) {
  Rocprofv3Options o;
  o.executable = rb.profiler.path.value.empty() ? std::string("rocprofv3") : rb.profiler.path.value;
  if (choice.simulate) {
    const auto sim = self_exe_dir() / k_sim_name;
    if (!fs::exists(sim)) {
      throw Error::runtime(
          "--simulate needs the test double, but '" + sim.string() + "' does not exist",
          "build the rocprofv3-sim target (it is installed beside kprof)");
    }
    o.executable = sim.string();
  }
  o.simulated = fs::path(o.executable).filename() == k_sim_name;
  if (o.simulated) o.seed = static_cast<int64_t>(rb.sim.seed.value);
  // The environment the version is read with is the passes' own (the double's version switch
  // may come from the runbook's workload.env or from kprof's environment).
  store::EnvDelta env;
  for (const auto& e : rb.workload.env.value) env.emplace_back(e.name.value, e.value.value);
  o.version = choice.recorded_version ? parse_rocprofv3_version(*choice.recorded_version)
                                      : read_rocprofv3_version(o.executable, env);
  if (choice.recorded_version && !o.version.known()) o.version.text = *choice.recorded_version;
  // Asked only when the runbook wants kernel replay: one more start of the python launcher.
  KernelReplaySupport kr;
  if (rb.passes.counters.enabled.value &&
      rb.passes.counters.replay.value == runbook::Replay::kernel)
    kr.offered = read_rocprofv3_kernel_replay(o.executable, env, kr.probe);
  return std::make_unique<Rocprofv3Backend>(rb, std::move(o), std::move(kr));
}

}  // namespace kprof::exec
