// `kprof run RUNBOOK [--simulate] [--gpus LIST] [--db PATH] [--quiet]`: plan, run every pass under
// rocprofv3 (or the test double), ingest each as it finishes, print the summary.
#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/executor.hpp"
#include "core/runbook/runbook.hpp"

namespace {

std::vector<int> parse_gpus(const std::string& text) {
  std::vector<int> gpus;
  for (const auto& part : kprof::split(text, ',')) {
    const auto t = std::string(kprof::trim(part));
    size_t used = 0;
    int g = -1;
    try {
      g = std::stoi(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (t.empty() || used != t.size() || g < 0) {
      throw kprof::Error::input("--gpus: '" + t + "' is not a GPU index",
                                "write a list like --gpus 0,1,2,3");
    }
    for (int seen : gpus) {
      if (seen == g)
        throw kprof::Error::input("--gpus: GPU " + t + " listed twice", "list each GPU once");
    }
    gpus.push_back(g);
  }
  return gpus;
}

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
  if (vm->count("gpus")) o.gpus = parse_gpus((*vm)["gpus"].as<std::string>());
  if (vm->count("db")) o.db = (*vm)["db"].as<std::string>();
  return kprof::exec::run_runbook(rb, o).exit_code;
}

}  // namespace

KPROF_COMMAND("run", "run a runbook's passes under rocprofv3 and ingest them", cmd_run);
