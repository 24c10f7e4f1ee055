#include "core/exec/launch/launcher_choice.hpp"

#include <algorithm>
#include <map>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/launch/slurm_launcher.hpp"

namespace kprof::exec {

namespace {

// The launcher's registered name: --launcher, else the runbook's `launcher.type`; each refused
// with the names this kprof has (pass_launchers.cpp).
std::string launcher_name(const runbook::Runbook& rb, const LauncherFlags& f) {
  const auto names = pass_launcher_names();
  const auto known = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (f.type) {
    if (!known(*f.type))
      throw Error::input("unknown launcher '" + *f.type + "'",
                         "use --launcher " + join(names, " or "));
    return *f.type;
  }
  if (!known(rb.launcher.type.value))
    throw Error(ErrorKind::input, runbook::unknown_value(rb, rb.launcher.type, "launcher.type",
                                                         pass_launcher_names()));
  return rb.launcher.type.value;
}

}  // namespace

// Slurm is the one launcher with settings of its own (the runbook's Slurm keys and the flags).
bool wants_slurm(const runbook::Runbook& rb, const LauncherFlags& f) {
  return launcher_name(rb, f) == "slurm";
}

SbatchOptions sbatch_options(const runbook::Runbook& rb, const LauncherFlags& f) {
  SbatchOptions o;
  o.job_name = "kprof-" + rb.name.value;
  o.partition = f.partition.value_or(rb.launcher.partition.value);
  o.time_limit = f.time.value_or(rb.launcher.time.value);
  // Unwritten, a task asks for one GPU per rank: a tensor-parallel pass runs one worker per GPU.
  const int per_task = rb.launcher.gpus_per_task.from_file ? rb.launcher.gpus_per_task.value
                                                           : rb.workload.ranks.value;
  o.gpus_per_task = f.gpus_per_task.value_or(per_task);
  for (const auto& a : rb.launcher.sbatch_args.value) o.extra_args.push_back(a.value);
  for (const auto& a : f.sbatch_args) {
    if (const auto instead = runbook::sbatch_option_owned_by_kprof(a))
      throw Error::input("--sbatch-arg " + a + ": kprof writes that sbatch option itself",
                         *instead);
    o.extra_args.push_back(a);
  }
  if (o.gpus_per_task < 0 || o.gpus_per_task > 64)
    throw Error::input("--gpus-per-task " + std::to_string(o.gpus_per_task) + " is out of range",
                       "give 0..64 (0: ask Slurm for no GPU)");
  if (o.gpus_per_task > 0 && o.gpus_per_task < rb.workload.ranks.value)
    throw Error::input("a Slurm task would get " + std::to_string(o.gpus_per_task) +
                           " GPUs, but workload.ranks: " + std::to_string(rb.workload.ranks.value) +
                           " runs one worker per GPU",
                       "drop --gpus-per-task and launcher.gpus_per_task (the default asks for " +
                           std::to_string(rb.workload.ranks.value) + "), or give at least " +
                           std::to_string(rb.workload.ranks.value));
  return o;
}

std::vector<std::string> launcher_flag_args(const LauncherFlags& f) {
  std::vector<std::string> a;
  if (f.type) a.insert(a.end(), {"--launcher", *f.type});
  if (f.partition) a.insert(a.end(), {"--partition", *f.partition});
  if (f.time) a.insert(a.end(), {"--time", *f.time});
  if (f.gpus_per_task) a.insert(a.end(), {"--gpus-per-task", std::to_string(*f.gpus_per_task)});
  for (const auto& s : f.sbatch_args) a.push_back("--sbatch-arg=" + s);
  return a;
}

std::unique_ptr<PassLauncher> make_launcher(const runbook::Runbook& rb, const LauncherFlags& f) {
  if (!wants_slurm(rb, f)) {
    if (f.partition || f.time || f.gpus_per_task || !f.sbatch_args.empty())
      throw Error::input("--partition, --time, --gpus-per-task and --sbatch-arg are Slurm settings",
                         "add --slurm, or set `launcher: {type: slurm}` in the runbook");
    // Any other launcher but the local default, by its registered name (pass_launchers.cpp).
    const std::string name = launcher_name(rb, f);
    return name != "local" ? make_pass_launcher(name) : nullptr;
  }
  const auto poll =
      std::chrono::milliseconds(static_cast<int64_t>(1000 * f.poll_seconds.value_or(1.0)));
  return std::make_unique<SlurmLauncher>(sbatch_options(rb, f), poll);
}

std::string emit_sbatch(const runbook::Runbook& rb, const RunPlan& plan, int64_t run_id,
                        const LauncherFlags& flags, const SbatchTaskFiles& files) {
  // A rotated pass's interval and repeats are chosen on this run's trace, and its input file is
  // written then (rotated_pass.hpp): a script written before the trace could only name a file
  // that does not exist yet.
  if (plan.replay.mode == ReplayMode::rotate)
    throw Error(ErrorKind::input,
                runbook::diagnostic(rb, rb.passes.counters.replay.pos,
                                    "passes.counters.replay: rotate chooses its pmc_group_interval "
                                    "and --repeat on the run's trace pass, which a batch script "
                                    "written now cannot do",
                                    "run it with `kprof run --slurm` (it submits the rotated pass "
                                    "once the trace is in), or write replay: application"));
  std::vector<SlurmTask> tasks;
  for (const auto& c : plan.passes) {
    SlurmTask t;
    t.index = c.ordinal;
    t.argv = c.argv;
    t.env = c.env;
    t.cwd = rb.workload.cwd.value;
    t.output_dir = c.output_dir;
    t.log_path = c.log_path;
    if (rb.workload.timeout.value) t.timeout = *rb.workload.timeout.value;
    if (const auto m = files.manifests.find(c.ordinal); m != files.manifests.end())
      t.manifest = m->second;
    t.release = files.release;
    t.release_text = files.release_text;
    tasks.push_back(std::move(t));
  }
  SbatchOptions o = sbatch_options(rb, flags);
  // Beside the run's logs, as `kprof run --slurm` keeps them (slurm_launcher.cpp).
  o.slurm_log_dir = rb.captures.value / ("run-" + std::to_string(run_id)) / "slurm";
  std::string s = sbatch_script(tasks, o);
  std::string note =
      "# kprof plan --emit-sbatch: run " + std::to_string(run_id) + " of " + rb.source.string() +
      ". Create the --output folder first (mkdir -p; sbatch does not), submit\n"
      "# with sbatch, then load the run's folder with `kprof ingest DB FOLDER`: each\n"
      "# task writes its pass's kprof-pass.json, so ingest makes the one run\n"
      "# `kprof run` would.\n";
  if (plan.replay.mode == ReplayMode::after_trace) {
    // replay: auto decides on the run's own trace (replay_choice.hpp); the script has none.
    note +=
        "# replay: auto chooses between ONE rotated counter run and one run per counter pass\n"
        "# on the trace pass, which only `kprof run --slurm` does: this script replays, one "
        "task per\n# counter pass (" +
        std::to_string(plan.passes.size()) + " application runs with the trace).\n";
  }
  if (plan.filter_after_trace) {
    // Without the trace's choice a counter pass runs with the runbook's own filter
    // (PassRequest::kernel_include_regex nullopt), which is every kernel only where it has none.
    const auto& own = rb.passes.counters.kernels.include_regex.value;
    note += "# The counter passes here count " +
            (own ? "the kernels the runbook's include_regex '" + *own + "' lets through"
                 : std::string("every kernel (the runbook sets no include_regex)")) +
            ",\n# not " + *plan.filter_after_trace +
            ": that choice needs the trace pass, which only `kprof run --slurm` runs first.\n";
  }
  // After the shebang and kprof's first comment line, before the #SBATCH lines (sbatch reads
  // #SBATCH lines up to the first command, comments may come between them:
  // https://slurm.schedmd.com/sbatch.html, "DESCRIPTION").
  const auto first_line_end = s.find('\n');
  s.insert(first_line_end + 1, note);
  return s;
}

}  // namespace kprof::exec
