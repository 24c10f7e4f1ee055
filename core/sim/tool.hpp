// The double's top level: parse rocprofv3's command line, run the application as a child process
// (its exit status or signal becomes ours, as with the real, exec-ing rocprofv3), emit the workload
// model's dispatch stream for it, and write the output files at exit or on a handled signal.
//
// Environment (all optional; documented for users in configs/sim/README.md):
//   ROCPROF_SIM_MODEL      model name (configs/sim/<name>.yaml) or path; default
//   qwen3-30b-a3b-mi300x ROCPROF_SIM_SEED       seed of all nondeterminism (mixed with the pass
//   identity); default 0 ROCPROF_SIM_LAYOUT     7 (default) or 6: ROCm 6.x pre-6.3 CSV layouts,
//   integer Agent_Id ROCPROF_SIM_PERTURB    counters (default) | all | none: passes that may
//   lose/repeat the
//                          model's optional kernel
//   ROCPROF_SIM_PROCESSES  2: a second profiled process (vLLM V1 EngineCore) runs the model;
//                          N under a model with `ranks:`: N tensor-parallel rank processes
//   ROCPROF_SIM_VERSION    the rocprofv3 release imitated (core/sim/version.hpp); default 7.13
//   ROCPROF_SIM_STANDINS   the stand-ins' folder (core/sim/devices.hpp); the application gets
//                          them on PYTHONPATH/LD_LIBRARY_PATH and reports through
//                          ROCPROF_SIM_EVENTS (core/sim/events.hpp)
//   ROCPROF_SIM_CLOCK_BASE_NS  fixed timestamp origin (tests); default CLOCK_MONOTONIC at start
//   Faults: ROCPROF_SIM_CRASH_AFTER=N (+ ROCPROF_SIM_CRASH_SIGNAL=SEGV|ABRT|TERM|INT|QUIT|KILL),
//   ROCPROF_SIM_HANG_AFTER=N, ROCPROF_SIM_TRUNCATE=1, ROCPROF_SIM_EXIT_CODE=N,
//   ROCPROF_SIM_WRITE_NOTHING=1, ROCPROF_SIM_RANK_DIES=R (tensor-parallel rank R killed mid-pass).
#pragma once

#include <string>
#include <vector>

namespace kprof::sim {

// How the double's process must end: with `exit_code`, or by re-raising `raise_signal` (> 0) with
// the default action — which main() does, so library code never exits or aborts itself.
struct Outcome {
  int exit_code = 0;
  int raise_signal = 0;
};

Outcome run_tool(const std::vector<std::string>& args);

}  // namespace kprof::sim
