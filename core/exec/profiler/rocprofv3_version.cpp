#include "core/exec/profiler/rocprofv3_version.hpp"

#include <sstream>

#include "core/base/text.hpp"

namespace kprof::exec {
namespace {

constexpr std::array<int, 3> k_first_rocpd{1, 0, 0};
constexpr std::array<int, 3> k_first_region_contexts{1, 3, 0};
constexpr std::array<int, 3> k_first_rocm_region_contexts{7, 13, 0};

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

const RocprofRelease& ProfilerVersion::table() const {
  if (const RocprofRelease* r = find_rocprof_release(release)) return *r;
  return rocprof_release_for_sdk(k_first_rocpd);
}

bool ProfilerVersion::has_rocpd() const {
  if (release.empty()) return false;  // unknown: csv, which every release writes
  const RocprofOption* f = table().find_dest("output_format");
  return f && f->has_choice("rocpd");
}

bool ProfilerVersion::has_region_switch() const {
  return release.empty() || table().find_dest("selected_regions") != nullptr;
}

bool ProfilerVersion::regions_pause_counters() const {
  if (!sdk || !has_region_switch() || release.empty()) return false;
  if (const auto r = parse_triple(rocm)) return *r >= k_first_rocm_region_contexts;
  return *sdk > k_first_region_contexts;  // 1.3.0 alone names 7.13 and 7.2.4 alike
}

bool ProfilerVersion::regions_need_marker_trace() const { return !regions_pause_counters(); }

bool ProfilerVersion::region_rule_certain() const {
  if (release.empty() || !sdk) return false;
  return !(*sdk == k_first_region_contexts && !parse_triple(rocm));
}

std::string ProfilerVersion::region_way() const {
  const std::string tool = release.empty()                   ? "a rocprofv3 of unknown release"
                           : sdk && table().has("--version") ? summary()
                                                             : "rocprofv3 " + release;
  if (!has_region_switch())
    return tool +
           " has no --selected-regions and traces from the start: every pass runs with "
           "--marker-trace, and kprof keeps each pass's dispatches between the workload's "
           "roctxProfilerResume/Pause markers at ingest (the counter passes matched to that "
           "trace)";
  if (regions_pause_counters())
    return "--selected-regions: " + tool + " pauses tracing and counting outside the region";
  std::string s = "--selected-regions with --marker-trace on the trace pass; " + tool +
                  " does not pause counters outside the region, so kprof keeps each counter "
                  "pass to the trace's region at ingest";
  if (!region_rule_certain())
    s += " (whether this release pauses counters is not settled by its version: ROCm 7.2.4 and "
         "7.13 both report rocprofiler-sdk 1.3.0; this way is right either way)";
  return s;
}

std::string ProfilerVersion::summary() const {
  if (!sdk) return "unknown version (" + text + ")";
  std::string s = "rocprofiler-sdk " + std::to_string((*sdk)[0]) + "." + std::to_string((*sdk)[1]) +
                  "." + std::to_string((*sdk)[2]);
  if (!rocm.empty()) s += " (ROCm " + rocm + ")";
  if (!release.empty() && rocm.empty()) s += " (rocprofv3 " + release + ")";
  return s;
}

ProfilerVersion parse_rocprofv3_version(const std::string& text) {
  ProfilerVersion v;
  v.text = std::string(trim(text));
  std::istringstream in(text);
  std::string release;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key(trim(std::string_view(line).substr(0, colon)));
    const std::string value(trim(std::string_view(line).substr(colon + 1)));
    if (key == "version") v.sdk = parse_triple(value);
    if (key == "rocm_version") v.rocm = value;
    if (key == "release") release = value;  // what kprof recorded for a tool identified by --help
  }
  if (const RocprofRelease* r = find_rocprof_release(release); r && !v.sdk) {
    v.sdk = r->sdk;
    v.release = r->name;
  } else if (v.sdk) {
    v.release = rocprof_release_for_sdk(*v.sdk).name;
  }
  return v;
}

std::string ProfilerVersion::release_key() const {
  std::string said_version = "none", said_rocm = "none";
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key(trim(std::string_view(line).substr(0, colon)));
    const std::string value(trim(std::string_view(line).substr(colon + 1)));
    if (key == "version" && said_version == "none" && !value.empty()) said_version = value;
    if (key == "rocm_version" && said_rocm == "none" && !value.empty()) said_rocm = value;
  }
  return "version=" + said_version + " rocm=" + said_rocm;
}

ProfilerVersion unknown_rocprofv3_version(const std::string& why) {
  ProfilerVersion v;
  v.text = why;
  return v;
}

ProfilerVersion rocprofv3_version_from_help(const std::string& help, const std::string& how) {
  const RocprofRelease* r = rocprof_release_from_help(help);
  if (!r) return unknown_rocprofv3_version(how + "; its --help matches no known release");
  ProfilerVersion v = parse_rocprofv3_version("release: " + r->name);
  v.text = "release: " + r->name + "\nhow: " + how + "; its --help lists the options of " + r->name;
  return v;
}

}  // namespace kprof::exec
