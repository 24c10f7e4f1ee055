// `passes`: the run's passes, their states and each counter pass's join with its self-check. The
// `join` column says it in words; machine formats add it as fields (join_method, join_reliable,
// join_monotone, join_jump_bound, join_jumps, join_max_jump).
#include "core/analysis/views/views.hpp"

#include "core/base/text.hpp"

namespace kprof::analysis {

Table QueryContext::passes(const ViewOptions& o) {
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
  if (o.structured)
    t.columns.insert(t.columns.end(), {"join_method", "join_reliable", "join_monotone",
                                       "join_jump_bound", "join_jumps", "join_max_jump"});
  const auto yes_no = [](bool b) { return Cell(std::string(b ? "yes" : "no")); };
  const auto joins = join_summaries();
  for (const auto& p : m_cap.passes) {
    int64_t n = 0;
    if (p.id == m_cap.trace.pass_id) n = trace_dispatches();
    for (const auto& c : counts().counters)
      if (c.pass_id == p.id) n = c.dispatches;
    std::vector<Cell> row = {p.ordinal, std::string(store::to_string(p.kind)),
                             std::string(store::to_string(p.state)), join(p.counters, " "), n};
    const JoinSummary* js = nullptr;
    for (const auto& j : joins)
      if (j.counter_pass_id == p.id) js = &j;
    if (js) {
      row.insert(row.end(), {js->matched, 100.0 * js->matched_share, js->unmatched_counter,
                             js->unmatched_trace, std::string(js->filtered ? "yes" : "no"),
                             join_check_text(*js)});
      if (o.structured)
        row.insert(row.end(), {std::string(store::to_string(js->method)), yes_no(js->reliable),
                               yes_no(js->monotone), js->jump_bound, js->jumps, js->max_jump});
    } else {
      row.resize(t.columns.size());
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kprof::analysis
