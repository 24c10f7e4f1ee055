#include "core/analysis/views/streamed_views.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/analysis/views/view_helpers.hpp"
#include "core/store/analysis_reads.hpp"

namespace kprof::analysis {

std::vector<StoredVariant> trace_variant_sums(store::CaptureDb& db, const RunTrace& rt) {
  // Durations as Dispatch::duration_ns() takes them (end before start counts 0; the schema
  // forbids it anyway).
  std::unordered_map<int64_t, DurationStats> by_id;
  store::for_each_variant_duration(db, rt.trace.id,
                                   [&](int64_t variant, int64_t ns) { by_id[variant].add(ns); });
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
  using Registers = std::optional<int64_t>;
  using Key = std::tuple<int64_t, std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, Registers, Registers, Registers>;
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

std::optional<Table> streamed_counters(store::CaptureDb& db, const RunTrace& rt,
                                       bool use_unreliable) {
  const int64_t trace_dispatches = store::dispatch_count(db, rt.trace.id);
  if (trace_dispatches == 0) no_dispatches(db, rt.run, rt.trace.id);
  // The counter passes the model would load (load_capture: those holding dispatches), with only
  // what read_joins needs of them.
  Capture cap;
  cap.run = rt.run;
  cap.passes = rt.passes;
  cap.trace.pass_id = rt.trace.id;
  for (const auto& p : rt.passes) {
    if (p.kind != store::PassKind::counters) continue;
    const int64_t n = store::dispatch_count(db, p.id);
    if (n == 0) continue;
    PassData c;
    c.pass_id = p.id;
    c.ordinal = static_cast<int>(p.ordinal);
    if (!pass_join_current(db, {c.pass_id, c.ordinal, n}, {rt.trace.id, 0, trace_dispatches}))
      return std::nullopt;
    cap.counters.push_back(std::move(c));
  }
  Table t;
  t.title = "counter values joined onto trace dispatches";
  t.simulated = rt.run.simulated;
  t.run_id = rt.run.id;
  t.columns = {"counter", "pass", "dispatches", "mean", "min", "max", "sum"};
  const std::vector<JoinSummary> joins = read_joins(db, cap);
  std::set<int64_t> excluded;
  if (!use_unreliable)
    for (const auto& j : joins)
      if (!j.reliable) excluded.insert(j.counter_pass_id);
  // As the model's view: per (counter name, counter pass id), every value of a counter-pass
  // dispatch the join matched to a trace dispatch (the join's key is the counter dispatch, so each
  // value counts once).
  struct Acc {
    int64_t ordinal = 0, n = 0;
    double sum = 0, min = 0, max = 0;
  };
  std::map<std::pair<std::string, int64_t>, Acc> acc;
  for (const auto& c : cap.counters) {
    if (excluded.count(c.pass_id)) continue;
    for (const auto& v : store::joined_counter_sums(db, c.pass_id, rt.trace.id))
      acc[{v.counter, c.pass_id}] = {c.ordinal, v.values, v.sum, v.min, v.max};
  }
  for (const auto& [key, a] : acc) {
    t.rows.push_back({key.first, a.ordinal, a.n, a.sum / a.n, a.min, a.max, a.sum});
    if (auto note = all_zero_note(key.first, a.ordinal, a.n, a.min, a.max))
      t.notes.push_back(std::move(*note));
  }
  if (acc.empty()) t.notes.push_back(k_no_joined_counters);
  for (const auto& j : joins) {
    if (j.reliable) continue;
    t.notes.push_back("pass " + std::to_string(j.ordinal) + ": " + join_check_text(j) +
                      (use_unreliable ? " [used anyway: --force-join]" : ""));
  }
  return t;
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
