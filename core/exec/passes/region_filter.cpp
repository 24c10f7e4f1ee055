#include "core/exec/passes/region_filter.hpp"

#include <algorithm>
#include <fstream>
#include <set>

namespace kprof::exec {

void LaunchCollector::dispatch(const store::DispatchRow& r) {
  by_pid[r.pid].push_back(
      {r.dispatch_id, r.kernel_name, r.grid_x * r.grid_y * r.grid_z, r.wg_x * r.wg_y * r.wg_z});
}

bool RegionFilter::keep(int64_t pid, int64_t id) const {
  auto it = m_windows.find(pid);
  return it == m_windows.end() ||
         (id >= it->second.first_dispatch_id && id <= it->second.last_dispatch_id);
}

std::map<int64_t, RegionWindow> counter_region_windows(store::CaptureDb& db, int64_t trace_pass_id,
                                                       const ingest::Discovery& found,
                                                       const std::filesystem::path& log_path,
                                                       const std::string& profiler) {
  std::map<int64_t, RegionWindow> out;
  LaunchCollector mine;
  for (const auto& p : found.passes) ingest::read_pass(p, mine, ingest::ReadOptions{});
  std::set<std::string> kernels;
  for (auto& [pid, launches] : mine.by_pid) {
    std::sort(launches.begin(), launches.end(),
              [](const Launch& a, const Launch& b) { return a.dispatch_id < b.dispatch_id; });
    for (const auto& l : launches) kernels.insert(l.kernel);
  }
  // The trace's main process (the one with the most launches of these kernels), program order.
  std::map<int64_t, std::vector<Launch>> trace;
  db.for_each_dispatch(trace_pass_id, [&](const store::DispatchRow& r) {
    if (kernels.count(r.kernel_name))
      trace[r.pid].push_back(
          {r.dispatch_id, r.kernel_name, r.grid_x * r.grid_y * r.grid_z, r.wg_x * r.wg_y * r.wg_z});
  });
  const std::vector<Launch>* main = nullptr;
  for (const auto& [pid, launches] : trace)
    if (!main || launches.size() > main->size()) main = &launches;
  if (!main) return out;
  std::ofstream log(log_path, std::ios::app);
  for (const auto& [pid, launches] : mine.by_pid) {
    const auto w = find_region_window(launches, *main);
    if (!w) continue;
    out[pid] = *w;
    log << "kprof: " << profiler << " counts outside --selected-regions: process " << pid
        << " left out " << w->left_out << " of " << (w->kept + w->left_out)
        << " counted dispatches outside the region matched to the trace (kept Dispatch_Id "
        << w->first_dispatch_id << ".." << w->last_dispatch_id << ", " << w->differences
        << " kernel identities differ" << (w->tie ? "; an equal earlier window existed" : "")
        << ")\n";
  }
  return out;
}

void MarkerCollector::api_call(const store::ApiCallRow& r) {
  if (r.function == "roctxProfilerResume") markers[r.pid].emplace_back(r.end_ns, true);
  if (r.function == "roctxProfilerPause") markers[r.pid].emplace_back(r.start_ns, false);
}

std::map<int64_t, RegionWindow> marker_region_windows(const ingest::Discovery& found,
                                                      const std::filesystem::path& log_path,
                                                      const std::string& profiler) {
  MarkerCollector mine;
  for (const auto& p : found.passes) ingest::read_pass(p, mine, ingest::ReadOptions{});
  std::map<int64_t, RegionWindow> out;
  std::ofstream log(log_path, std::ios::app);
  for (auto& [pid, launches] : mine.launches) {
    auto& marks = mine.markers[pid];
    std::sort(marks.begin(), marks.end());
    const auto inside = [&](int64_t t) {
      bool open = false;
      for (const auto& [at, resume] : marks) {
        if (at > t) break;
        open = resume;
      }
      return open;
    };
    RegionWindow w;
    w.first_dispatch_id = 1;  // keeps nothing until a launch inside is found
    w.last_dispatch_id = 0;
    bool any = false;
    for (const auto& l : launches) {
      if (!inside(l.start_ns)) continue;
      w.first_dispatch_id = any ? std::min(w.first_dispatch_id, l.dispatch_id) : l.dispatch_id;
      w.last_dispatch_id = any ? std::max(w.last_dispatch_id, l.dispatch_id) : l.dispatch_id;
      any = true;
    }
    for (const auto& l : launches)
      (l.dispatch_id >= w.first_dispatch_id && l.dispatch_id <= w.last_dispatch_id ? w.kept
                                                                                   : w.left_out)++;
    out[pid] = w;
    log << "kprof: " << profiler << " has no region switch: process " << pid << " kept " << w.kept
        << " of " << (w.kept + w.left_out) << " traced dispatches between its "
        << "roctxProfilerResume/Pause markers"
        << (any ? " (Dispatch_Id " + std::to_string(w.first_dispatch_id) + ".." +
                      std::to_string(w.last_dispatch_id) + ")"
                : std::string(" (none: it never resumed)"))
        << "; the tool's statistics of the whole run are left out\n";
  }
  return out;
}

}  // namespace kprof::exec
