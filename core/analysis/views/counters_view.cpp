// `counters`: collected counter values joined onto trace dispatches, per counter and pass.
#include "core/analysis/views/views.hpp"

#include <map>
#include <string>

#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {

Table QueryContext::counters(const ViewOptions& o) {
  Table t = base_table("counter values joined onto trace dispatches");
  t.columns = {"counter", "pass", "dispatches", "mean", "min", "max", "sum"};
  struct Acc {
    int64_t n = 0;
    double sum = 0, min = 0, max = 0;
  };
  // By counter id while the samples stream by, by name after.
  std::map<std::pair<uint32_t, int64_t>, Acc> by_id;
  const NameTable* names = nullptr;
  for_each_joined([&](size_t k) { return keep(k, o); },
                  [&](size_t, const JoinedCounters& jc, size_t i) {
                    names = &jc.counters;
                    for (const auto& s : jc.by_dispatch[i]) {
                      auto& a = by_id[{s.counter, s.pass_id}];
                      if (a.n == 0 || s.value < a.min) a.min = s.value;
                      if (a.n == 0 || s.value > a.max) a.max = s.value;
                      ++a.n;
                      a.sum += s.value;
                    }
                  });
  std::map<std::pair<std::string, int64_t>, Acc> acc;
  for (const auto& [key, a] : by_id) acc[{names->name(key.first), key.second}] = a;
  for (const auto& [key, a] : acc) {
    const int64_t ordinal = ordinal_in(m_cap, key.second);
    t.rows.push_back({key.first, ordinal, a.n, a.sum / a.n, a.min, a.max, a.sum});
    if (auto note = all_zero_note(key.first, ordinal, a.n, a.min, a.max))
      t.notes.push_back(std::move(*note));
  }
  if (acc.empty()) t.notes.push_back(k_no_joined_counters);
  add_join_notes(t);
  return t;
}

std::optional<Table> untraced_counters(store::CaptureDb& db, const store::RunInfo& run,
                                       const std::vector<store::PassInfo>& passes, size_t limit) {
  Table t;
  t.title = "counter values per counter pass, no trace to join them to";
  t.simulated = run.simulated;
  t.run_id = run.id;
  t.columns = {"counter", "pass", "dispatches", "mean", "min", "max", "sum"};
  struct Acc {
    int64_t n = 0;
    double sum = 0, min = 0, max = 0;
  };
  std::map<std::pair<std::string, int64_t>, Acc> acc;
  for (const auto& p : passes) {
    if (p.kind != store::PassKind::counters) continue;
    // One value per (dispatch, counter) of the pass: rocprofv3 has summed the dimension instances.
    db.for_each_counter(p.id, [&](const store::CounterRow& c) {
      auto& a = acc[{c.counter, p.ordinal}];
      if (a.n == 0 || c.value < a.min) a.min = c.value;
      if (a.n == 0 || c.value > a.max) a.max = c.value;
      ++a.n;
      a.sum += c.value;
    });
  }
  if (acc.empty()) return std::nullopt;
  for (const auto& [key, a] : acc) {
    t.rows.push_back({key.first, key.second, a.n, a.sum / a.n, a.min, a.max, a.sum});
    if (auto note = all_zero_note(key.first, key.second, a.n, a.min, a.max))
      t.notes.push_back(std::move(*note));
  }
  t.notes.push_back(
      "dispatches: those of the counter pass that carry the counter; the run holds no kernel "
      "trace, so the values are not joined to traced dispatches and have no phase");
  apply_limit(t, limit);
  return t;
}

}  // namespace kprof::analysis
