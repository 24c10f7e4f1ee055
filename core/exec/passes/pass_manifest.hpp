// The small file each pass of a batch script writes beside its capture (`pass-K/kprof-pass.json`):
// which run and pass it is, and how `kprof run` would load it (kind, counters, region cut). With
// it, `kprof ingest DB FOLDER` restores the run and its passes as `kprof run` records them (one
// run, counter passes joined to the trace) whatever the output format; without it a folder of
// rocpd databases would read as one trace run per pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::exec {

inline constexpr const char* k_pass_manifest = "kprof-pass.json";
// What a batch task's own node's profiler said its release was (slurm_script.hpp).
inline constexpr const char* k_release_file = "kprof-release.txt";
// Where `kprof ingest` notes what a region cut left out when the pass's log is not beside it.
inline constexpr const char* k_ingest_log = "kprof-ingest.log";

// Files kprof's batch tasks write into a pass folder beside the profiler's: never capture data.
bool is_kprof_pass_file(const std::filesystem::path& path);

// True when `folder` holds a regular file other than kprof's own pass files: something the
// profiler wrote (rocprofv3 writes a file only for a domain that had records).
bool holds_capture_file(const std::filesystem::path& folder);

// How `kprof run` keeps a pass's rows to the runbook's region at ingest (driver_outcome.cpp):
// not at all (the profiler's region switch did it), at the pass's own marker records (a release
// without a region switch), or at the region found against the run's trace pass (a release whose
// region switch does not pause counters).
enum class RegionCut { none, markers, trace };

struct PassManifest {
  // The run, as `kprof run` records it (store::NewRun).
  std::string run_name;
  std::string runbook_path;
  std::string runbook_sha256;
  std::string runbook_text;
  bool simulated = false;
  std::optional<int64_t> seed;
  std::string profiler_version;  // what `<profiler> --version` printed where the plan was made
  std::string profiler;          // its one-line summary, named in the pass log's region notes
  // The pass, as `kprof run` records it (store::PlannedPass).
  int64_t ordinal = 0;
  std::vector<int64_t>
      run_passes;  // every ordinal of the run, to name a pass whose task is missing
  store::PassKind kind = store::PassKind::trace;
  std::vector<std::string> counters;
  std::vector<std::string> argv;
  store::EnvDelta env;
  std::string log_path;
  RegionCut region = RegionCut::none;
};

std::string manifest_json(const PassManifest& manifest);

// Throws Error(input) naming the file and the field for a file that is not a manifest kprof wrote.
PassManifest read_manifest(const std::filesystem::path& file);

// The manifests under the given paths (each a pass folder's own, so not below another pass's
// capture), sorted by path.
std::vector<std::filesystem::path> find_manifests(const std::vector<std::string>& paths);

}  // namespace kprof::exec
