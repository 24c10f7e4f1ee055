// Counter-pass planning: requested counters + a hardware target -> the fewest rocprofv3 passes.
// Pure functions, no I/O.
//
// Model (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/aql/
// packet_construct.cpp can_collect() and counters/core.cpp; ROCm/aqlprofile src/core/counters.cpp):
//   - An item is a requested counter with its hardware events (Target::events_of). A derived
//     counter is atomic: all its events in one pass. A pin (user "these together") merges its
//     counters into one atomic item.
//   - A pass holds at most counters_per_pass distinct events of each block, and at most
//     Target::accumulate_per_pass() accumulate-flagged events. Events are deduplicated within a
//     pass: TCC_HIT, TCC_HIT_sum and TCC_HIT[n] cost one TCC slot together.
//   - Objective, lexicographic: fewest passes; then fewest splits of soft groups (the counters a
//     metric formula needs, so ratios come from one pass); then balance (sum of squared events
//     per pass).
// Search: a greedy upper bound, then for k = lower bound, lower bound + 1, ... a DSatur-style
// depth-first search for a k-pass packing (most constrained item first, symmetric empty passes
// tried once, per-block capacity pruning). A packing of k = lower bound proves optimality; an
// exhausted search for k proves k infeasible. The search has a node budget (deterministic) and a
// wall-clock cap (only a backstop on slow machines); when either stops it, the best packing so far
// is returned with time_capped set and optimal unset. Secondary objectives are improved by local
// moves that keep the pass count (heuristic, not proved).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/hw/target.hpp"

namespace kprof::plan {

struct Requested {
  std::string name;
  std::optional<SourcePos> pos;  // where the user wrote it (runbook line, metric set line)
};

struct Pin {
  std::vector<std::string> names;  // collected in the same pass (hard)
  std::optional<SourcePos> pos;
};

struct SoftGroup {
  std::string name;                // "roofline.hbm_read_bytes"
  std::vector<std::string> names;  // preferably in one pass
};

struct Request {
  std::vector<Requested> counters;  // order matters only for output order and the baseline
  std::vector<Pin> pins;
  std::vector<SoftGroup> groups;
};

struct PlanOptions {
  std::uint64_t node_budget = 2'000'000;
  std::chrono::milliseconds time_cap{10'000};
};

struct Pass {
  std::vector<std::string> counters;  // requested names, in request order
  std::vector<hw::Event> events;      // distinct hardware events, sorted
  std::map<std::string, int> used;    // block -> events
};

struct Plan {
  std::vector<Pass> passes;
  int lower_bound = 0;             // max over blocks of ceil(events / limit), and accumulate
  std::string lower_bound_reason;  // "SQ 96 events / 8 per pass"
  bool optimal = false;            // pass count proved minimal
  bool time_capped = false;        // search stopped by the node budget or time cap
  int proved_at_least = 0;         // largest k proved necessary (>= lower_bound)
  int split_groups = 0;            // soft groups whose counters span more than one pass
  std::uint64_t nodes = 0;         // search nodes visited
  int distinct_events = 0;
};

// Throws Error(input): unknown counter (at its pos, three nearest names), a counter or pin that
// cannot fit one pass even alone (naming the block and its limit).
Plan plan_passes(const hw::Target& target, const Request& request, const PlanOptions& options = {});

// rocprofiler-compute's policy (projects/rocprofiler-compute/src/
// rocprof_compute_profile/profiler_base.py, perfmon_coalesce): every item with an
// accumulate event opens its own pass first; every other item goes, in request order, into the
// first pass with room, a new one when none has. Slots are counted its way: per-channel names
// TCC_X[n] take a slot separate from TCC_X / TCC_X_sum. Used as the benchmark baseline.
Plan first_fit_plan(const hw::Target& target, const Request& request);

// Checks a plan against the target: every pass fits, every requested counter is in exactly one
// pass, each pin is whole. Returns the problems found (empty = valid).
std::vector<std::string> validate_plan(const hw::Target& target, const Request& request,
                                       const Plan& plan);

// "SQ 8/8 TCC 3/4" in the target's block order.
std::string occupancy_text(const hw::Target& target, const Pass& pass);

}  // namespace kprof::plan
