// `kprof status DB [--run ID]`: every pass of a run with state, attempts, duration and reason.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/exec/usecases/status_view.hpp"

namespace {

int cmd_status(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("run", po::value<long long>(), "the run id (default: the last run)")(
      "db", po::value<std::string>(), "the capture database");
  po::positional_options_description pos;
  pos.add("db", 1);
  auto vm =
      kprof::app::parse_args("status", "DB [--run ID]", args, opts, pos,
                             "examples:\n  kprof status out/q.db\n  kprof status out/q.db --run 2");
  if (!vm) return 0;
  if (!vm->count("db"))
    throw kprof::Error::input("no database given", "write 'kprof status path/to/captures.db'");
  std::optional<int64_t> run;
  if (vm->count("run")) run = (*vm)["run"].as<long long>();
  std::cout << kprof::exec::status_text((*vm)["db"].as<std::string>(), run,
                                        kprof::terminal_width(STDOUT_FILENO));
  return 0;
}

}  // namespace

KPROF_COMMAND("status", "show every pass of a run: state, attempts, duration, reason", cmd_status);
