// `structure`: every statement the step detection makes about the trace, one row each: what it
// established (windows, steps, prefill, decode, layers) with its confidence and evidence, what it
// could not establish and why, other observations, and the runbook hints checked against them.
// The same statements `explain` and `phases` print as notes, as fields.
// `windows`: the stretches of the main stream with no missing Dispatch_Id, and the steps in each.
#include "core/analysis/views/views.hpp"

#include <map>

#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {

Table QueryContext::structure(const ViewOptions& o) {
  Table t = base_table("structure of the trace: what was established, with evidence, and what not");
  t.columns = {"kind", "topic", "claim", "confidence", "evidence"};
  const auto& pm = m_model.phases;
  const auto str = [](auto v) { return Cell(std::string(v)); };
  t.rows.push_back({str("summary"), Cell(), structure_summary(pm), Cell(), Cell()});
  for (const auto& f : pm.findings)
    t.rows.push_back({str("finding"), str(to_string(f.topic)), f.claim,
                      str(to_string(f.confidence)), f.evidence});
  for (const auto& n : pm.notes)
    t.rows.push_back({str(n.kind == NoteKind::not_established ? "not_established" : "observation"),
                      n.topic ? str(to_string(*n.topic)) : Cell(), Cell(), Cell(), n.text});
  for (const auto& line : check_hints(m_model, o.hints))
    t.rows.push_back({str("hint"), Cell(), Cell(), Cell(), line});
  t.notes.push_back(
      "kind: finding (a claim with its confidence and evidence), not_established (evidence says "
      "why), observation, hint (a runbook hint checked against the findings); topic: windows, "
      "steps, prefill, decode or layers");
  return t;
}

Table QueryContext::windows(const ViewOptions&) {
  Table t = base_table("windows: stretches of the main stream with no missing Dispatch_Id");
  t.columns = {"window",
               "first_dispatch_id",
               "last_dispatch_id",
               "dispatches",
               "missing_ids_before",
               "gap_before_ns",
               "steps",
               "by_phase"};
  const auto& pm = m_model.phases;
  for (size_t w = 0; w < pm.windows.size(); ++w) {
    const Window& win = pm.windows[w];
    std::map<Phase, int64_t> segments;
    int64_t steps = 0;
    for (const auto& s : pm.steps) {
      if (s.window != static_cast<int>(w)) continue;
      ++segments[s.phase];
      steps += s.phase == Phase::prefill || s.phase == Phase::decode || s.phase == Phase::step ||
               s.phase == Phase::irregular;
    }
    std::string by;
    for (const auto& [p, c] : segments)
      by += (by.empty() ? "" : " ") + std::string(to_string(p)) + ":" + std::to_string(c);
    t.rows.push_back({static_cast<int64_t>(w + 1), win.first_id, win.last_id,
                      static_cast<int64_t>(win.end - win.begin), win.missing_before,
                      w == 0 ? Cell() : Cell(win.gap_before_ns), steps, by});
  }
  t.notes.push_back(
      "main stream: " + pm.stream_name() +
      "; by_phase counts segments (a step, or a stretch of dispatches in no step) per phase");
  if (pm.windowed())
    t.notes.push_back(
        "windowed trace: dispatches of the process ran between the windows but were not traced; "
        "no step spans two windows");
  return t;
}

}  // namespace kprof::analysis
