// What `rocprofv3 --version` says, and the behaviours kprof adapts its command lines to.
//
// `--version` exists from rocprofiler-sdk 1.0.0 (ROCm 7.0; ROCm/rocm-systems
// projects/rocprofiler-sdk/CHANGELOG.md, "1.0.0 for ROCm release 7.0": "--version option in
// rocprofv3"). It prints one `key: value` line per field (version, git_revision, ...,
// rocm_version; source/bin/rocprofv3.py). An older rocprofv3 rejects the option (argparse exits 2),
// which is how kprof recognises a pre-7.0 tool.
//
// Version-dependent behaviour, each read from the source named:
//  * rocpd output: added and made the default in 1.0.0 (CHANGELOG 1.0.0: "SQLite3 output support
//    ... --output-format rocpd", "Default output format for rocprofv3 to rocpd"); before, csv.
//    Current docs deprecate direct CSV output (source/docs/how-to/using-rocpd-output-format.rst).
//  * --selected-regions, 1.0.0 (ROCm 7.0): tool_init registers the roctxProfilerPause/Resume
//    callback only inside `if (marker_api_trace)` and only for the tracing context; the counter
//    collection context is started unconditionally and never paused
//    (projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp, release/rocm-rel-7.0).
//    So without --marker-trace the trace stays empty, and counter passes count outside regions.
//  * later tools register the callback for selected_regions alone, over a set of contexts that
//    includes counter collection and thread trace (tool.cpp on develop, cntrl_tracing_callback and
//    pause_resume_contexts). The first release saying so is 1.3.0 (ROCm 7.13 / 7.2.4): "ROCTx
//    Support for ATT ... --att --selected-regions" (CHANGELOG 1.3.0). But ROCm 7.2.4 also reports
//    sdk 1.3.0 with 7.2's tool (its CHANGELOG section lists only an overhead fix), so the rule is
//    keyed on the ROCm version `--version` prints (7.13 or newer), and sdk 1.3.0 without one is
//    taken the safe way (counters counted outside the region).
//  * before 1.0.0 (ROCm 6.x) there is no --selected-regions and no --version; the launcher's
//    --help says which option table applies. Its tool starts tracing at once; with --marker-trace
//    roctxProfilerPause/Resume stop and start the tracing context (ROCm/rocprofiler-sdk tag
//    rocm-6.2.0 source/lib/rocprofiler-sdk-tool/tool.cpp, cntrl_tracing_callback) and are
//    written to marker_api_trace.csv, so the region is cut from every pass at ingest.
//  * 1.1.0 (ROCm 7.1 AND 7.2: CHANGELOG.md gives both releases that number, so --version cannot
//    tell them apart) is treated like 1.0.0. The rocm-7.1/7.2 tags are not among the sources
//    stored here (the newest ROCm/rocm-systems snapshot is 2025-08-09, release/rocm-rel-7.0);
//    what the upstream history settles: counter collection and ATT were put under
//    roctxProfilerPause/Resume by ROCm/rocm-systems PR #1496 ("Fix rocprofv3 handling of
//    roctxProfilerPause/Resume", opened 2025-10-22, after 7.1's release branch); the callback was
//    registered for --selected-regions without --marker-trace only by PR #4329 (2026-03-23); and
//    until PR #6930 (2026-06-08) the counter contexts were both started at init and in the pause
//    list, so with --selected-regions and --pmc roctxProfilerResume did nothing and
//    roctxProfilerPause could crash. Whichever of these 7.2 carries, a rotation's phase under
//    --selected-regions is not established there, so kprof assumes counting outside the region
//    (auto replays; replay: rotate is refused): the safe reading. Adding --marker-trace is
//    harmless where it is not needed, and restricting counter passes to the measured kernels is
//    correct either way. (Note: by the same history, 1.3.0's counter pausing with --pmc depends on
//    whether its build carries PR #6930.)
#pragma once

#include <array>
#include <optional>
#include <string>

#include "core/base/rocprof_release.hpp"

namespace kprof::exec {

struct ProfilerVersion {
  // The `--version` output as printed (trimmed), or why there is none; stored with the run. A tool
  // without --version that its --help identified is stored as "release: 6.4" plus how.
  std::string text;
  std::optional<std::array<int, 3>> sdk;  // rocprofiler-sdk version ("version" key)
  std::string rocm;                       // "rocm_version" key, "" when unknown
  // The option table (configs/rocprofv3/<release>.json) kprof builds command lines from; ""
  // when neither --version nor --help told (then the 7.0 table, with the region settings that
  // are safe either way: region_rule_certain() is false).
  std::string release;

  bool known() const { return sdk.has_value(); }
  // The option table of `release`, or 7.0's when it is unknown.
  const RocprofRelease& table() const;
  // -f rocpd exists, and is rocprofv3's default (the table's output-format choices).
  bool has_rocpd() const;
  // The tool has a region switch (--selected-regions). Before ROCm 7.0 it has none and traces
  // from the start; kprof then traces the markers and cuts every pass to the region at ingest.
  bool has_region_switch() const;
  // --selected-regions is honoured only together with --marker-trace.
  bool regions_need_marker_trace() const;
  // Counter collection is paused outside selected regions (else counter passes also count
  // dispatches before roctxProfilerResume, e.g. the warm-up).
  bool regions_pause_counters() const;
  // False where the sources do not settle whether counters pause (sdk 1.3.0 without a ROCm
  // version: ROCm 7.13 and 7.2.4 both report it) or the release is unknown; the safe reading is
  // taken then (counters counted outside the region, --marker-trace added) and the plan says so.
  bool region_rule_certain() const;
  // How kprof applies a runbook's selected region with this tool, and why (for `kprof plan`).
  std::string region_way() const;
  // One line for `kprof plan` and `kprof status`: "rocprofiler-sdk 1.0.0 (ROCm 7.0.0)".
  std::string summary() const;
  // "version=1.0.0 rocm=7.0.0": the `version` and `rocm_version` values `--version` printed, each
  // "none" where it printed none (a tool before ROCm 7.0). A batch task computes the same words
  // from its own node's `--version` (slurm_script.cpp) to find a node with another release.
  std::string release_key() const;
};

// Parses `--version` output; a text without a "version:" line gives an unknown version whose
// `text` is kept as given.
ProfilerVersion parse_rocprofv3_version(const std::string& text);

// The version of a tool that has no --version (rejected the option or printed nothing usable).
ProfilerVersion unknown_rocprofv3_version(const std::string& why);

// A tool without --version (before ROCm 7.0) identified by its --help: the release whose option
// table matches (rocprof_release_from_help); unknown when none does.
ProfilerVersion rocprofv3_version_from_help(const std::string& help, const std::string& how);

}  // namespace kprof::exec
