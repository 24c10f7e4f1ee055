#include "core/exec/profiler/rocprofv3_backend.hpp"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/base/paths.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/tool_probe.hpp"

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
  // Only the options of the detected release (configs/rocprofv3/<release>.json); what a runbook
  // asks and the release lacks was refused by plan_run (release_refusals).
  const RocprofRelease& release = m_options.version.table();
  const auto has = [&](const char* dest) { return release.find_dest(dest) != nullptr; };
  plan::PassCommand c;
  c.rocprofv3 = m_options.executable;
  c.mode = pass.mode;
  c.output_dir = pass.output_dir;
  c.output_name = pass.output_name;
  c.output_format = output_format();
  c.output_format_option = release.spelling("output_format");
  c.selected_regions = m_rb.profiler.selected_regions.value && has("selected_regions");
  c.truncate_kernels = m_rb.profiler.truncate_kernels.value;
  if (m_rb.profiler.agent_index.value && has("agent_index"))
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
  // Before 7.0 there is no region switch: the marker records say where the region is, and every
  // pass is cut to it at ingest (region_filter.hpp).
  const bool regions_marker =
      m_rb.profiler.selected_regions.value && m_options.version.regions_need_marker_trace();
  if (pass.mode == PassMode::trace) {
    c.stats = m_rb.passes.trace.stats.value;
    c.marker_trace = m_rb.passes.trace.markers.value || regions_marker;
  } else {
    c.counters = pass.counters;
    c.input_file = pass.input_file;
    c.replay_groups = pass.replay_groups;
    if (!has("pmc") && !c.input_file && c.replay_groups.empty())
      c.input_file = counter_input_file(pass.output_dir);
    // The rotated run repeats the measured request inside one application run.
    if (pass.repeats > 1 && m_rb.workload.repeat_option.value) {
      const std::string& opt = *m_rb.workload.repeat_option.value;
      if (m_rb.workload.shell.value)
        c.app.back() += " " + opt + " " + std::to_string(pass.repeats);
      else
        c.app.insert(c.app.end(), {opt, std::to_string(pass.repeats)});
    }
    const auto& k = m_rb.passes.counters.kernels;
    if (has("kernel_include_regex")) {
      c.kernel_include_regex =
          pass.kernel_include_regex ? pass.kernel_include_regex : k.include_regex.value;
      c.kernel_exclude_regex = k.exclude_regex.value;
    }
    if (has("kernel_iteration_range"))
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

fs::path counter_input_file(const fs::path& output_dir) {
  return output_dir.string() + ".pmc.json";
}

void write_counter_input_file(const std::vector<std::string>& argv,
                              const std::vector<std::string>& counters) {
  for (size_t i = 0; i + 1 < argv.size() && argv[i] != "--"; ++i) {
    if (argv[i] != "-i" || !std::string_view(argv[i + 1]).ends_with(".pmc.json")) continue;
    nlohmann::json pmc = nlohmann::json::array();
    for (const auto& c : counters) pmc.push_back(c);
    const nlohmann::json doc = {{"metrics", nlohmann::json::array({{{"pmc", pmc}}})}};
    const fs::path file = argv[i + 1];
    fs::create_directories(file.parent_path());
    std::ofstream f(file, std::ios::trunc);
    f << doc.dump() << "\n";
    if (!f.flush())
      throw Error::runtime("cannot write '" + file.string() + "'",
                           "check the captures folder's permissions and free space");
  }
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
  // rocprofv3 starts the application with os.execvpe (source/bin/rocprofv3.py); a program that is
  // not there raises FileNotFoundError (PermissionError: not executable), which ends the launcher
  // with Python's exit 1 and a traceback (https://docs.python.org/3/library/os.html#os.execvpe).
  if (!r.timed_out && r.signal == 0 && r.exit_code == 1) {
    for (const char* e : {"FileNotFoundError: [Errno 2]", "PermissionError: [Errno 13]"}) {
      if (r.log_tail.find(e) != std::string::npos)
        return {FailureKind::deterministic,
                std::string("the workload program could not be started (rocprofv3: ") + e +
                    "...): check workload.command and its PATH"};
    }
  }
  return classify_generic(r);
}

namespace {

ToolOutput probe_tool(const std::string& executable, const std::string& option,
                      const store::EnvDelta& env) {
  return run_tool({executable, option}, env);
}

}  // namespace

ProfilerVersion read_rocprofv3_version(const std::string& executable, const store::EnvDelta& env) {
  const ToolOutput v = probe_tool(executable, "--version", env);
  if (!v.ran)
    return unknown_rocprofv3_version(std::string("could not run '") + executable +
                                     " --version': " + v.ended);
  if (v.ok) {
    ProfilerVersion out = parse_rocprofv3_version(v.text);
    if (!out.known())
      out = unknown_rocprofv3_version("'" + executable + " --version' printed no version");
    return out;
  }
  // rocprofv3 before ROCm 7.0 has no --version (argparse exits 2): its --help names the release
  // by the options it lists (configs/rocprofv3).
  const std::string how = "'" + executable + " --version' failed (" + v.ended + ")";
  const ToolOutput h = probe_tool(executable, "--help", env);
  if (!h.ok) return unknown_rocprofv3_version(how + ", and so did --help (" + h.ended + ")");
  return rocprofv3_version_from_help(h.text, how);
}

bool read_rocprofv3_kernel_replay(const std::string& executable, const store::EnvDelta& env,
                                  std::string& probe) {
  const ToolOutput h = probe_tool(executable, "--help", env);
  const bool mode = h.text.find("--replay-mode") != std::string::npos;
  const bool beta = h.text.find("--kernel-replay-beta-enabled") != std::string::npos;
  const bool offered = h.ok && mode && beta;
  probe = !h.ran ? std::string("could not run '") + executable + " --help': " + h.ended
          : offered
              ? "'" + executable + " --help' lists --replay-mode and --kernel-replay-beta-enabled"
          : !h.ok ? "'" + executable + " --help' failed (" + h.ended + ")"
                  : "'" + executable + " --help' lists no " +
                        (mode ? "--kernel-replay-beta-enabled" : "--replay-mode");
  return offered;
}

bool runs_test_double(const runbook::Runbook& rb, bool simulate) {
  return simulate || fs::path(rb.profiler.path.value).filename() == k_sim_name;
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
  o.simulated = runs_test_double(rb, choice.simulate);
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
