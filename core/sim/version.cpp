#include "core/sim/version.hpp"

#include <cstdlib>
#include <utility>

#include "core/sim/options.hpp"

namespace kprof::sim {

std::string SimVersion::sdk_text() const {
  return std::to_string(sdk[0]) + "." + std::to_string(sdk[1]) + "." + std::to_string(sdk[2]);
}

SimVersion sim_version_from_env() {
  // ROCm release -> rocprofiler-sdk version (ROCm/rocm-systems projects/rocprofiler-sdk/
  // CHANGELOG.md section titles, "ROCprofiler-SDK x.y.z for ROCm release a.b").
  static const std::pair<const char*, std::array<int, 3>> k_releases[] = {
      {"6.2", {0, 4, 0}}, {"6.3", {0, 5, 0}}, {"6.4", {0, 6, 0}},  {"7.0", {1, 0, 0}},
      {"7.1", {1, 1, 0}}, {"7.2", {1, 1, 0}}, {"7.13", {1, 3, 0}}, {"7.14", {1, 3, 2}},
  };
  const char* e = std::getenv("ROCPROF_SIM_VERSION");
  if (!e || !*e) return SimVersion{};
  std::string want(e);
  // The development tree after 1.3.5: the first with kernel replay (CHANGELOG.md "Unreleased";
  // source/docs/how-to/using-kernel-replay-rocprofv3.rst).
  if (want == "develop") return SimVersion{"develop", {1, 3, 5}, true};
  std::string known;
  for (const auto& [rocm, sdk] : k_releases) {
    const std::string r(rocm);
    if (want == r || want == r + ".0") return SimVersion{r + ".0", sdk};
    known += (known.empty() ? "" : ", ") + r;
  }
  throw CliFailure(1, "rocprofv3-sim: ROCPROF_SIM_VERSION='" + want +
                          "' is not a ROCm release the double imitates (" + known + ", develop)\n");
}

}  // namespace kprof::sim
