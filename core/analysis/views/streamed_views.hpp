// Views computed without the trace model: one streamed pass over the trace pass's narrow rows
// (dispatch_rows), summed per launch configuration (kernel_variants: a few hundred per pass), or
// aggregated by SQLite from the stored join, so their memory does not depend on the trace's
// length. Each gives the same table as
// the QueryContext view of the same name (SimCapture tests hold them equal); a view that needs
// phases (--phase, by_phase) is only built on the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/structure/explain.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/analysis/structure/ranks.hpp"
#include "core/analysis/views/table.hpp"

namespace kprof::analysis {

// One kernel_variants row of the trace pass with its launches' durations.
struct StoredVariant {
  KernelShape shape;  // shape.name unused: the name is `name`
  std::string name;
  DurationStats stats;  // count and total_ns (min and max are not summed)
};

// Every launch configuration of the trace pass that launched, in kernel_variants id order.
// Throws no_dispatches()'s error when the pass has no rows.
std::vector<StoredVariant> trace_variant_sums(store::CaptureDb& db, const RunTrace& rt);

// One family's line of `families`: its launches and the distinct variants and names they ran.
struct FamilySums {
  DurationStats s;
  size_t variants = 0, names = 0;
};
// `families` from its per-family sums (by family name), whichever way they were computed: sorted
// by summed duration, shares of the sum over all rows. Sets the columns and rows of `t`.
Table families_table(Table t, const std::map<std::string, FamilySums>& by_family);

// `families` of the whole trace (no --family, --phase).
Table streamed_families(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules);

// `counters` of the whole trace from the stored join (analysis_join: one GROUP BY in SQLite per
// counter pass), when that join is current for every counter pass of the run, as
// QuerySession::open would judge it (joins_current: same dispatch counts, same trace pass). Else
// nullopt: the join must first be computed on the trace model. `use_unreliable`: --force-join.
std::optional<Table> streamed_counters(store::CaptureDb& db, const RunTrace& rt,
                                       bool use_unreliable);

// `ranks`: the trace pass rank by rank (structure/ranks.hpp: one rank's dispatches at a time, kept
// per collective only), or the one-line answer of a pass with one rank. `structured` (machine
// formats): also each rank's exposed time as a share of its span (exposed_span_pct).
Table ranks_table(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                  bool structured = false);
// What a drawing of the ranks shows: one lane per rank ("rank 1 (GPU agent 2)") with its kernels
// around the matched collective of the widest arrival skew (RankAnalysis::widest). nullopt for a
// pass with fewer than two ranks or no matched collective.
struct RankLanes {
  std::vector<std::string> lanes;
  std::vector<RankSlice> slices;
  int64_t from_ns = 0, to_ns = 0;
  int64_t ordinal = 0, matched = 0, skew_ns = 0;  // the collective drawn: k of n, its skew
};
std::optional<RankLanes> rank_lanes_of(store::CaptureDb& db, const RunTrace& rt,
                                       const FamilyRules& rules);

// `explain`'s line on a trace pass with several ranks: how many, their GPU agents, collectives per
// rank and, where the main stream's steps and layers divide them, per step and layer ("4 ranks
// (GPU agents 1-4), collectives per rank 96, 96, 96, 96: each decode step = 4 layers × 2
// all-reduces (...)"). Empty for one rank.
std::vector<std::string> rank_structure_lines(store::CaptureDb& db, const Capture& cap,
                                              const TraceModel& model);

// Views of a run without a kernel trace (its trace pass holds no dispatches, or it has none):
// `top` from rocprofv3's kernel statistics (kernel_stats.csv) of the trace pass, and `counters`
// from the counter passes' own rows, not joined. nullopt when the run holds no such rows.
std::optional<Table> stats_top(store::CaptureDb& db, const store::RunInfo& run,
                               const store::PassInfo& trace, const FamilyRules& rules,
                               size_t limit);
std::optional<Table> untraced_counters(store::CaptureDb& db, const store::RunInfo& run,
                                       const std::vector<store::PassInfo>& passes, size_t limit);

}  // namespace kprof::analysis
