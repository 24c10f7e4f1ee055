// A tensor-parallel pass, rank by rank: each rank's busy, compute and collective time, the
// collective time no compute of its GPU hid (exposed), and how far apart the ranks arrived at each
// collective. Ranks on one node share one clock (rocprofiler-sdk timestamps are one boot-time
// clock), so their traces are compared without correction.
//
// Memory: one rank at a time, its dispatches read in start order from the store
// (store::for_each_rank_timing) and swept once; what is kept is per collective (its start, and
// the union of collective intervals), never per dispatch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/structure/collectives.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::store {
class CaptureDb;
}

namespace kprof::analysis {

struct RankFigures {
  store::PassRank rank;
  int64_t kernels = 0;
  int64_t first_start_ns = 0, last_end_ns = 0;  // the rank's region: first start to last end
  int64_t busy_ns = 0;                          // union of every kernel's interval
  int64_t compute_ns = 0;                       // union of the non-collective kernels' intervals
  int64_t collective_ns = 0;                    // union of the collective kernels' intervals
  int64_t exposed_ns = 0;  // collective time not overlapped by compute (any queue of the GPU)
  int64_t collectives = 0;
  int64_t last_arrivals = 0;   // matched collectives this rank started last
  int64_t wait_caused_ns = 0;  // at those: the other ranks' summed wait for it
  int64_t span_ns() const { return last_end_ns - first_start_ns; }
};

struct RankAnalysis {
  int64_t pass_id = 0;
  std::vector<RankFigures> ranks;
  // Collectives are matched by their ordinal among each rank's collectives, up to the smallest
  // count; `counts_equal` says whether every rank had as many.
  int64_t matched = 0;
  bool counts_equal = true;
  int64_t family_mismatches = 0;  // matched ordinals whose ranks ran different collective families
  std::vector<int64_t> skew_ns;   // per matched collective: last rank's start - first rank's start
  std::vector<int64_t> wait_ns;   // per matched collective: sum over ranks of (last start - start)
  // Per collective family: its kind and launches over all ranks, by family name.
  struct FamilyCount {
    CollectiveKind kind;
    int64_t launches = 0;
  };
  std::map<std::string, FamilyCount> collective_families;
  // The matched collective of the widest skew (the first of equal ones) and the stretch that
  // shows it: from the earliest end of the collective before it (or the earliest rank's first
  // start) to the latest end of it over the ranks. ordinal -1: nothing matched.
  struct Window {
    int64_t ordinal = -1, from_ns = 0, to_ns = 0;
  } widest;
};

// The ranks of pass `pass_id` (store::pass_ranks) and their figures. A pass with fewer than two
// ranks gives its one rank (or none) and no skew.
RankAnalysis analyze_ranks(store::CaptureDb& db, int64_t pass_id, const FamilyRules& families,
                           const CollectiveRules& collectives);

// One kernel of one rank in a window of time (rank_lanes).
struct RankSlice {
  size_t rank = 0;  // index into the ranks
  int64_t start_ns = 0, end_ns = 0;
  std::string kernel, family;
  bool collective = false;
};
// Every kernel of each rank of `ra` that runs inside (from_ns, to_ns) for some time, read as
// analyze_ranks reads them (one rank at a time, in start order); only those are kept.
std::vector<RankSlice> rank_lanes(store::CaptureDb& db, const RankAnalysis& ra,
                                  const FamilyRules& families, const CollectiveRules& collectives,
                                  int64_t from_ns, int64_t to_ns);

// Order statistics of a skew list (nearest rank: the value at ceil(q*n)-th place), 0 when empty.
struct SkewStats {
  double mean_ns = 0;
  int64_t median_ns = 0, p95_ns = 0, max_ns = 0;
};
SkewStats skew_stats(std::vector<int64_t> values);

}  // namespace kprof::analysis
