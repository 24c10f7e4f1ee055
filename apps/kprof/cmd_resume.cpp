// `kprof resume DB|RUNBOOK [--retry-failed] [--force] [--gpus LIST] [--db PATH] [--quiet]`.
#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/launcher_args.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/base/error.hpp"
#include "core/exec/node/gpu_list.hpp"
#include "core/exec/usecases/executor.hpp"

namespace {

int cmd_resume(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("retry-failed", "re-run failed passes too")(
      "force", "resume even though the runbook changed since the run was recorded")(
      "gpus", po::value<std::string>()->value_name("LIST"),
      "GPU indices, e.g. 0,1,2,3: counter passes run at once, one per listed GPU, or per "
      "workload.ranks consecutive GPUs (default: one pass at a time)")(
      "db", po::value<std::string>(),
      "with a RUNBOOK: the database, instead of the runbook's `database`")(
      "quiet,q", "no progress lines; only the summary")(
      "target", po::value<std::string>(),
      "the capture database, or the runbook whose database to resume");
  kprof::app::add_launcher_options(opts);
  po::positional_options_description pos;
  pos.add("target", 1);
  auto vm = kprof::app::parse_args(
      "resume", "DB|RUNBOOK [--retry-failed] [--force] [--gpus LIST] [--quiet]", args, opts, pos,
      "examples:\n  kprof resume out/q.db\n      after Ctrl-C or kill -9: reruns interrupted "
      "passes, skips done ones\n  kprof resume out/q.db --retry-failed");
  if (!vm) return 0;
  if (!vm->count("target")) {
    throw kprof::Error::input("no database or runbook given",
                              "write 'kprof resume path/to/captures.db'");
  }
  kprof::exec::ExecOptions o;
  o.retry_failed = vm->count("retry-failed") > 0;
  o.force = vm->count("force") > 0;
  o.quiet = vm->count("quiet") > 0;
  if (vm->count("gpus")) o.gpus = kprof::exec::parse_gpu_list((*vm)["gpus"].as<std::string>());
  if (vm->count("db")) o.db = (*vm)["db"].as<std::string>();
  o.launcher = kprof::app::launcher_flags_from(*vm);
  const auto result = kprof::exec::resume_run((*vm)["target"].as<std::string>(), o);
  // A query never writes: the run's join and outline are stored here, and the line says so.
  if (result.status == kprof::store::RunStatus::done)
    kprof::analysis::print_stored_results(result.db, {result.run_id}, std::cout);
  return result.exit_code;
}

}  // namespace

KPROF_COMMAND("resume", "continue the last run of a capture database", cmd_resume);
