#include "core/analysis/structure/ranks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "core/store/analysis_reads.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::analysis {

namespace {

struct Interval {
  int64_t start = 0, end = 0;
};

// What the sweep keeps of one rank's collectives: each one's start and family (by index into the
// pass's collective families), for matching across ranks.
struct RankCollectives {
  std::vector<int64_t> starts, ends;
  std::vector<uint16_t> family;
};

// The sweep over one rank's dispatches in start order. Three unions are kept as they grow: every
// kernel (busy), the non-collective kernels (compute: only its current merged interval) and the
// collectives (every merged interval, O(collectives)). A compute interval is final once a later
// compute kernel starts after its end; then its overlap with the collective union is added to
// `covered`. That overlap is final too: a collective seen later starts at or after that later
// kernel, so it only adds collective time after the compute interval's end.
class Sweep {
 public:
  void add(int64_t start, int64_t end, bool collective) {
    end = std::max(end, start);  // as Dispatch::duration_ns: an end before the start counts 0
    if (m_kernels++ == 0) m_first = start;
    m_last = std::max(m_last, end);
    merge(m_busy, m_busy_ns, m_has_busy, start, end);
    if (collective) {
      if (!m_coll.empty() && start <= m_coll.back().end)
        m_coll.back().end = std::max(m_coll.back().end, end);
      else
        m_coll.push_back({start, end});
      return;
    }
    if (m_has_compute && start <= m_compute.end) {
      m_compute.end = std::max(m_compute.end, end);
      return;
    }
    if (m_has_compute) close_compute();
    m_compute = {start, end};
    m_has_compute = true;
  }

  void finish(RankFigures& f) {
    if (m_has_compute) close_compute();
    if (m_has_busy) m_busy_ns += m_busy.end - m_busy.start;
    f.kernels = m_kernels;
    f.first_start_ns = m_first;
    f.last_end_ns = m_last;
    f.busy_ns = m_busy_ns;
    f.compute_ns = m_compute_ns;
    f.collective_ns = 0;
    for (const auto& c : m_coll) f.collective_ns += c.end - c.start;
    f.exposed_ns = f.collective_ns - m_covered;
  }

 private:
  static void merge(Interval& cur, int64_t& total, bool& has, int64_t start, int64_t end) {
    if (has && start <= cur.end) {
      cur.end = std::max(cur.end, end);
      return;
    }
    if (has) total += cur.end - cur.start;
    cur = {start, end};
    has = true;
  }
  void close_compute() {
    const auto [a, b] = m_compute;
    m_compute_ns += b - a;
    while (m_next < m_coll.size() && m_coll[m_next].end <= a) ++m_next;
    for (size_t k = m_next; k < m_coll.size() && m_coll[k].start < b; ++k)
      m_covered += std::max<int64_t>(0, std::min(m_coll[k].end, b) - std::max(m_coll[k].start, a));
  }

  int64_t m_kernels = 0, m_first = 0, m_last = std::numeric_limits<int64_t>::min();
  Interval m_busy, m_compute;
  bool m_has_busy = false, m_has_compute = false;
  int64_t m_busy_ns = 0, m_compute_ns = 0, m_covered = 0;
  std::vector<Interval> m_coll;
  size_t m_next = 0;  // the first collective interval that may still meet a compute interval
};

// Per kernel_variants id of the pass: the index of its collective family in `names`, or -1.
std::unordered_map<int64_t, int> collective_variants(store::CaptureDb& db, int64_t pass_id,
                                                     const FamilyRules& families,
                                                     const CollectiveRules& collectives,
                                                     RankAnalysis& out,
                                                     std::vector<std::string>& names) {
  std::unordered_map<int64_t, int> by_variant;
  std::unordered_map<std::string, int> by_name;  // kernel name -> family index (or -1)
  store::for_each_kernel_variant(db, pass_id, [&](const store::KernelVariant& v) {
    const std::string& kernel = v.shape.kernel_name;
    auto it = by_name.find(kernel);
    if (it == by_name.end()) {
      const std::string family = families.family_of(kernel);
      int index = -1;
      if (const auto kind = collectives.kind_of_kernel(kernel, family)) {
        const auto at = std::find(names.begin(), names.end(), family);
        index = static_cast<int>(at - names.begin());
        if (at == names.end()) {
          names.push_back(family);
          out.collective_families[family].kind = *kind;
        }
      }
      it = by_name.emplace(kernel, index).first;
    }
    by_variant[v.id] = it->second;
  });
  return by_variant;
}

// Matches the k-th collective of every rank and fills the skew, the wait and each rank's last
// arrivals.
void match_collectives(const std::vector<RankCollectives>& per_rank, RankAnalysis& out) {
  size_t fewest = std::numeric_limits<size_t>::max(), most = 0;
  for (const auto& r : per_rank) {
    fewest = std::min(fewest, r.starts.size());
    most = std::max(most, r.starts.size());
  }
  out.counts_equal = fewest == most;
  out.matched = static_cast<int64_t>(fewest);
  if (per_rank.size() < 2) return;
  for (size_t k = 0; k < fewest; ++k) {
    size_t first = 0, last = 0;
    bool same = true;
    for (size_t r = 1; r < per_rank.size(); ++r) {
      if (per_rank[r].starts[k] < per_rank[first].starts[k]) first = r;
      if (per_rank[r].starts[k] > per_rank[last].starts[k]) last = r;  // ties: the lower rank
      same = same && per_rank[r].family[k] == per_rank[0].family[k];
    }
    const int64_t latest = per_rank[last].starts[k];
    int64_t wait = 0;
    for (const auto& r : per_rank) wait += latest - r.starts[k];
    out.skew_ns.push_back(latest - per_rank[first].starts[k]);
    out.wait_ns.push_back(wait);
    if (!same) ++out.family_mismatches;
    ++out.ranks[last].last_arrivals;
    out.ranks[last].wait_caused_ns += wait;
    if (out.widest.ordinal < 0 || out.skew_ns.back() > out.skew_ns[out.widest.ordinal])
      out.widest.ordinal = static_cast<int64_t>(k);
  }
  if (out.widest.ordinal < 0) return;
  const auto k = static_cast<size_t>(out.widest.ordinal);
  out.widest.from_ns = std::numeric_limits<int64_t>::max();
  out.widest.to_ns = std::numeric_limits<int64_t>::min();
  for (size_t r = 0; r < per_rank.size(); ++r) {
    const int64_t from = k ? per_rank[r].ends[k - 1] : out.ranks[r].first_start_ns;
    out.widest.from_ns = std::min(out.widest.from_ns, from);
    out.widest.to_ns = std::max(out.widest.to_ns, per_rank[r].ends[k]);
  }
}

}  // namespace

RankAnalysis analyze_ranks(store::CaptureDb& db, int64_t pass_id, const FamilyRules& families,
                           const CollectiveRules& collectives) {
  RankAnalysis out;
  out.pass_id = pass_id;
  std::vector<std::string> names;
  const auto kind_of_variant = collective_variants(db, pass_id, families, collectives, out, names);
  std::vector<RankCollectives> per_rank;
  for (const auto& rank : store::pass_ranks(db, pass_id)) {
    RankFigures f;
    f.rank = rank;
    Sweep sweep;
    RankCollectives mine;
    store::for_each_rank_timing(
        db, pass_id, rank.pid, rank.agent, [&](const store::DispatchTiming& d) {
          const auto it = kind_of_variant.find(d.variant_id);
          const int family = it == kind_of_variant.end() ? -1 : it->second;
          sweep.add(d.start_ns, d.end_ns, family >= 0);
          if (family < 0) return;
          mine.starts.push_back(d.start_ns);
          mine.ends.push_back(std::max(d.end_ns, d.start_ns));
          mine.family.push_back(static_cast<uint16_t>(family));
          ++out.collective_families[names[static_cast<size_t>(family)]].launches;
        });
    sweep.finish(f);
    f.collectives = static_cast<int64_t>(mine.starts.size());
    out.ranks.push_back(f);
    per_rank.push_back(std::move(mine));
  }
  match_collectives(per_rank, out);
  return out;
}

std::vector<RankSlice> rank_lanes(store::CaptureDb& db, const RankAnalysis& ra,
                                  const FamilyRules& families, const CollectiveRules& collectives,
                                  int64_t from_ns, int64_t to_ns) {
  struct Kind {
    std::string kernel, family;
    bool collective = false;
  };
  std::unordered_map<int64_t, Kind> by_variant;
  store::for_each_kernel_variant(db, ra.pass_id, [&](const store::KernelVariant& v) {
    Kind k{v.shape.kernel_name, families.family_of(v.shape.kernel_name), false};
    k.collective = collectives.kind_of_kernel(k.kernel, k.family).has_value();
    by_variant.emplace(v.id, std::move(k));
  });
  std::vector<RankSlice> out;
  for (size_t r = 0; r < ra.ranks.size(); ++r) {
    const auto& rank = ra.ranks[r].rank;
    store::for_each_rank_timing(
        db, ra.pass_id, rank.pid, rank.agent, [&](const store::DispatchTiming& d) {
          if (d.start_ns >= to_ns || std::max(d.end_ns, d.start_ns) <= from_ns) return;
          const auto it = by_variant.find(d.variant_id);
          if (it == by_variant.end()) return;
          out.push_back({r, d.start_ns, std::max(d.end_ns, d.start_ns), it->second.kernel,
                         it->second.family, it->second.collective});
        });
  }
  return out;
}

SkewStats skew_stats(std::vector<int64_t> values) {
  SkewStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const auto n = static_cast<double>(values.size());
    const auto place = static_cast<size_t>(std::ceil(q * n));
    return values[std::max<size_t>(place, 1) - 1];
  };
  s.mean_ns = static_cast<double>(std::accumulate(values.begin(), values.end(), int64_t{0})) /
              static_cast<double>(values.size());
  s.median_ns = at(0.5);
  s.p95_ns = at(0.95);
  s.max_ns = values.back();
  return s;
}

}  // namespace kprof::analysis
