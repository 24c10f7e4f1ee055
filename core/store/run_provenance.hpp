// A run's provenance as the capture database keeps it (schema 8, 0008_run_provenance.sql): whether
// its figures are simulated, which profiler binary ran its passes, and which rocprofv3 release's
// option table built their command lines. core/exec decides it once when a run starts
// (core/exec/passes/run_provenance.hpp); readers take it from here.
#pragma once

#include <string>

namespace kprof::store {

// What a run recorded before schema 8, or a capture kprof did not start, says it does not know.
inline constexpr const char* k_unknown_provenance = "unknown";

struct RunProvenance {
  bool simulated = false;
  std::string profiler_path = k_unknown_provenance;     // the executable, as started
  std::string profiler_release = k_unknown_provenance;  // "7.0": configs/rocprofv3/<release>.json
};

}  // namespace kprof::store
