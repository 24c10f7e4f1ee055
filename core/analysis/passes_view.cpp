// `passes`: the run's passes, their states and each counter pass's join with its self-check.
#include "core/analysis/views.hpp"

#include "core/base/text.hpp"

namespace kprof::analysis {

Table QueryContext::passes(const ViewOptions&) {
  Table t = base_table("passes and the cross-pass join");
  t.columns = {"pass",
               "kind",
               "state",
               "counters",
               "dispatches",
               "matched",
               "matched_pct",
               "unmatched_counter",
               "unmatched_trace",
               "filtered",
               "join"};
  const auto joins = join_summaries();
  for (const auto& p : m_cap.passes) {
    int64_t n = 0;
    if (p.id == m_cap.trace.pass_id) n = static_cast<int64_t>(m_cap.trace.dispatches.size());
    for (const auto& c : m_cap.counters)
      if (c.pass_id == p.id) n = static_cast<int64_t>(c.dispatches.size());
    std::vector<Cell> row = {p.ordinal, std::string(store::to_string(p.kind)),
                             std::string(store::to_string(p.state)), join(p.counters, " "), n};
    const JoinSummary* js = nullptr;
    for (const auto& j : joins)
      if (j.counter_pass_id == p.id) js = &j;
    if (js) {
      row.insert(row.end(), {js->matched, 100.0 * js->matched_share, js->unmatched_counter,
                             js->unmatched_trace, std::string(js->filtered ? "yes" : "no"),
                             join_check_text(*js)});
    } else {
      row.insert(row.end(), {Cell(), Cell(), Cell(), Cell(), Cell(), Cell()});
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kprof::analysis
