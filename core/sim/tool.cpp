#include "core/sim/tool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>

#include "core/base/environment.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/hw/target.hpp"
#include "core/sim/avail.hpp"
#include "core/sim/devices.hpp"
#include "core/sim/options.hpp"
#include "core/sim/pass_runner.hpp"
#include "core/sim/tool_process.hpp"
#include "core/sim/version.hpp"

namespace kprof::sim {

namespace {

using namespace detail;

std::string version_text(const SimVersion& v) {
  const std::pair<const char*, std::string> rows[] = {
      {"version", v.sdk_text()},
      {"git_revision", "rocprofv3-sim (simulated, not ROCm)"},
      {"library_arch", "x86_64-linux-gnu"},
      {"system_name", "Linux"},
      {"system_processor", "x86_64"},
      {"system_version", "simulated"},
      {"compiler_id", "GNU"},
      {"compiler_version", "12"},
      {"rocm_version", v.rocm},
  };
  std::string out;
  for (const auto& [k, value] : rows) {
    std::string key(k);
    out += "    " + std::string(16 - std::min<size_t>(16, key.size()), ' ') + key + ": " + value +
           "\n";
  }
  return out;
}

uint64_t pass_seed(uint64_t seed, const JobOptions& job, size_t index) {
  std::string groups;
  for (const auto& g : job.pmc_groups) groups += "|" + join(g, ",");
  return seed * 0x9e3779b97f4a7c15ULL ^
         std::hash<std::string>{}(join(job.pmc, ",") + groups + "#" + std::to_string(index));
}

// Kernel replay's command-line rules (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/
// how-to/using-kernel-replay-rocprofv3.rst: it "requires counter collection (--pmc, input-file
// pmc, or pmc_groups) and --kernel-replay-beta-enabled"; the conceptual page says the CLI fails
// with a diagnostic if either is missing; the wording below is the double's). Versions without
// it reject its options as argparse rejects any unknown option.
void check_kernel_replay(const Options& o, const SimVersion& v) {
  (void)v;  // options a release lacks were refused by its own table (parse_options)
  const JobOptions& j = o.cli;
  if (j.replay_mode != "kernel") return;
  if (!j.kernel_replay_beta)
    throw CliFailure(1,
                     "Fatal error: --replay-mode kernel is experimental: add "
                     "--kernel-replay-beta-enabled to acknowledge that it may change\n");
  if (!j.pmc_given && !o.input_file)
    throw CliFailure(1,
                     "Fatal error: --replay-mode kernel requires counter collection (--pmc, "
                     "input-file pmc or pmc_groups)\n");
}

// The jobs to run: the input file's (CLI settings apply to every job; a key set differently in
// both is a conflict, load_jobs) or the command line's one, in the release's default format.
std::vector<JobOptions> jobs_to_run(const Options& o, const SimVersion& version) {
  std::vector<JobOptions> jobs;
  if (o.input_file) {
    jobs = load_jobs(*o.input_file, o.cli, version);
    if (o.deferred_error) throw CliFailure(2, *o.deferred_error);
  } else {
    jobs.push_back(o.cli);
  }
  for (auto& j : jobs) {
    const bool given = std::find(j.explicit_keys.begin(), j.explicit_keys.end(), "output_format") !=
                       j.explicit_keys.end();
    // Before ROCm 7.0 csv is the default (rocpd is no choice there: the table refused it).
    if (!version.has_rocpd() && !given) j.output_format = {"csv"};
  }
  return jobs;
}

// The subfolder job `i` writes its files in ("" for the output folder itself).
std::string pass_dir(const Options& o, const SimVersion& version,
                     const std::vector<JobOptions>& jobs, size_t i) {
  const bool has_pmc = jobs[i].pmc_given;
  // ROCm 6.2 runs each `metrics` entry in pmc_N (rocprofv3.py, tag rocm-6.2.0).
  if (o.input_file && version.metrics_input()) return "pmc_" + std::to_string(i + 1);
  if (o.input_file && (has_pmc || jobs.size() >= 2)) return "pass_" + std::to_string(i + 1);
  return "";
}

void check_tracing(const JobOptions& j) {
  if (!j.kernel_trace && j.pmc.empty() && j.pmc_groups.empty()) {
    if (j.stats)
      throw CliFailure(1, "Fatal error: No tracing options were enabled for --stats option.\n");
    std::cerr << "Warning: No tracing options were enabled.\n";
  }
}

// A job as this release runs it; `replay` says whether its groups are replayed per dispatch.
JobOptions job_as_run(JobOptions j, const SimVersion& version, bool& replay) {
  // Before ROCm 7.0 the launcher merges unknown job keys silently: no rotation, no counters.
  if (!version.has_pmc_groups()) j.pmc_groups.clear();
  // Kernel replay: the job's groups (each --pmc, or input-file pmc_groups) are replayed on
  // every counted dispatch instead of rotated; one group takes the ordinary path.
  replay = false;
  if (j.replay_mode == "kernel") {
    if (j.pmc_groups.empty() && j.pmc_flags.size() >= 2) j.pmc_groups = j.pmc_flags;
    replay = j.pmc_groups.size() >= 2;
  }
  return j;
}

// Application replay: each job is a full run of the application in its own process, run one
// after the other; the first failing pass stops the run (rocprofv3.py, subprocess.check_call).
Outcome replay_application(const std::vector<std::string>& args, const Options& o,
                           size_t job_count) {
  install_handlers();
  for (size_t i = 0; i < job_count; ++i) {
    // Re-run this executable for one job, as the launcher re-runs the app per pass.
    setenv("ROCPROF_SIM_INTERNAL_JOB", std::to_string(i).c_str(), 1);
    std::vector<std::string> argv{"rocprofv3"};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = fork_exec_child("/proc/self/exe", argv);  // g_child from here on
    unsetenv("ROCPROF_SIM_INTERNAL_JOB");
    if (g_signal) kill(pid, g_signal);  // arrived before this job's process existed
    const int status = wait_child(pid);
    g_child = 0;
    if (WIFSIGNALED(status)) {
      std::cerr << "Fatal error: Command '" << python_list(o.app) << "' died with "
                << python_signal(WTERMSIG(status)) << ".\n";
      return {1, 0};
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      std::cerr << "Fatal error: Command '" << python_list(o.app)
                << "' returned non-zero exit status " << WEXITSTATUS(status) << ".\n";
      return {1, 0};
    }
    if (g_signal) return {0, g_signal};
  }
  return {0, 0};
}
}  // namespace

Outcome run_tool(const std::vector<std::string>& args) {
  try {
    const SimVersion version = sim_version_from_env();
    const Options o = parse_options(args, version.table());
    if (o.help) {
      std::cout << help_text(version.table());
      return {0, 0};
    }
    check_kernel_replay(o, version);
    if (o.version) {
      std::cout << version_text(version);
      return {0, 0};
    }
    const Model model = load_model_named(env("ROCPROF_SIM_MODEL", "qwen3-30b-a3b-mi300x"));
    const hw::Target target = hw::Target::load_arch(model.arch);
    if (o.list_avail) {
      std::cerr << "Warning: No tracing options were enabled.\n";
      std::cout << list_avail_text(model, target);
      return {0, 0};
    }
    if (o.list_metrics) {
      std::cout << list_metrics_text(model, target);
      return {0, 0};
    }
    if (o.app.empty()) throw CliFailure(1, "Fatal error: No application provided\n");
    const int layout = env("ROCPROF_SIM_LAYOUT", "7") == "6" ? 6 : 7;
    const uint64_t seed = static_cast<uint64_t>(env_int("ROCPROF_SIM_SEED").value_or(0));
    const std::vector<JobOptions> jobs = jobs_to_run(o, version);
    const std::map<std::string, std::string> app_env = current_environment();
    // The GPUs the application sees (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES).
    const Visibility visibility = visible_gpus(app_env, model);
    const std::optional<Model> seen = model_for_visibility(model, visibility, app_env);

    const auto run_job = [&](size_t i) {
      bool replay = false;
      const JobOptions j = job_as_run(jobs[i], version, replay);
      check_tracing(j);
      PassContext ctx{seen ? &*seen : nullptr,
                      &target,
                      j,
                      pass_dir(o, version, jobs, i),
                      pass_seed(seed, j, i),
                      j.pmc_given || !j.pmc_groups.empty(),
                      layout,
                      version,
                      visibility,
                      csv_quoting_from_env(),
                      replay};
      return run_pass(ctx, o.app);
    };

    if (const auto internal = env_int("ROCPROF_SIM_INTERNAL_JOB")) {
      const size_t i = static_cast<size_t>(*internal);
      if (i >= jobs.size()) throw CliFailure(1, "rocprofv3-sim: internal job index out of range\n");
      return run_job(i);
    }
    if (jobs.size() == 1) return run_job(0);
    return replay_application(args, o, jobs.size());
  } catch (const CliFailure& f) {
    std::cerr << f.text();
    return {f.exit_code(), 0};
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "rocprofv3-sim: " << d.line() << "\n";
    return {1, 0};
  }
}

}  // namespace kprof::sim
