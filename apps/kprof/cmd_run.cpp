// `kprof run RUNBOOK [--simulate] [--gpus LIST] [--db PATH] [--quiet]`: plan, run every pass under
// rocprofv3 (or the test double), ingest each as it finishes, print the summary.
#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/exec/executor.hpp"
#include "core/exec/gpu_list.hpp"
#include "core/runbook/runbook.hpp"

namespace {

int cmd_run(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("simulate",
                     "run the rocprofv3 test double (rocprofv3-sim) instead of rocprofv3")(
      "gpus", po::value<std::string>(),
      "run up to that many passes at once, one per GPU, e.g. 0,1,2,3")(
      "db", po::value<std::string>(), "capture database (default: the runbook's `database`)")(
      "quiet,q", "no progress lines; only the summary")("runbook", po::value<std::string>(),
                                                        "the runbook (.yaml)");
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm = kprof::app::parse_args(
      "run", "RUNBOOK [--simulate] [--gpus LIST] [--db PATH] [--quiet]", args, opts, pos);
  if (!vm) return 0;
  if (!vm->count("runbook"))
    throw kprof::Error::input("no runbook given", "write 'kprof run path/to/runbook.yaml'");
  const auto rb = kprof::runbook::load_runbook((*vm)["runbook"].as<std::string>());
  kprof::exec::ExecOptions o;
  o.simulate = vm->count("simulate") > 0;
  o.quiet = vm->count("quiet") > 0;
  if (vm->count("gpus")) o.gpus = kprof::exec::parse_gpu_list((*vm)["gpus"].as<std::string>());
  if (vm->count("db")) o.db = (*vm)["db"].as<std::string>();
  return kprof::exec::run_runbook(rb, o).exit_code;
}

}  // namespace

KPROF_COMMAND("run", "run a runbook's passes under rocprofv3 and ingest them", cmd_run);
