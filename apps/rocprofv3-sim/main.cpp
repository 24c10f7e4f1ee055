// rocprofv3-sim: a test double of AMD's rocprofv3 (ROCm 7.0 CLI subset). It runs the application
// after "--" and writes rocprofv3's files for the dispatch stream of a workload model; every
// figure in them is simulated (see configs/sim/README.md).
#include <signal.h>

#include <string>
#include <vector>

#include "core/sim/tool.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const kprof::sim::Outcome out = kprof::sim::run_tool(args);
  if (out.raise_signal > 0) {
    // End the way the profiled process ended (e.g. SIGABRT after error 38): default action.
    signal(out.raise_signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, out.raise_signal);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(out.raise_signal);
  }
  return out.exit_code;
}
