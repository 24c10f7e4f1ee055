#include "apps/kprof/launcher_args.hpp"

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::app {

void add_launcher_options(po::options_description& opts) {
  opts.add_options()("slurm",
                     "run the passes as tasks of a Slurm job array (same as --launcher slurm)")(
      "launcher", po::value<std::string>()->value_name(join(exec::pass_launcher_names(), "|")),
      "where passes run (default: the runbook's `launcher: {type}`, else local)");
  add_sbatch_options(opts);
}

void add_sbatch_options(po::options_description& opts) {
  opts.add_options()("partition", po::value<std::string>()->value_name("P"),
                     "Slurm partition (sbatch --partition; default: launcher.partition)")(
      "time", po::value<std::string>()->value_name("LIMIT"),
      "Slurm time limit per task, as sbatch --time reads it (default: launcher.time)")(
      "gpus-per-task", po::value<int>()->value_name("N"),
      "GPUs per pass, asked as --gres=gpu:N (default: launcher.gpus_per_task, else 1)")(
      "sbatch-arg", po::value<std::vector<std::string>>()->value_name("OPT"),
      "one more sbatch option, e.g. --sbatch-arg=--account=proj (repeatable)");
}

exec::LauncherFlags launcher_flags_from(const po::variables_map& vm) {
  exec::LauncherFlags f;
  if (vm.count("launcher")) f.type = vm["launcher"].as<std::string>();
  if (vm.count("slurm")) {
    if (f.type && *f.type != "slurm")
      throw Error::input("--slurm and --launcher " + *f.type + " contradict each other",
                         "give one of them");
    f.type = "slurm";
  }
  if (vm.count("partition")) f.partition = vm["partition"].as<std::string>();
  if (vm.count("time")) f.time = vm["time"].as<std::string>();
  if (vm.count("gpus-per-task")) f.gpus_per_task = vm["gpus-per-task"].as<int>();
  if (vm.count("sbatch-arg")) f.sbatch_args = vm["sbatch-arg"].as<std::vector<std::string>>();
  return f;
}

}  // namespace kprof::app
