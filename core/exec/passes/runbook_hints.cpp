#include "core/exec/passes/runbook_hints.hpp"

namespace kprof::exec {

store::RunbookHints runbook_hints_of(const runbook::Runbook& rb) {
  store::RunbookHints f;
  f.layers = rb.analysis.layers.value;
  f.output_tokens = rb.analysis.output_tokens.value;
  // Unwritten: NULL, which readers take as one rank (0010_pass_ranks.sql).
  if (rb.workload.ranks.from_file) f.ranks = rb.workload.ranks.value;
  for (const auto& r : rb.analysis.families.value)
    f.family_rules.push_back({r.match.value, r.family.value, r.match.pos});
  for (const auto& m : rb.passes.counters.metric_sets.value) f.metric_sets.push_back(m.value);
  return f;
}

}  // namespace kprof::exec
