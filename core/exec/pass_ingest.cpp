#include "core/exec/pass_ingest.hpp"

#include <map>

#include "core/base/crash_point.hpp"
#include "core/exec/region_filter.hpp"
#include "core/ingest/discover.hpp"
#include "core/ingest/group_check.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

namespace {

bool holds_a_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) return true;
  }
  return false;
}

}  // namespace

void ingest_attempt(store::CaptureDb& db, int64_t pass_id, const fs::path& dir,
                    const std::optional<RegionContext>& region,
                    const std::vector<std::vector<std::string>>& groups) {
  if (!holds_a_file(dir)) return;
  ingest::Discovery found = ingest::discover({dir.string()});
  const std::map<int64_t, RegionWindow> windows =
      !region ? std::map<int64_t, RegionWindow>{}
      : region->by_markers
          ? marker_region_windows(found, region->log, region->profiler)
          : counter_region_windows(db, region->trace_pass_id, found, region->log, region->profiler);
  store::PassLoader loader(db, pass_id);
  RegionFilter filtered(loader, windows);
  if (region && region->by_markers) filtered.drop_stats();
  store::RowSink& sink = windows.empty() ? static_cast<store::RowSink&>(loader) : filtered;
  crash_point("ingest.loader_open");
  if (groups.empty()) {
    for (const auto& p : found.passes) ingest::read_pass(p, sink, ingest::ReadOptions{});
  } else {
    ingest::GroupCheck check(sink, groups);
    for (const auto& p : found.passes) ingest::read_pass(p, check, ingest::ReadOptions{});
    check.finish();  // before the commit: a refused pass stores nothing
  }
  crash_point("ingest.before_commit");
  loader.commit();
  crash_point("commit.rows_committed");
}

Failure judge_capture(const store::PassRowCounts& counts, store::PassKind kind, bool regions) {
  if (kind == store::PassKind::trace && counts.dispatches == 0) {
    return {FailureKind::deterministic,
            regions ? "no dispatch recorded inside the selected region: the process that "
                      "launched kernels never called roctxProfilerResume (or the profiler "
                      "ignored it)"
                    : "no dispatch recorded: the workload launched no GPU kernel"};
  }
  if (kind == store::PassKind::counters && counts.counter_values == 0) {
    return {FailureKind::deterministic,
            std::string("no counter row for any kernel of interest") +
                (regions ? " inside the selected region: the process that launched kernels "
                           "never called roctxProfilerResume, or no kernel of interest ran "
                           "there"
                         : ": no kernel of interest ran, or the kernel filter matched none")};
  }
  return {};
}

}  // namespace kprof::exec
