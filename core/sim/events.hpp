// What the simulated application reported through the stand-ins (tests/standins): one line per
// event, "<pid> <what> [args...]", appended by each process with O_APPEND so lines never mix.
//   resume / pause      roctxProfilerResume/Pause (the ROCTx stand-in)
//   gpu <list>          the process initialized HIP (torch stand-in), seeing those GPUs
//   load <model>        a vLLM worker loaded its model in this process
//   work generate <N>   a vLLM worker ran one request of N tokens (1 prefill + N-1 decode steps)
//   sync                torch.cuda.synchronize() in this process
//   python              a Python process started (sitecustomize of the stand-ins)
//   rank <R> <N> gpu <G> ppid <P>
//                       this process is tensor-parallel worker R of N (vLLM's WorkerProc), on
//                       HIP device G (its local rank), started by process P
//
// The rule the double applies is rocprofiler-sdk's: region state is per process. The tool that
// rocprofv3 preloads into every process keeps its own context registry and pause state; a process
// that never calls roctxProfilerResume stays paused under --selected-regions
// (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/context/context.cpp,
// the active-context registry; source/lib/rocprofiler-sdk-tool/tool.cpp, cntrl_tracing_callback).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kprof::sim {

struct WorkEvent {
  pid_t pid = 0;
  int tokens = 0;
  bool region_active = false;  // the process had resumed (and not paused) when it ran the work
  std::string detail;          // the rest of the line (graph mode, prompt length)
};

struct RankEvent {
  pid_t pid = 0;
  int rank = 0;
  int size = 1;
  int device = 0;  // the HIP device index the worker uses
  pid_t ppid = 0;
};

struct AppEvents {
  bool any = false;              // the application reported through the stand-ins at all
  std::vector<WorkEvent> work;   // in order
  std::vector<pid_t> resumed;    // processes that called roctxProfilerResume at least once
  std::vector<RankEvent> ranks;  // tensor-parallel workers, in the order they reported
};

// Reads and interprets the events file; a missing file reads as no events.
AppEvents read_app_events(const std::filesystem::path& file);

}  // namespace kprof::sim
