// What the executor does with an attempt whose profiler exited 0: load its files into the pass
// (one transaction), then judge whether the capture holds anything measured.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/passes/pass_manifest.hpp"
#include "core/exec/profiler/failure.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/ingest/read_options.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// A counter pass of a profiler that counts outside --selected-regions: its rows are kept to the
// region found against the run's done trace pass (region_filter.hpp).
struct RegionContext {
  // True for a pass cut at its own marker records (a profiler without --selected-regions:
  // region_filter.hpp, marker_region_windows); else cut against the trace pass.
  bool by_markers = false;
  int64_t trace_pass_id = 0;
  std::filesystem::path log;  // the pass log, where what was left out is noted
  std::string profiler;       // the profiler's version summary, named in that note
};

// How a pass of `kind` is kept to the runbook's region at ingest: a counter pass of a profiler
// that counts outside --selected-regions (ROCm 7.0) at the region's launches found against the
// trace pass (region_window.hpp), the rest left out of the database and said so in the pass log;
// a trace pass of a release with no region switch (before ROCm 7.0), which holds the whole run,
// at its own marker records (region_filter.hpp, marker_region_windows).
RegionCut region_cut(store::PassKind kind, const runbook::Runbook& rb,
                     const ProfilerBackend& backend);

// Discovers the files under `dir` and loads them into pass `pass_id` in one transaction (the
// store's PassLoader). A folder without a file loads nothing: rocprofv3 writes a file only for a
// domain that recorded something, so that is an empty capture for judge_capture(), not an
// unreadable one. Throws Error for unreadable output. `groups`: a rotated pass's counter groups;
// then each dispatch's counter names must identify one of them, else ingest::GroupMismatch is
// thrown and nothing is stored (core/ingest/group_check.hpp).
std::vector<ingest::FileResult> ingest_attempt(
    store::CaptureDb& db, int64_t pass_id, const std::filesystem::path& dir,
    const std::optional<RegionContext>& region,
    const std::vector<std::vector<std::string>>& groups = {});

// A pass whose profiler exited 0 but that holds nothing measured is a failure with a cause, not
// a success: under --selected-regions (`regions`) that is the signature of a region opened in a
// process that launched no kernel (vLLM V1 runs the model in its EngineCore process), or of a
// profiler that ignored the region markers. Retrying the same command gives the same empty
// capture, so the failure is deterministic.
// `ranks`: the processes that each drive a GPU in every pass (workload.ranks); with more than one,
// an empty region says that every worker must open it itself.
Failure judge_capture(const store::PassRowCounts& counts, store::PassKind kind, bool regions,
                      int ranks = 1);

}  // namespace kprof::exec
