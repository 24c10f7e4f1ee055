#include <iostream>

#include "apps/kprof/command.hpp"

namespace {

int cmd_version(const kprof::app::Args& args) {
  kprof::app::po::options_description opts("options");
  if (!kprof::app::parse_args("version", "", args, opts)) return 0;
  std::cout << "kprof " << KPROF_VERSION << "\n";
  return 0;
}

}  // namespace

KPROF_COMMAND("version", "print kprof's version", cmd_version);
