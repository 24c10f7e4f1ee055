// `explain`: per family, launches = sum over variants of steps × layers × launches per layer.
#include "core/analysis/views/views.hpp"

#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {

Table QueryContext::explain_view(const ViewOptions& o) {
  Table t = base_table("launches explained by steps × layers × variants");
  if (o.structured) {
    t.columns = {"family",   "family_launches",  "phase",      "steps",
                 "layers",   "per_layer",        "per_step",   "variants",
                 "launches", "role_established", "confidence", "evidence"};
    for (const auto& fe : explain(m_model, o.family)) {
      for (const auto& g : fe.groups) {
        if (o.phase && g.phase != *o.phase) continue;
        int64_t launches = 0;
        for (auto c : g.counts) launches += c;
        const Finding* f = finding_for(m_model.phases, g.phase);
        const bool stepped = g.steps > 0;
        const std::string evidence = phase_evidence(m_model.phases, g.phase);
        t.rows.push_back(
            {fe.family, fe.launches, std::string(to_string(g.phase)),
             stepped ? Cell(static_cast<int64_t>(g.steps)) : Cell(),
             g.layers ? Cell(static_cast<int64_t>(g.layers)) : Cell(),
             g.per_layer ? Cell(g.per_layer) : Cell(), g.per_step ? Cell(g.per_step) : Cell(),
             static_cast<int64_t>(g.counts.size()), launches,
             std::string(g.phase == Phase::prefill || g.phase == Phase::decode ? "yes" : "no"),
             f ? Cell(std::string(to_string(f->confidence))) : Cell(), evidence});
      }
    }
    for (const auto& line : structure_lines(m_model.phases)) t.notes.push_back(line);
    for (const auto& line : rank_structure_lines(m_db, m_cap, m_model)) t.notes.push_back(line);
    for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
    return t;
  }
  t.columns = {"family", "launches", "explanation"};
  for (const auto& fe : explain(m_model, o.family)) {
    if (o.phase) {
      bool has = false;
      for (const auto& g : fe.groups) has |= g.phase == *o.phase;
      if (!has) continue;
    }
    t.rows.push_back({fe.family, fe.launches, fe.text});
  }
  for (const auto& line : structure_lines(m_model.phases)) t.notes.push_back(line);
  for (const auto& line : rank_structure_lines(m_db, m_cap, m_model)) t.notes.push_back(line);
  for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
  return t;
}

}  // namespace kprof::analysis
