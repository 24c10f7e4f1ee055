#include "core/sim/version.hpp"

#include <cstdlib>

#include "core/sim/options.hpp"

namespace kprof::sim {

const RocprofRelease& SimVersion::table() const {
  const RocprofRelease* r = find_rocprof_release(release);
  return r ? *r : rocprof_release_for_sdk(sdk);
}

bool SimVersion::has_rocpd() const {
  const RocprofOption* f = table().find_dest("output_format");
  return f && f->has_choice("rocpd");
}

std::string SimVersion::sdk_text() const {
  return std::to_string(sdk[0]) + "." + std::to_string(sdk[1]) + "." + std::to_string(sdk[2]);
}

SimVersion sim_version_from_env() {
  // ROCm release -> rocprofiler-sdk version (ROCm/rocm-systems projects/rocprofiler-sdk/
  // CHANGELOG.md section titles, "ROCprofiler-SDK x.y.z for ROCm release a.b") and the option
  // table imitated: the release's own where configs/rocprofv3 has it, else the nearest older one
  // (7.1 to 7.14: the 2025-08 development tree, which has no kernel replay).
  struct Known {
    const char* name;
    std::array<int, 3> sdk;
    const char* rocm;
    const char* table;
  };
  static const Known k_releases[] = {
      {"6.2", {0, 4, 0}, "6.2.0", "6.2"},
      {"6.3", {0, 5, 0}, "6.3.0", "6.3"},
      {"6.4", {0, 6, 0}, "6.4.0", "6.4"},
      {"7.0", {1, 0, 0}, "7.0.0", "7.0"},
      {"dev-2025-08", {1, 0, 0}, "7.1.0", "dev-2025-08"},
      {"7.1", {1, 1, 0}, "7.1.0", "dev-2025-08"},
      {"7.2", {1, 1, 0}, "7.2.0", "dev-2025-08"},
      {"7.13", {1, 3, 0}, "7.13.0", "dev-2025-08"},
      {"7.14", {1, 3, 2}, "7.14.0", "dev-2025-08"},
      {"10.0", {1, 3, 5}, "10.0.0", "latest"},
      {"latest", {1, 3, 5}, "10.0.0", "latest"},
      {"develop", {1, 3, 5}, "develop", "latest"},
  };
  const char* e = std::getenv("ROCPROF_SIM_VERSION");
  if (!e || !*e) return SimVersion{};
  const std::string want(e);
  std::string known;
  for (const auto& k : k_releases) {
    const std::string r(k.name);
    if (want == r || want == r + ".0") return SimVersion{k.rocm, k.sdk, k.table};
    known += (known.empty() ? "" : ", ") + r;
  }
  throw CliFailure(1, "rocprofv3-sim: ROCPROF_SIM_VERSION='" + want +
                          "' is not a ROCm release the double imitates (" + known + ")\n");
}

}  // namespace kprof::sim
