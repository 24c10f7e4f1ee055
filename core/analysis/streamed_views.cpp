#include "core/analysis/streamed_views.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace kprof::analysis {

std::vector<StoredVariant> trace_variant_sums(store::CaptureDb& db, const RunTrace& rt) {
  // Durations as Dispatch::duration_ns() takes them (end before start counts 0; the schema
  // forbids it anyway).
  std::unordered_map<int64_t, DurationStats> by_id;
  {
    SQLite::Statement q(db.sql(),
                        "SELECT variant_id, max(end_ns - start_ns, 0) FROM dispatch_rows "
                        "WHERE pass_id = ?");
    q.bind(1, rt.trace.id);
    while (q.executeStep()) by_id[q.getColumn(0).getInt64()].add(q.getColumn(1).getInt64());
  }
  if (by_id.empty()) no_dispatches(db, rt.run, rt.trace.id);
  std::vector<StoredVariant> out;
  for_each_shape(db, rt.trace.id, [&](int64_t id, KernelShape s, const std::string& name) {
    auto it = by_id.find(id);
    if (it == by_id.end()) return;  // launched in no row of the pass
    out.push_back({s, name, it->second});
  });
  return out;
}

Table streamed_families(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules) {
  // As QueryContext::families: a variant is a distinct (Kernel_Id, name, grid, workgroup, LDS,
  // scratch, VGPR, AGPR, SGPR); the store also tells apart rows that differ only in dims_known,
  // so those count as one variant here too.
  using Key = std::tuple<int64_t, std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t>;
  struct Acc {
    DurationStats s;
    std::set<Key> variants;
    std::set<std::string> names;
  };
  std::map<std::string, Acc> acc;
  std::map<std::string, std::string> family_of;  // per kernel name: the rules run once per name
  for (const auto& v : trace_variant_sums(db, rt)) {
    auto f = family_of.find(v.name);
    if (f == family_of.end()) f = family_of.emplace(v.name, rules.family_of(v.name)).first;
    auto& a = acc[f->second];
    a.s.count += v.stats.count;
    a.s.total_ns += v.stats.total_ns;
    const auto& s = v.shape;
    a.variants.insert(Key{s.kernel_id, v.name, s.grid[0], s.grid[1], s.grid[2], s.wg[0], s.wg[1],
                          s.wg[2], s.lds, s.scratch, s.vgpr, s.agpr, s.sgpr});
    a.names.insert(v.name);
  }
  std::map<std::string, FamilySums> sums;
  for (const auto& [family, a] : acc) sums[family] = {a.s, a.variants.size(), a.names.size()};
  Table t;
  t.title = "kernel families";
  t.simulated = rt.run.simulated;
  t.run_id = rt.run.id;
  return families_table(std::move(t), sums);
}

Table families_table(Table t, const std::map<std::string, FamilySums>& by_family) {
  t.columns = {"family",   "launches", "variants", "kernel_names",
               "total_ns", "mean_ns",  "share_pct"};
  int64_t total = 0;
  for (const auto& [f, a] : by_family) total += a.s.total_ns;
  // By family name, then sorted by summed duration (std::sort: ties as the model always had).
  std::vector<std::pair<std::string, FamilySums>> v(by_family.begin(), by_family.end());
  std::sort(v.begin(), v.end(),
            [](auto& a, auto& b) { return a.second.s.total_ns > b.second.s.total_ns; });
  for (const auto& [f, a] : v) {
    t.rows.push_back({f, a.s.count, static_cast<int64_t>(a.variants), static_cast<int64_t>(a.names),
                      a.s.total_ns, a.s.mean_ns(), total ? 100.0 * a.s.total_ns / total : 0.0});
  }
  return t;
}

}  // namespace kprof::analysis
