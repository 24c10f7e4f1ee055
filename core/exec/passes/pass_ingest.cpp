#include "core/exec/passes/pass_ingest.hpp"

#include <algorithm>
#include <map>

#include "core/base/crash_point.hpp"
#include "core/exec/passes/region_filter.hpp"
#include "core/ingest/discover.hpp"
#include "core/ingest/group_check.hpp"
#include "core/ingest/trace_stats.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

RegionCut region_cut(store::PassKind kind, const runbook::Runbook& rb,
                     const ProfilerBackend& backend) {
  if (kind == store::PassKind::counters && backend.counters_count_outside_regions())
    return RegionCut::trace;
  if (kind == store::PassKind::trace && rb.profiler.selected_regions.value &&
      !backend.version().has_region_switch())
    return RegionCut::markers;
  return RegionCut::none;
}

std::vector<ingest::FileResult> ingest_attempt(
    store::CaptureDb& db, int64_t pass_id, const fs::path& dir,
    const std::optional<RegionContext>& region,
    const std::vector<std::vector<std::string>>& groups) {
  if (!holds_capture_file(dir)) return {};
  ingest::Discovery found = ingest::discover({dir.string()});
  const std::map<int64_t, RegionWindow> windows =
      !region ? std::map<int64_t, RegionWindow>{}
      : region->by_markers
          ? marker_region_windows(found, region->log, region->profiler)
          : counter_region_windows(db, region->trace_pass_id, found, region->log, region->profiler);
  store::PassLoader loader(db, pass_id);
  // A trace pass that asked for --stats and got none (ingest/trace_stats.hpp) gets them computed
  // from the rows kept.
  const auto info = db.find_pass(pass_id);
  const bool wants_stats =
      info && info->kind == store::PassKind::trace &&
      std::find(info->argv.begin(), info->argv.end(), "--stats") != info->argv.end();
  ingest::TraceKernelStats stats(loader);
  store::RowSink& stored = wants_stats ? static_cast<store::RowSink&>(stats) : loader;
  RegionFilter filtered(stored, windows);
  if (region && region->by_markers) filtered.drop_stats();
  store::RowSink& sink = windows.empty() ? stored : filtered;
  crash_point("ingest.loader_open");
  std::vector<ingest::FileResult> files;
  const auto read = [&](const ingest::PassInput& p, store::RowSink& to) {
    const auto r = ingest::read_pass(p, to, ingest::ReadOptions{});
    files.insert(files.end(), r.begin(), r.end());
  };
  if (groups.empty()) {
    for (const auto& p : found.passes) read(p, sink);
  } else {
    ingest::GroupCheck check(sink, groups);
    for (const auto& p : found.passes) read(p, check);
    check.finish();  // before the commit: a refused pass stores nothing
  }
  if (wants_stats) stats.finish((dir / "kernel_stats (computed from the kernel trace)").string());
  crash_point("ingest.before_commit");
  loader.commit();
  crash_point("commit.rows_committed");
  return files;
}

namespace {

// Why a region holds nothing. Region state is per process: rocprofiler-sdk's tool keeps its own
// pause state in every process it is loaded into (ROCm/rocprofiler-sdk
// source/lib/rocprofiler-sdk-tool/tool.cpp, cntrl_tracing_callback), so under tensor
// parallelism each worker process must call roctxProfilerResume itself.
std::string empty_region_reason(int ranks) {
  if (ranks <= 1)
    return "the process that launched kernels never called roctxProfilerResume (or the profiler "
           "ignored it)";
  return "none of the " + std::to_string(ranks) +
         " ranks (workload.ranks) recorded a dispatch in it: each worker process must call "
         "roctxProfilerResume itself (a resume in the entry process leaves every worker paused); "
         "open the region in every worker, e.g. qwen3_generate.py --region-in workers, which "
         "reaches them through vLLM's collective_rpc";
}

}  // namespace

Failure judge_capture(const store::PassRowCounts& counts, store::PassKind kind, bool regions,
                      int ranks) {
  if (kind == store::PassKind::trace && counts.dispatches == 0) {
    return {FailureKind::deterministic,
            regions
                ? "no dispatch recorded inside the selected region: " + empty_region_reason(ranks)
                : "no dispatch recorded: the workload launched no GPU kernel"};
  }
  if (kind == store::PassKind::counters && counts.counter_values == 0) {
    return {FailureKind::deterministic,
            std::string("no counter row for any kernel of interest") +
                (regions ? " inside the selected region: " + empty_region_reason(ranks) +
                               ", or no kernel of interest ran there"
                         : ": no kernel of interest ran, or the kernel filter matched none")};
  }
  return {};
}

}  // namespace kprof::exec
