// Which pass launcher a run uses: the runbook's `launcher:` section (type: a registered name, and
// the Slurm settings), overridden by `kprof run/resume` flags (--launcher/--slurm, --partition,
// --time,
// --gpus-per-task, --sbatch-arg). The executor asks this when its caller gave no launcher.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/launch/slurm_script.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

struct LauncherFlags {
  std::optional<std::string> type;  // a name of pass_launcher_names(): "local" | "slurm"
  std::optional<std::string> partition;
  std::optional<std::string> time;
  std::optional<int> gpus_per_task;
  std::vector<std::string> sbatch_args;  // appended to the runbook's
  // Seconds between two looks at Slurm's job states (scontrol); default 1.
  std::optional<double> poll_seconds;
};

// True when the run goes to Slurm.
bool wants_slurm(const runbook::Runbook& rb, const LauncherFlags& flags);

// The batch settings: the runbook's, then the flags. Throws Error(input) for a flag value sbatch
// would misread (checked again when the script is written).
SbatchOptions sbatch_options(const runbook::Runbook& rb, const LauncherFlags& flags);

// The flags as a `kprof resume` command line repeats them ("--launcher slurm --partition P").
std::vector<std::string> launcher_flag_args(const LauncherFlags& flags);

// A SlurmLauncher when the run goes to Slurm (with the runbook's and the flags' settings); for
// another registered name (--launcher NAME, else the runbook's launcher.type),
// make_pass_launcher(NAME); nullptr for local (the executor's own default). Throws Error(input) for
// an unknown --launcher or launcher.type (at its position) and for Slurm settings without Slurm.
std::unique_ptr<PassLauncher> make_launcher(const runbook::Runbook& rb, const LauncherFlags& flags);

// `kprof plan --emit-sbatch`: the batch script of every pass of `plan` (run `run_id`) as ONE job
// array (task 0 the trace pass, 1..N the counter passes), with the settings of the runbook and the
// flags, for users who submit by hand. Where the counter passes' kernel filter comes from the trace
// pass (plan.filter_after_trace), their commands carry none (they count every kernel) and the
// script says so in a comment: only `kprof run --slurm` applies that filter. Likewise `replay:
// auto`, which chooses on the run's trace between one rotated run and one run per pass: the
// script holds one task per pass and says so. `replay: rotate` is refused (Error(input) at the
// runbook's `replay`): its interval, repeats and input file come from the run's trace.
// What each task writes and checks besides running its command (slurm_script.hpp, SlurmTask).
struct SbatchTaskFiles {
  std::map<int64_t, std::string> manifests;  // each pass's manifest (pass_manifest.hpp) by ordinal
  std::string release;                       // ProfilerVersion::release_key of the plan
  std::string release_text;                  // its summary
};
std::string emit_sbatch(const runbook::Runbook& rb, const RunPlan& plan, int64_t run_id,
                        const LauncherFlags& flags, const SbatchTaskFiles& files = {});

}  // namespace kprof::exec
