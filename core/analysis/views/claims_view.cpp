// `claims`: every structural statement about the run (claims.hpp), one row each, with its
// confidence, evidence, the alternatives it was weighed against and, when unknown, why.
#include "core/analysis/outline/claims.hpp"
#include "core/analysis/views/views.hpp"

namespace kprof::analysis {

Table QueryContext::claims(const ViewOptions&) {
  Table t = base_table("claims: every structural statement, with its evidence and confidence");
  t.columns = {"topic", "subject", "claim", "confidence", "evidence", "alternatives", "reason"};
  for (const auto& c : claims_of(m_model.phases, join_summaries()))
    t.rows.push_back({c.topic, c.subject, c.claim.empty() ? Cell() : Cell(c.claim), c.confidence,
                      c.evidence.empty() ? Cell() : Cell(c.evidence),
                      c.alternatives.empty() ? Cell() : Cell(c.alternatives),
                      c.reason.empty() ? Cell() : Cell(c.reason)});
  t.notes.push_back(
      "confidence: high, medium or low from the evidence the detector weighed; unknown when it "
      "does not decide (reason says why); a join is high only when every pair is proven");
  return t;
}

}  // namespace kprof::analysis
