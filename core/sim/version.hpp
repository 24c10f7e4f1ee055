// The rocprofv3 release the double imitates (ROCPROF_SIM_VERSION), and what differs between
// releases, each read from the source or changelog named in core/exec/rocprofv3_version.hpp:
//   - `--version` exists from rocprofiler-sdk 1.0.0 (ROCm 7.0); older launchers reject it (exit 2);
//   - rocpd output exists and is the default from 1.0.0; before, csv is the default and `-f
//     rocpd` is an invalid choice;
//   - --selected-regions: up to 1.1.x the pause/resume callback is registered only with
//     --marker-trace and only for the tracing context, so without --marker-trace the trace stays
//     empty, and counter collection is never paused; from 1.3.0 every context (counters included)
//     follows the region markers (core/exec/rocprofv3_version.hpp says what the sources settle
//     for 7.1 and 7.2, both rocprofiler-sdk 1.1.0);
//   - kernel replay (`--replay-mode kernel --kernel-replay-beta-enabled`): no release up to
//     1.3.5 lists it (CHANGELOG.md); it is in the development tree
//     (source/docs/how-to/using-kernel-replay-rocprofv3.rst), imitated as release "develop".
#pragma once

#include <array>
#include <string>

namespace kprof::sim {

struct SimVersion {
  std::string rocm = "7.13.0";      // rocm_version of --version
  std::array<int, 3> sdk{1, 3, 0};  // rocprofiler-sdk version
  bool has_version_option() const { return sdk >= std::array<int, 3>{1, 0, 0}; }
  bool has_rocpd() const { return sdk >= std::array<int, 3>{1, 0, 0}; }
  // pmc_groups / pmc_group_interval in input files: 1.0.0 (ROCm 7.0; CHANGELOG 1.0.0). An older
  // launcher merges unknown job keys without a word, so the groups have no effect there.
  bool has_pmc_groups() const { return sdk >= std::array<int, 3>{1, 0, 0}; }
  bool regions_pause_all_contexts() const { return sdk >= std::array<int, 3>{1, 3, 0}; }
  bool kernel_replay = false;  // --replay-mode kernel (release "develop")
  bool has_kernel_replay() const { return kernel_replay; }
  std::string sdk_text() const;
};

// ROCPROF_SIM_VERSION: a ROCm release ("6.4", "7.0", "7.2", "7.13"), or "develop" (rocprofiler-sdk
// 1.3.5 plus kernel replay); default 7.13. Throws CliFailure (exit 1) for a release the double does
// not know.
SimVersion sim_version_from_env();

}  // namespace kprof::sim
