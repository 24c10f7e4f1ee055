// `kprof validate RUNBOOK`: parse and check a runbook, print its normalised view (every key with
// its effective value and where it came from) or every problem found.
#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/exec/launch/registered_names.hpp"
#include "core/runbook/normalized.hpp"
#include "core/runbook/runbook.hpp"

namespace {

int cmd_validate(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("quiet,q", "print nothing when the runbook is valid")(
      "runbook", po::value<std::string>(), "the runbook (.yaml)");
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm = kprof::app::parse_args("validate", "RUNBOOK [--quiet]", args, opts, pos,
                                   "examples:\n  kprof validate runbooks/qwen3-30b-a3b-sim.yaml\n  "
                                   "kprof validate --quiet my.yaml && echo valid");
  if (!vm) return 0;
  if (!vm->count("runbook"))
    throw kprof::Error::input("no runbook given", "write 'kprof validate path/to/runbook.yaml'");
  const auto rb = kprof::runbook::load_runbook((*vm)["runbook"].as<std::string>());
  kprof::exec::check_registered_names(rb);  // launcher.type, profiler.backend: core/exec's names
  if (!vm->count("quiet")) std::cout << kprof::runbook::format_normalized(rb);
  return 0;
}

}  // namespace

KPROF_COMMAND("validate", "check a runbook and print its normalised view", cmd_validate);
