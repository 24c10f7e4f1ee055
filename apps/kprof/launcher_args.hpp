// The flags that choose where passes run, shared by `kprof run`, `kprof resume` and `kprof plan
// --emit-sbatch`: --slurm / --launcher local|slurm, and the Slurm settings --partition, --time,
// --gpus-per-task, --sbatch-arg (over the runbook's `launcher:` map;
// core/exec/launch/launcher_choice.hpp).
#pragma once

#include "apps/kprof/command.hpp"
#include "core/exec/launch/launcher_choice.hpp"

namespace kprof::app {

void add_launcher_options(po::options_description& opts);
// Only the Slurm settings (--partition, --time, --gpus-per-task, --sbatch-arg): `kprof plan`.
void add_sbatch_options(po::options_description& opts);
exec::LauncherFlags launcher_flags_from(const po::variables_map& vm);

}  // namespace kprof::app
