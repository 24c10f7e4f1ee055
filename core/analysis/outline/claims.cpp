#include "core/analysis/outline/claims.hpp"

namespace kprof::analysis {
namespace {

// What else a finding was weighed against, and why it lost: the detector's runner-up candidates.
std::string alternatives_of(const Finding& f) {
  if (f.alternatives.empty()) return "none weighed";
  std::string out;
  for (const auto& a : f.alternatives)
    out += (out.empty() ? "" : "; ") + a.candidate + ": lost, " + a.why_lost;
  return out;
}

std::string subject_of(const PhaseModel& pm) { return "main stream " + pm.stream_name(); }

Claim join_claim(const JoinSummary& j) {
  Claim c;
  c.topic = "join";
  c.subject = "counter pass " + std::to_string(j.ordinal);
  c.claim = std::to_string(j.matched) + " of " + std::to_string(j.counter_dispatches) +
            " counter dispatches mapped to trace dispatches (" +
            std::string(store::to_string(j.method)) + ")";
  c.evidence = join_check_text(j) + "; " + std::to_string(j.unmatched_counter) + " counter and " +
               std::to_string(j.unmatched_trace) + " trace dispatches unmatched";
  if (j.method == store::JoinMethod::by_id)
    c.alternatives = "another run: lost, same Dispatch_Ids, pids and times";
  else if (j.method == store::JoinMethod::offset)
    c.alternatives =
        "the trace's own invocation: lost, other pids or times; alignment by launch "
        "order: not needed, the offset proves every pair";
  else
    c.alternatives =
        "the trace's own invocation: lost, other pids or times; a constant "
        "Dispatch_Id offset: lost, none maps every pair onto the same kernel and "
        "launch shape";
  if (!j.reliable)
    c.confidence = "low";
  else if (j.method == store::JoinMethod::aligned)
    c.confidence = "medium";
  else
    c.confidence = "high";
  return c;
}

}  // namespace

std::vector<Claim> claims_of(const PhaseModel& pm, const std::vector<JoinSummary>& joins) {
  std::vector<Claim> out;
  const std::string subject = subject_of(pm);
  for (const auto& f : pm.findings)
    out.push_back(
        {std::string(to_string(f.topic)), subject, f.claim, std::string(to_string(f.confidence)),
         f.counts.empty() ? f.evidence : f.evidence + "; " + f.counts, alternatives_of(f), ""});
  for (const auto& n : pm.notes) {
    if (n.kind != NoteKind::not_established || !n.topic) continue;
    out.push_back({std::string(to_string(*n.topic)), subject, "", "unknown", "", "", n.text});
  }
  for (const auto& j : joins) out.push_back(join_claim(j));
  return out;
}

std::vector<Claim> join_claims(const std::vector<JoinSummary>& joins) {
  std::vector<Claim> out;
  for (const auto& j : joins) out.push_back(join_claim(j));
  return out;
}

std::string claim_line(const Claim& c) {
  if (c.confidence == "unknown") return c.topic + ": unknown: " + c.reason;
  return c.topic + ": " + c.claim + " [" + c.confidence + "]";
}

}  // namespace kprof::analysis
