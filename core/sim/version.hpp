// The rocprofv3 release the double imitates (ROCPROF_SIM_VERSION), and what differs between
// releases. The command line is each release's own option table (configs/rocprofv3, read from
// upstream's rocprofv3.py); the rest is read from the source or changelog named in
// core/exec/profiler/rocprofv3_version.hpp:
//   - `--version` exists from rocprofiler-sdk 1.0.0 (ROCm 7.0): where the table has it;
//   - rocpd output exists and is the default from 1.0.0: where the table's formats offer it;
//   - --selected-regions (from 7.0): up to 1.1.x the pause/resume callback is registered only
//     with --marker-trace and only for the tracing context, so without --marker-trace the trace
//     stays empty, and counter collection is never paused; from 1.3.0 every context (counters
//     included) follows the region markers. Before 7.0 there is no region switch: tracing starts
//     at once, and with --marker-trace roctxProfilerPause/Resume stop and restart it and are
//     recorded (marker_api_trace.csv);
//   - input files: ROCm 6.2 reads counters from a `metrics` list (one pass per entry, pmc_N),
//     later releases a `jobs` list; pmc_groups from 1.0.0;
//   - kernel replay (`--replay-mode kernel --kernel-replay-beta-enabled`): where the table has it
//     (the 2026 tree, "latest"; also named "develop").
#pragma once

#include <array>
#include <string>

#include "core/base/rocprof_release.hpp"

namespace kprof::sim {

struct SimVersion {
  std::string rocm = "7.13.0";          // rocm_version of --version
  std::array<int, 3> sdk{1, 3, 0};      // rocprofiler-sdk version
  std::string release = "dev-2025-08";  // the option table (configs/rocprofv3/<release>.json)
  const RocprofRelease& table() const;
  bool has_version_option() const { return table().has("--version"); }
  bool has_rocpd() const;
  bool has_region_switch() const { return table().has("--selected-regions"); }
  // Counters only through an input file's `metrics` list (ROCm 6.2: no --pmc).
  bool metrics_input() const { return !table().has("--pmc"); }
  // pmc_groups / pmc_group_interval in input files: 1.0.0 (ROCm 7.0; CHANGELOG 1.0.0).
  bool has_pmc_groups() const { return sdk >= std::array<int, 3>{1, 0, 0}; }
  bool regions_pause_all_contexts() const { return sdk >= std::array<int, 3>{1, 3, 0}; }
  bool has_kernel_replay() const { return table().has("--replay-mode"); }
  std::string sdk_text() const;
};

// ROCPROF_SIM_VERSION: a ROCm release ("6.2" .. "7.14", "10.0"), or the name of an option table
// ("dev-2025-08", "latest"; "develop" is "latest"); default 7.13. Throws CliFailure (exit 1) for
// a release the double does not know.
SimVersion sim_version_from_env();

}  // namespace kprof::sim
