// `kprof plan RUNBOOK`: the counter passes a runbook needs, their block occupancy, the lower bound,
// and every pass's exact command line and environment delta, trace pass included. Parses flags,
// calls the plan use case (core/exec/usecases/runbook_plan.hpp: the same commands `kprof run`
// launches), prints one of its views (core/exec/usecases/plan_view.hpp).
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/composition.hpp"
#include "apps/kprof/launcher_args.hpp"
#include "core/base/table.hpp"
#include "core/exec/usecases/plan_view.hpp"
#include "core/exec/usecases/runbook_plan.hpp"

namespace {

using namespace kprof;

int cmd_plan(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("format", po::value<std::string>()->default_value("text"), "text or json")(
      "simulate", "plan for the rocprofv3 test double, as `kprof run --simulate` runs")(
      "gpus", po::value<std::string>(), "show each GPU slot's environment, as `kprof run --gpus`")(
      "db", po::value<std::string>(), "capture database (default: the runbook's `database`)")(
      "node-budget", po::value<std::uint64_t>()->default_value(plan::PlanOptions{}.node_budget),
      "search nodes before the planner stops and reports its best plan as not proved")(
      "emit-sbatch",
      "print the Slurm batch script of every pass (one job array) instead of the plan, for "
      "submitting by hand; `kprof run --slurm` submits it itself")(
      "runbook", po::value<std::string>(), "the runbook (.yaml)");
  app::add_sbatch_options(opts);
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm =
      app::parse_args("plan",
                      "RUNBOOK [--format text|json] [--simulate] [--gpus LIST] [--db PATH]\n"
                      "       kprof plan RUNBOOK --emit-sbatch [--partition P] [--time LIMIT] "
                      "[--gpus-per-task N] [--sbatch-arg OPT]...",
                      args, opts, pos,
                      "examples:\n  kprof plan runbooks/qwen3-30b-a3b-sim.yaml\n  kprof plan "
                      "runbooks/qwen3-30b-a3b-mi300x.yaml --format json > plan.json\n      each "
                      "pass's counters, block slots and exact rocprofv3 argv, as JSON\n"
                      "  kprof plan runbooks/qwen3-30b-a3b-mi300x.yaml --emit-sbatch "
                      "--partition mi300x > passes.sh\n      one Slurm array task per pass");
  if (!vm) return 0;
  if (!vm->count("runbook"))
    throw Error::input("no runbook given", "write 'kprof plan path/to/runbook.yaml'");
  const std::string format = (*vm)["format"].as<std::string>();
  if (format != "text" && format != "json")
    throw Error::input("unknown format '" + format + "'", "use --format text or --format json");

  exec::RunbookPlanRequest request;
  request.runbook = (*vm)["runbook"].as<std::string>();
  if (vm->count("db")) request.db = (*vm)["db"].as<std::string>();
  request.simulate = vm->count("simulate") > 0;
  if (vm->count("gpus")) request.gpus = (*vm)["gpus"].as<std::string>();
  request.node_budget = (*vm)["node-budget"].as<std::uint64_t>();
  request.workload_model = app::composition().workload_model;
  if (vm->count("emit-sbatch")) {
    std::cout << exec::plan_sbatch(request, app::launcher_flags_from(*vm));
    return 0;
  }
  if (vm->count("partition") || vm->count("time") || vm->count("gpus-per-task") ||
      vm->count("sbatch-arg"))
    throw Error::input(
        "--partition, --time, --gpus-per-task and --sbatch-arg shape the batch script",
        "add --emit-sbatch");
  const exec::RunbookPlan planned = exec::plan_runbook(request);
  // On a terminal the long lines wrap (commands with " \\" so they still paste into a shell).
  std::cout << (format == "json" ? exec::plan_json(planned)
                                 : exec::plan_text(planned, terminal_width(STDOUT_FILENO)));
  return 0;
}

}  // namespace

KPROF_COMMAND("plan",
              "show the passes a runbook needs and each one's exact profiler command and env",
              cmd_plan);
