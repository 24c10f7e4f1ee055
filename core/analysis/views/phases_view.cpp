// `phases`: the steps found from the data, per phase, with the structure's evidence in the notes;
// in machine formats each phase row also carries the finding it rests on (role_established,
// confidence, evidence), as `explain` does.
#include "core/analysis/views/views.hpp"

#include <map>
#include <tuple>

#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {

Table QueryContext::phases(const ViewOptions& o) {
  Table t = base_table("phases found from the dispatch sequence");
  t.columns = {"phase",      "steps",
               "dispatches", "dispatches_per_step",
               "layers",     "dispatches_per_layer",
               "total_ns",   "mean_step_ns"};
  const auto& pm = m_model.phases;
  std::map<Phase, std::tuple<int64_t, int64_t, int64_t>> acc;  // segments, dispatches, ns
  for (const auto& s : pm.steps) {
    auto& [steps, n, ns] = acc[s.phase];
    ++steps;
    n += static_cast<int64_t>(s.end - s.begin);
    for (size_t i = s.begin; i < s.end; ++i) ns += pm.order[i].duration_ns();
  }
  for (const auto& [p, a] : acc) {
    if (o.phase && *o.phase != p) continue;
    auto [steps, n, ns] = a;
    // Only steps are counted as steps; partial and unknown stretches are counted as dispatches.
    const bool is_step =
        p == Phase::prefill || p == Phase::decode || p == Phase::step || p == Phase::irregular;
    const bool regular = p == Phase::decode || p == Phase::step;
    t.rows.push_back(
        {std::string(to_string(p)), is_step ? Cell(steps) : Cell(), n,
         is_step ? Cell(static_cast<double>(n) / steps) : Cell(),
         regular && pm.layers ? Cell(static_cast<int64_t>(pm.layers)) : Cell(),
         regular && pm.layer_period ? Cell(static_cast<int64_t>(pm.layer_period)) : Cell(), ns,
         is_step ? Cell(static_cast<double>(ns) / steps) : Cell()});
  }
  if (pm.other_dispatches > 0 && (!o.phase || *o.phase == Phase::other))
    t.rows.push_back({std::string("other"), Cell(), static_cast<int64_t>(pm.other_dispatches),
                      Cell(), Cell(), Cell(), Cell(), Cell()});
  if (o.structured) {
    t.columns.insert(t.columns.end(), {"role_established", "confidence", "evidence"});
    for (auto& row : t.rows) {
      const Phase p = *parse_phase(std::get<std::string>(row[0]));
      const Finding* f = finding_for(pm, p);
      row.insert(row.end(),
                 {std::string(p == Phase::prefill || p == Phase::decode ? "yes" : "no"),
                  f ? Cell(std::string(to_string(f->confidence))) : Cell(), phase_evidence(pm, p)});
    }
  }
  for (const auto& line : structure_lines(pm)) t.notes.push_back(line);
  for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
  return t;
}

}  // namespace kprof::analysis
