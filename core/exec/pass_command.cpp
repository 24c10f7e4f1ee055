#include "core/exec/pass_command.hpp"

#include "core/base/error.hpp"
#include "core/base/paths.hpp"
#include "core/plan/rocprof_command.hpp"
#include "core/plan/runbook_request.hpp"

namespace kprof::exec {

namespace {
constexpr const char* k_sim_name = "rocprofv3-sim";
}

Backend make_backend(const runbook::Runbook& rb, bool simulate) {
  Backend b;
  b.profiler = rb.profiler.path.value.empty() ? std::string("rocprofv3") : rb.profiler.path.value;
  if (simulate) {
    const auto sim = self_exe_dir() / k_sim_name;
    if (!std::filesystem::exists(sim)) {
      throw Error::runtime(
          "--simulate needs the test double, but '" + sim.string() + "' does not exist",
          "build the rocprofv3-sim target (it is installed beside kprof)");
    }
    b.profiler = sim.string();
  }
  b.simulated = std::filesystem::path(b.profiler).filename() == k_sim_name;
  for (const auto& e : rb.workload.env.value) b.env.emplace_back(e.name.value, e.value.value);
  if (b.simulated) {
    // Variables of the double (core/sim/tool.hpp). The runbook's `sim` map wins over an inherited
    // value so that the recorded seed is the one used.
    if (rb.sim.present && !rb.sim.model.value.empty())
      b.env.emplace_back("ROCPROF_SIM_MODEL", rb.sim.model.value);
    b.seed = static_cast<int64_t>(rb.sim.seed.value);
    b.env.emplace_back("ROCPROF_SIM_SEED", std::to_string(rb.sim.seed.value));
  }
  return b;
}

std::vector<std::string> trace_pass_argv(const runbook::Runbook& rb, const Backend& backend,
                                         const std::filesystem::path& output_dir,
                                         const std::string& output_name) {
  plan::PassCommand c = plan::pass_command_from_runbook(rb, {}, output_dir, output_name);
  c.rocprofv3 = backend.profiler;
  // Kernel filters thin counter collection only, never kernel_trace.csv (facts/rocprofv3.md §1.2);
  // leaving them off the trace pass keeps its command line honest.
  c.kernel_include_regex.reset();
  c.kernel_exclude_regex.reset();
  c.kernel_iteration_range.reset();
  std::vector<std::string> argv = plan::rocprof_argv(c);
  // rocprof_argv builds counter passes ("--pmc" then the counters, none here): swap that option
  // for the trace options.
  std::vector<std::string> trace{"--kernel-trace"};
  if (rb.passes.trace.stats.value) trace.push_back("--stats");
  if (rb.passes.trace.markers.value) trace.push_back("--marker-trace");
  if (argv.size() > 1 && argv[1] == "--pmc") {
    argv.erase(argv.begin() + 1);
    argv.insert(argv.begin() + 1, trace.begin(), trace.end());
  }
  return argv;
}

std::vector<std::string> counter_pass_argv(const runbook::Runbook& rb, const Backend& backend,
                                           const std::vector<std::string>& counters,
                                           const std::filesystem::path& output_dir,
                                           const std::string& output_name,
                                           const std::optional<std::string>& include_regex) {
  plan::PassCommand c =
      plan::pass_command_from_runbook(rb, counters, output_dir, output_name, include_regex);
  c.rocprofv3 = backend.profiler;
  return plan::rocprof_argv(c);
}

store::EnvDelta gpu_env(int gpu) {
  return {{"HIP_VISIBLE_DEVICES", std::to_string(gpu)},
          {"ROCR_VISIBLE_DEVICES", std::to_string(gpu)}};
}

}  // namespace kprof::exec
