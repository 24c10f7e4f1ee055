#include "core/exec/rocprofv3_version.hpp"

#include <sstream>

#include "core/base/text.hpp"

namespace kprof::exec {
namespace {

constexpr std::array<int, 3> k_first_rocpd{1, 0, 0};
constexpr std::array<int, 3> k_first_region_contexts{1, 3, 0};

std::optional<std::array<int, 3>> parse_triple(std::string_view s) {
  std::array<int, 3> v{0, 0, 0};
  size_t part = 0;
  bool digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      v[part] = v[part] * 10 + (c - '0');
      digit = true;
    } else if (c == '.' && digit && part < 2) {
      ++part;
      digit = false;
    } else {
      break;  // "1.0.0-rc1", "1.0.0 (abc)": the numbers before are the version
    }
  }
  if (!digit && part == 0) return std::nullopt;
  return v;
}

}  // namespace

bool ProfilerVersion::has_rocpd() const { return sdk && *sdk >= k_first_rocpd; }
bool ProfilerVersion::regions_need_marker_trace() const {
  return !sdk || *sdk < k_first_region_contexts;
}
bool ProfilerVersion::regions_pause_counters() const {
  return sdk && *sdk >= k_first_region_contexts;
}

std::string ProfilerVersion::summary() const {
  if (!sdk) return "unknown version (" + text + ")";
  std::string s = "rocprofiler-sdk " + std::to_string((*sdk)[0]) + "." + std::to_string((*sdk)[1]) +
                  "." + std::to_string((*sdk)[2]);
  if (!rocm.empty()) s += " (ROCm " + rocm + ")";
  return s;
}

ProfilerVersion parse_rocprofv3_version(const std::string& text) {
  ProfilerVersion v;
  v.text = std::string(trim(text));
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key(trim(std::string_view(line).substr(0, colon)));
    const std::string value(trim(std::string_view(line).substr(colon + 1)));
    if (key == "version") v.sdk = parse_triple(value);
    if (key == "rocm_version") v.rocm = value;
  }
  return v;
}

ProfilerVersion unknown_rocprofv3_version(const std::string& why) {
  ProfilerVersion v;
  v.text = why;
  return v;
}

}  // namespace kprof::exec
