#include "core/analysis/claims.hpp"

namespace kprof::analysis {
namespace {

// What else a finding of `topic` was weighed against, and why it lost (the tests the detector
// applies before it states the finding: phases.hpp).
std::string alternatives_of(Topic topic, const PhaseModel& pm) {
  switch (topic) {
    case Topic::windows:
      return pm.windowed() ? "one continuous trace: lost, Dispatch_Ids of the process are missing "
                             "between the windows"
                           : "a windowed trace: lost, no Dispatch_Id of the process is missing";
    case Topic::steps:
      return pm.method == "period+gaps"
                 ? "a layer or an inner loop of one pass: lost, host gaps mark the repetition's "
                   "boundaries; one forward pass: lost, at least two whole repetitions"
                 : "a layer or an inner loop of one pass: not ruled out, the trace has no "
                   "timestamps to show host gaps";
    case Topic::prefill:
      return "warm-up or set-up work: lost, it runs the steps' layer structure with larger grids";
    case Topic::decode:
      return "repeated forward passes of separate requests: lost, they follow an established "
             "prefill";
    case Topic::layers:
      return "another kernel as the once-per-layer anchor: lost, fewer launches or irregular "
             "distances; layers of two kinds in each block: lost, no kernel splits a layer into "
             "alike stretches";
  }
  return {};
}

std::string subject_of(const PhaseModel& pm) { return "main stream " + pm.stream_name(); }

Claim join_claim(const JoinSummary& j) {
  Claim c;
  c.topic = "join";
  c.subject = "counter pass " + std::to_string(j.ordinal);
  c.claim = std::to_string(j.matched) + " of " + std::to_string(j.counter_dispatches) +
            " counter dispatches mapped to trace dispatches (" + j.method + ")";
  c.evidence = join_check_text(j) + "; " + std::to_string(j.unmatched_counter) + " counter and " +
               std::to_string(j.unmatched_trace) + " trace dispatches unmatched";
  if (j.method == "by_id")
    c.alternatives = "another run: lost, same Dispatch_Ids, pids and times";
  else if (j.method == "offset")
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
  else if (j.method == "aligned")
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
    out.push_back({std::string(to_string(f.topic)), subject, f.claim,
                   std::string(to_string(f.confidence)), f.evidence, alternatives_of(f.topic, pm),
                   ""});
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
