// `top`: kernels by summed trace duration, from the trace model or streamed from the database.
#include "core/analysis/views.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/analysis/brief.hpp"
#include "core/analysis/view_helpers.hpp"

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
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const auto& d = m_cap.trace.dispatches[k];
    by_name[d.name].add(d.duration_ns());
  }
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name)
    rows.push_back({m_cap.names.name(name), m_model.family_of_name[name], s});
  return top_table(base_table("kernels by summed trace duration"), std::move(rows));
}

Table streamed_top(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                   size_t limit) {
  // One pass over the trace's narrow rows, summed per variant (a few hundred), then per name:
  // memory independent of the trace's length, no sort of the rows. Durations as
  // Dispatch::duration_ns() takes them (end before start counts 0; the schema forbids it).
  std::unordered_map<int64_t, DurationStats> by_variant;
  {
    SQLite::Statement q(db.sql(),
                        "SELECT variant_id, max(end_ns - start_ns, 0) FROM dispatch_rows "
                        "WHERE pass_id = ?");
    q.bind(1, rt.trace.id);
    while (q.executeStep()) by_variant[q.getColumn(0).getInt64()].add(q.getColumn(1).getInt64());
  }
  if (by_variant.empty()) no_dispatches(db, rt.run, rt.trace.id);
  std::map<std::string, DurationStats> by_name;
  SQLite::Statement name_of(db.sql(),
                            "SELECT s.value FROM kernel_variants v JOIN strings s "
                            "ON s.id = v.kernel_name_id WHERE v.id = ?");
  for (const auto& [variant, s] : by_variant) {
    name_of.bind(1, variant);
    const std::string name = name_of.executeStep() ? name_of.getColumn(0).getString() : "";
    name_of.reset();
    DurationStats& n = by_name[name];
    n.count += s.count;
    n.total_ns += s.total_ns;
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

}  // namespace kprof::analysis
