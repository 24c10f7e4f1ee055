// Where the measured region lies in a counter pass of a profiler that counts outside it.
//
// ROCm 7.0's rocprofv3 never pauses counter collection under --selected-regions (its counter
// context is started unconditionally; ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/
// rocprofiler-sdk-tool/tool.cpp, release/rocm-rel-7.0, tool_init), so a counter pass also holds
// the launches of the warm-up before roctxProfilerResume (and anything after the pause). Those
// launches have the same kernels, grids and workgroups as the measured ones, so joining them to
// the trace by identity alone is ambiguous: the first launches would be taken for the region's.
//
// The trace pass holds exactly the region. Its launches, restricted to the kernels the counter
// pass collected, form a sequence of length L; in the counter pass the region is the contiguous
// run of L launches (program order) whose kernel identities match the trace's best. The search
// slides that window and compares multisets of identities; the best window is the one with the
// fewest differences (reruns may add or lose a lazy-init launch), the latest on a tie (the region
// usually follows the warm-up, never the reverse).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kprof::exec {

struct Launch {
  int64_t dispatch_id = 0;
  std::string kernel;  // name as the profiler printed it
  int64_t grid = 0;    // work-items, product over dimensions
  int64_t workgroup = 0;
};

struct RegionWindow {
  int64_t first_dispatch_id = 0;  // inclusive bounds, in the counter pass's dispatch ids
  int64_t last_dispatch_id = 0;
  size_t kept = 0, left_out = 0;
  size_t differences = 0;  // identities in the window that the trace does not have (and v.v.)
  bool tie = false;        // another window matched equally well (the latest was taken)
};

// `counter`: one process's launches of a counter pass, in program (dispatch id) order. `trace`:
// the trace pass's launches of the same kernels, in program order. nullopt when the counter pass
// has no more launches than the trace (nothing to leave out).
std::optional<RegionWindow> find_region_window(const std::vector<Launch>& counter,
                                               const std::vector<Launch>& trace);

}  // namespace kprof::exec
