#include "core/exec/profiler/release_support.hpp"

namespace kprof::exec {
namespace {

std::string sdk_text(const std::array<int, 3>& v) {
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

std::string format_cell(const ProfilerVersion& v) {
  const std::string opt = "`" + v.table().spelling("output_format") + "`";
  return v.has_rocpd() ? "rocpd (its default) or csv, " + opt : "csv, " + opt;
}

std::string region_cell(const ProfilerVersion& v) {
  if (!v.has_region_switch())
    return "`--marker-trace` on every pass; each pass cut to the roctxProfilerResume/Pause "
           "markers at ingest";
  if (v.regions_pause_counters()) return "`--selected-regions`";
  return "`--selected-regions --marker-trace`; counter passes cut to the trace's region at ingest";
}

std::string rotation_cell(const ProfilerVersion& v) {
  if (!v.has_rocpd()) return "no (no `pmc_groups`): one run per counter pass";
  if (v.regions_pause_counters()) return "yes (`-i` JSON `pmc_groups`)";
  return "yes (`-i` JSON `pmc_groups`), refused with selected regions";
}

std::string summary_region(const ProfilerVersion& v) {
  if (!v.has_region_switch()) return "markers, cut at ingest";
  if (v.regions_pause_counters()) return "`--selected-regions`";
  return "`--selected-regions`; counters cut at ingest";
}

std::string summary_passes(const RocprofRelease& r, const ProfilerVersion& v) {
  const std::string how = r.has("--pmc") ? "`--pmc`" : "`-i` JSON";
  return v.has_rocpd() ? how + " (rotation offered)" : how + " (one run each)";
}

}  // namespace

ProfilerVersion version_of_release(const RocprofRelease& r) {
  if (!r.has("--version")) return parse_rocprofv3_version("release: " + r.name);
  ProfilerVersion v =
      parse_rocprofv3_version("version: " + sdk_text(r.sdk) + "\nrocm_version: " + r.rocm);
  v.release = r.name;  // a development tree: its own table, not the release's of its sdk
  return v;
}

std::vector<std::string> release_support_rows() {
  std::vector<std::string> rows = {
      "| release | ROCm | rocprofiler-sdk | format | counters | kernel filters | region | "
      "rotation | kernel replay |",
      "|---|---|---|---|---|---|---|---|---|"};
  for (const auto& r : rocprof_releases()) {
    const ProfilerVersion v = version_of_release(r);
    const std::string counters =
        r.has("--pmc") ? "`--pmc`, one run per pass" : "`-i` JSON (`metrics`), one run per pass";
    const std::string filters =
        r.has("--kernel-include-regex") ? "yes" : "no: a runbook asking for them is refused";
    const std::string replay = r.has("--replay-mode") ? "offered (`--replay-mode kernel`)" : "no";
    rows.push_back("| " + r.name + " | " + r.rocm + " | " + sdk_text(r.sdk) + " | " +
                   format_cell(v) + " | " + counters + " | " + filters + " | " + region_cell(v) +
                   " | " + rotation_cell(v) + " | " + replay + " |");
  }
  return rows;
}

std::vector<std::string> release_summary_rows() {
  std::vector<std::string> rows = {
      "| release | ROCm | output | region | counter passes | kernel replay |",
      "|---|---|---|---|---|---|"};
  for (const auto& r : rocprof_releases()) {
    const ProfilerVersion v = version_of_release(r);
    rows.push_back("| " + r.name + " | " + r.rocm + " | " +
                   (v.has_rocpd() ? "rocpd or csv" : "csv") + " | " + summary_region(v) + " | " +
                   summary_passes(r, v) + " | " + (r.has("--replay-mode") ? "yes" : "no") + " |");
  }
  return rows;
}

}  // namespace kprof::exec
