// Every structural statement kprof makes about a run, as one object: what it is about, what it
// says, how sure it is and why. The step detection (phases.hpp) and the cross-pass join
// (join.hpp) establish things or say why they could not; a Claim puts each in one form for
// `kprof query DB claims`, the explanation, the HTML report and the Perfetto export.
//
// Confidence is the detector's own, from counted evidence (repetitions seen, steps that agree in
// names and grids, dispatches explained, host gaps against the in-step and rival ones, other
// candidates within a margin: phases.hpp step_confidence and layer_confidence), never from one
// rate: "unknown" when the evidence does not decide, with the reason. The alternatives are the
// runner-up candidates the detector weighed (the next-best period with its match, the rival
// boundary with its gaps, the next layer count with why it failed). A join mapping is high only
// when every pair is proven (same invocation, or a constant Dispatch_Id offset under which every
// pair has the same kernel and launch shape), medium when aligned by launch order and passing its
// self-check, low otherwise.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis {

struct Claim {
  std::string topic;         // windows, steps, prefill, decode, layers, join
  std::string subject;       // what it is about: "main stream pid 1, agent 2", "counter pass 1"
  std::string claim;         // the statement; empty when unknown
  std::string confidence;    // high, medium, low or unknown
  std::string evidence;      // the counts and tests that support it
  std::string alternatives;  // what else was considered and why it lost
  std::string reason;        // why it is unknown (empty otherwise)
};

// The claims of a run's phase model and its counter joins, in reading order.
std::vector<Claim> claims_of(const PhaseModel& pm, const std::vector<JoinSummary>& joins);

// The join-mapping claims alone (one per counter pass), for outputs without the phase model.
std::vector<Claim> join_claims(const std::vector<JoinSummary>& joins);

// "steps: 63 repeated steps of 847 dispatches [high]" / "layers: unknown: <reason>".
std::string claim_line(const Claim& c);

}  // namespace kprof::analysis
