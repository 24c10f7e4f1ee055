// `structure`: every statement the step detection makes about the trace, one row each: what it
// established (windows, steps, prefill, decode, layers) with its confidence and evidence, what it
// could not establish and why, other observations, and the runbook hints checked against them.
// The same statements `explain` and `phases` print as notes, as fields.
// `windows`: the stretches of the main stream with no missing Dispatch_Id, and the steps in each.
#include "core/analysis/views.hpp"

#include <map>
#include <string_view>

#include "core/analysis/view_helpers.hpp"

namespace kprof::analysis {
namespace {

// PhaseModel::notes write what was not established as "<topic>: not established: <reason>"
// (phases.cpp, phase_findings.cpp); every other note is an observation (dispatches in no step,
// another loop after the steps, irregular steps, other streams).
std::pair<std::string, std::string> split_note(const std::string& note) {
  static constexpr std::string_view k_marker = ": not established";
  const size_t at = note.find(k_marker);
  const size_t colon = note.find(':');
  if (at == std::string::npos || at != colon) return {"", note};
  std::string reason = note.substr(at + k_marker.size());
  if (reason.rfind(": ", 0) == 0) reason.erase(0, 2);
  return {note.substr(0, at), reason};
}

}  // namespace

Table QueryContext::structure(const ViewOptions& o) {
  Table t = base_table("structure of the trace: what was established, with evidence, and what not");
  t.columns = {"topic", "established", "claim", "confidence", "evidence"};
  const auto& pm = m_model.phases;
  t.rows.push_back({std::string("summary"), Cell(), structure_summary(pm), Cell(), Cell()});
  for (const auto& f : pm.findings)
    t.rows.push_back({std::string(to_string(f.topic)), std::string("yes"), f.claim,
                      std::string(to_string(f.confidence)), f.evidence});
  for (const auto& n : pm.notes) {
    auto [topic, text] = split_note(n);
    if (topic.empty())
      t.rows.push_back({std::string("observation"), Cell(), Cell(), Cell(), text});
    else
      t.rows.push_back({topic, std::string("no"), Cell(), Cell(), text});
  }
  for (const auto& line : check_hints(m_model, o.hints))
    t.rows.push_back({std::string("hint"), Cell(), Cell(), Cell(), line});
  t.notes.push_back(
      "established: yes = a finding with its evidence; no = not established, evidence says why; "
      "empty = an observation or a runbook hint checked against the findings");
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
      "main stream: pid " + std::to_string(pm.main_pid) + ", agent " +
      std::to_string(pm.main_agent) +
      "; by_phase counts segments (a step, or a stretch of dispatches in no step) per phase");
  if (pm.windowed())
    t.notes.push_back(
        "windowed trace: dispatches of the process ran between the windows but were not traced; "
        "no step spans two windows");
  return t;
}

}  // namespace kprof::analysis
