// `kprof runbook --from-args [--metric-set S | --counters A,B] [--kernels REGEX] [--simulate]
// -- APP [ARGS...]`: prints the runbook a one-line `kprof run` stands for, to edit and keep.
#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/one_line_args.hpp"
#include "core/base/error.hpp"
#include "core/runbook/one_line.hpp"

namespace {

int cmd_runbook(const kprof::app::Args& all_args) {
  namespace po = kprof::app::po;
  const auto [args, app] = kprof::app::split_at_dashes(all_args);
  po::options_description opts("options");
  opts.add_options()("from-args", "print the runbook of the one-line profile given by the flags")(
      "simulate", "the runbook gets a sim section (the rocprofv3 test double's model)")(
      "db", po::value<std::string>(), "the database the runbook names (default: NAME.db)");
  kprof::app::add_one_line_options(opts);
  auto vm = kprof::app::parse_args(
      "runbook",
      "--from-args [--metric-set S | --counters A,B] [--kernels REGEX] [--simulate] -- APP "
      "[ARGS...]",
      args, opts);
  if (!vm) return 0;
  if (!vm->count("from-args"))
    throw kprof::Error::input("nothing to do",
                              "write 'kprof runbook --from-args [options] -- APP'");
  std::cout << kprof::runbook::one_line_yaml(
      kprof::app::one_line_from(*vm, app, all_args, vm->count("simulate") > 0));
  return 0;
}

}  // namespace

KPROF_COMMAND("runbook", "print the runbook of a one-line profile (--from-args ... -- APP)",
              cmd_runbook);
