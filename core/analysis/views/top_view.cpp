// `top`: kernels by summed trace duration, from the trace model or streamed from the database.
#include "core/analysis/views/views.hpp"

#include <algorithm>
#include <map>

#include "core/analysis/views/brief.hpp"
#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {
namespace {

// One kernel name's line of `top`.
struct TopRow {
  std::string name, family;
  DurationStats stats;
};

// `top` from its per-name sums, whichever way they were computed: by summed duration, then name.
Table top_table(Table t, std::vector<TopRow> rows) {
  t.columns = {"kernel", "family", "launches", "total_ns", "mean_ns", "share_pct"};
  int64_t total = 0;
  for (const auto& r : rows) total += r.stats.total_ns;
  std::sort(rows.begin(), rows.end(), [](const TopRow& a, const TopRow& b) {
    return a.stats.total_ns != b.stats.total_ns ? a.stats.total_ns > b.stats.total_ns
                                                : a.name < b.name;
  });
  std::vector<std::string> full, family;
  for (auto& r : rows) {
    t.rows.push_back({r.name, r.family, r.stats.count, r.stats.total_ns, r.stats.mean_ns(),
                      total ? 100.0 * r.stats.total_ns / total : 0.0});
    full.push_back(std::move(r.name));
    family.push_back(std::move(r.family));
  }
  t.brief["kernel"] = brief_kernel_names(full, family);
  t.notes.push_back("share_pct: of summed kernel duration in the trace pass (not of wall time)");
  return t;
}

}  // namespace

Table QueryContext::top(const ViewOptions& o) {
  std::map<uint32_t, DurationStats> by_name;
  for_each_kept(o, [&](const Dispatch& d, int) { by_name[d.name].add(d.duration_ns()); });
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name)
    rows.push_back({m_cap.names.name(name), m_model.family_of_name[name], s});
  return top_table(base_table("kernels by summed trace duration"), std::move(rows));
}

Table streamed_top(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                   size_t limit) {
  // One pass over the trace's narrow rows, summed per variant (streamed_views.hpp), then per name.
  std::map<std::string, DurationStats> by_name;
  for (const auto& v : trace_variant_sums(db, rt)) {
    DurationStats& n = by_name[v.name];
    n.count += v.stats.count;
    n.total_ns += v.stats.total_ns;
  }
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name) rows.push_back({name, rules.family_of(name), s});
  Table t;
  t.title = "kernels by summed trace duration";
  t.simulated = rt.run.simulated;
  t.run_id = rt.run.id;
  t = top_table(std::move(t), std::move(rows));
  apply_limit(t, limit);
  return t;
}

std::optional<Table> stats_top(store::CaptureDb& db, const store::RunInfo& run,
                               const store::PassInfo& trace, const FamilyRules& rules,
                               size_t limit) {
  // rocprofv3 writes kernel_stats.csv from the same dispatches it would trace: per kernel name,
  // Calls and TotalDurationNs (ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp,
  // write_stats). Summed per name, in case two statistics files of the pass name one kernel.
  std::map<std::string, DurationStats> by_name;
  for (const auto& s : db.kernel_stats(trace.id, "kernel_stats")) {
    DurationStats& n = by_name[s.name];
    n.count += s.calls;
    n.total_ns += s.total_ns;
  }
  if (by_name.empty()) return std::nullopt;
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name) rows.push_back({name, rules.family_of(name), s});
  Table t;
  t.title = "kernels by summed duration, from rocprofv3's kernel statistics, no trace";
  t.simulated = run.simulated;
  t.run_id = run.id;
  t = top_table(std::move(t), std::move(rows));
  t.notes.back() =
      "share_pct: of summed kernel duration in rocprofv3's kernel statistics (kernel_stats.csv), "
      "not of wall time; the run holds no kernel trace, so nothing per dispatch (phases, "
      "variants, joined counters)";
  apply_limit(t, limit);
  return t;
}

}  // namespace kprof::analysis
