// Cutting the main stream: windows at missing Dispatch_Ids, host-gap statistics, and steps
// within a window (see phases.hpp for the method).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>

#include "core/analysis/structure/align.hpp"
#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {

WindowScan find_windows(const MainStream& order, const SpillVector<int64_t>& process_ids) {
  // Split where ids of this process are missing. A trace with holes everywhere (a kernel filter
  // drops some kernels from every step) is not windowed: then only holes far larger than the
  // typical one split it.
  WindowScan out;
  const size_t n = order.size();
  if (n == 0) return out;
  // rank(id): ids of the process below `id`; both lists are sorted, so ranks of the stream's ids
  // in order are found by one forward walk.
  size_t below = 0;
  auto rank = [&](int64_t id) -> int64_t {
    if (process_ids.empty()) return 0;
    while (below < process_ids.size() && process_ids[below] < id) ++below;
    return static_cast<int64_t>(below);
  };
  // Holes, one at a time (a kernel filter makes one per few dispatches): counted by size for the
  // median, then found again when windows are cut.
  std::map<int64_t, size_t> hole_sizes;
  size_t hole_count = 0;
  auto for_each_hole = [&](const std::function<void(size_t, int64_t)>& f) {
    below = 0;
    int64_t a = order[0].dispatch_id, rank_a = rank(a);
    for (size_t i = 1; i < n; ++i) {
      const int64_t b = order[i].dispatch_id, rank_b = rank(b);
      const int64_t between = process_ids.empty() ? 0 : rank_b - rank_a - 1;
      const int64_t missing = b - a - 1 - between;
      if (missing > 0) f(i, missing);
      a = b;
      rank_a = rank_b;
    }
  };
  for_each_hole([&](size_t, int64_t missing) {
    ++hole_sizes[missing];
    ++hole_count;
  });
  int64_t min_split = 1;
  if (hole_count > 16 + n / 1000) {
    // The median hole, as median_of takes it: the one at index count / 2 in sorted order.
    size_t seen = 0;
    for (const auto& [size, count] : hole_sizes) {
      seen += count;
      if (seen > hole_count / 2) {
        min_split = std::max<int64_t>(16, 8 * size);
        break;
      }
    }
  }
  Window w;
  w.begin = 0;
  w.first_id = order[0].dispatch_id;
  below = 0;
  w.missing_before = std::max<int64_t>(0, w.first_id - 1 - rank(w.first_id));
  for_each_hole([&](size_t i, int64_t missing) {
    if (missing < min_split) {
      out.scattered_missing += missing;
      ++out.scattered_holes;
      return;
    }
    const Dispatch before = order[i - 1], after = order[i];
    w.end = i;
    w.last_id = before.dispatch_id;
    out.windows.push_back(w);
    w = Window{};
    w.begin = i;
    w.first_id = after.dispatch_id;
    w.missing_before = missing;
    w.gap_before_ns = std::max<int64_t>(0, after.start_ns - before.end_ns);
  });
  w.end = n;
  w.last_id = order[n - 1].dispatch_id;
  out.windows.push_back(w);
  return out;
}

// The offset in [from, from + period) whose host gaps one period apart are largest (upper
// quantile), with that value; -1 when no offset has `min_samples` gaps to compare. The gaps of an
// offset are one per period, so the offsets are taken in batches that hold at most
// k_gap_values gaps together, each batch in one forward pass over [from, e): bounded memory
// whatever the trace's length, and the same values in the same order per offset as one offset at
// a time. `rivals` (optional) receives the offsets with the largest values, largest first: the
// candidates the best one was preferred to.
struct OffsetGap {
  size_t offset = 0;
  int64_t gap = -1;
};
constexpr size_t k_rivals_kept = 64;
std::pair<size_t, int64_t> best_offset(const Detector& det, size_t from, size_t e, size_t period,
                                       size_t min_samples,
                                       std::vector<OffsetGap>* rivals = nullptr) {
  constexpr size_t k_gap_values = size_t{1} << 20;  // 8 MiB of gaps
  int64_t best = -1;
  size_t at = from;
  const size_t end_x = std::min(e, from + period);
  const size_t per_offset = (e - from) / period + 1;
  const size_t batch = std::max<size_t>(1, k_gap_values / per_offset);
  std::vector<std::vector<int64_t>> g;
  auto by_gap = [](const OffsetGap& a, const OffsetGap& b) { return a.gap > b.gap; };
  for (size_t x0 = from; x0 < end_x; x0 += batch) {
    const size_t x1 = std::min(end_x, x0 + batch);
    g.assign(x1 - x0, {});
    for (auto& v : g) v.reserve(per_offset);  // at most k_gap_values + batch, never doubled
    for (size_t y0 = x0; y0 < e; y0 += period)
      for (size_t y = y0; y < std::min(e, y0 + (x1 - x0)); ++y)
        if (const int64_t gy = det.gap[y]; gy >= 0) g[y - y0].push_back(gy);
    for (size_t x = x0; x < x1; ++x) {
      if (g[x - x0].size() < min_samples) continue;
      const int64_t m = upper_quantile(std::move(g[x - x0]));
      if (m > best) best = m, at = x;
      if (rivals) {
        // A bounded min-heap of the largest: the offsets that come closest to the best.
        rivals->push_back({x, m});
        std::push_heap(rivals->begin(), rivals->end(), by_gap);
        if (rivals->size() > k_rivals_kept) {
          std::pop_heap(rivals->begin(), rivals->end(), by_gap);
          rivals->pop_back();
        }
      }
    }
  }
  if (rivals) std::sort_heap(rivals->begin(), rivals->end(), by_gap);
  return {at, best};
}

GapStats gap_stats(const Detector& det, size_t period, size_t window_begin, size_t window_end) {
  GapStats s;
  if (!det.timed) {
    s.marks_steps = true;  // nothing to check: boundaries fall on period multiples
    return s;
  }
  if (window_end - window_begin < 2 * period) return s;  // under two periods: nothing to compare
  std::vector<OffsetGap> rivals;
  const auto [c0, best] = best_offset(det, window_begin, window_end, period, 2, &rivals);
  s.between = static_cast<double>(std::max<int64_t>(best, 0));
  s.offset = (c0 - window_begin) % period;
  // The rival boundary: the largest gaps at an offset that is not the best one shifted by a few
  // kernels (a step with kernels added or missing moves its later boundaries by as many). Gaps as
  // large there mean the host stops at several places of each repetition (after every layer, say):
  // they mark smaller units inside it, not its boundaries.
  const size_t near = std::max<size_t>(2, period / 16);
  auto dist = [&](size_t a, size_t b) {
    const size_t d = a > b ? a - b : b - a;
    return std::min(d, period - d);
  };
  std::vector<size_t> places;  // offsets of the close rivals counted, each its own stop
  for (const auto& r : rivals) {
    if (dist(r.offset, c0) <= near) continue;
    const double g = static_cast<double>(std::max<int64_t>(r.gap, 0));
    if (s.rival_distance == 0) {
      s.rival = g;
      s.rival_offset = (r.offset - window_begin) % period;
      s.rival_distance = dist(r.offset, c0);
    }
    if (s.between > 0 && s.between < 3 * g &&
        std::none_of(places.begin(), places.end(),
                     [&](size_t o) { return dist(r.offset, o) <= near; }))
      places.push_back(r.offset);
  }
  s.rival_places = places.size();
  std::vector<int64_t> inside;
  const size_t stride = std::max<size_t>(1, (window_end - window_begin) / 200000);
  for (size_t y = window_begin + 1; y < window_end; y += stride)
    if ((y + period - c0 % period) % period != 0 && det.gap[y] >= 0) inside.push_back(det.gap[y]);
  s.inside = static_cast<double>(median_of(inside));
  // A close rival does not refuse the steps here: whether the repetition is a loop or a block of
  // layers depends on how often it repeats (weighed by the caller); it lowers their confidence.
  s.marks_steps = s.between > 0 && s.between >= 3 * std::max(s.inside, 1.0);
  s.threshold = static_cast<int64_t>(std::sqrt(std::max(s.between, 1.0) * std::max(s.inside, 1.0)));
  return s;
}

namespace {

// The first position of [b, e) whose period-long stretch repeats one period later (>= 80%), else
// the one that repeats best: where the repetition starts. Short windows (under two periods)
// start at their first dispatch.
size_t repetition_start(const SpillVector<uint32_t>& names, size_t b, size_t e, size_t period) {
  if (e - b < 2 * period) return b;
  size_t window_sum = 0, best_sum = 0, best_r = b;
  for (size_t i = b; i + period < e; ++i) {
    window_sum += names[i] == names[i + period];
    if (i >= b + period) window_sum -= names[i - period] == names[i];
    if (i + 1 >= b + period) {
      const size_t start = i + 1 - period;
      if (window_sum > best_sum) best_sum = window_sum, best_r = start;
      if (window_sum * 10 >= period * 8) return start;
    }
  }
  return best_r;
}

}  // namespace

std::vector<Seg> cut_window(const Detector& det, size_t b, size_t e, size_t period,
                            int64_t threshold, int window, size_t ref_begin, bool ref_starts_run) {
  const auto& names = det.names;
  const auto& gap = det.gap;
  std::vector<Seg> out;
  const size_t tol = std::max<size_t>(1, period / 4);
  const size_t r0 = repetition_start(names, b, e, period);
  // A boundary: the reference step's start when this window holds it after a host gap (the start
  // of the longest run of repetitions); otherwise the position in [r0, r0 + period) whose host gaps
  // one period apart are largest, moved on by whole periods to the first such position with a gap
  // that marks a boundary (warm-up before the steps has none there, and a cut started inside it
  // would leave every step after it in one lead). Untimed traces cut at r0.
  size_t c0 = r0;
  if (det.timed && ref_starts_run && b < ref_begin && ref_begin < e &&
      gap[ref_begin] >= threshold) {
    c0 = ref_begin;
  } else if (det.timed) {
    c0 = best_offset(det, r0, e, period, 1).first;
    for (size_t y = c0; y < e; y += period)
      if (gap[y] >= threshold) {
        c0 = y;
        break;
      }
  }
  // A boundary near `nominal` in [lo, hi]: the host gap >= threshold closest to it, within a
  // quarter period. The window's own ends b and e count as boundaries (nothing was traced beyond
  // them), so a step that fills the rest of a window exactly ends there.
  // A window's ends close a step only at exactly one period: a step cut by the window boundary is
  // partial, not irregular.
  auto boundary_near = [&](size_t nominal, size_t lo, size_t hi) -> std::optional<size_t> {
    auto is_boundary = [&](size_t y) {
      if (y == b || y == e) return y == nominal;
      return !det.timed || gap[y] >= threshold;
    };
    for (size_t dist = 0; dist <= tol; ++dist) {
      std::optional<size_t> found;
      for (int sign : {0, 1}) {
        if (dist == 0 && sign) continue;
        if (sign == 0 && dist > nominal) continue;
        const size_t y = sign ? nominal + dist : nominal - dist;
        if (y < lo || y > hi || !is_boundary(y)) continue;
        if (!det.timed && y != nominal && y != b && y != e) continue;
        const int64_t gy = y == b || y == e ? INT64_MAX : gap[y];
        const int64_t gf = !found ? -1 : *found == b || *found == e ? INT64_MAX : gap[*found];
        if (gy > gf) found = y;
      }
      if (found) return found;
    }
    return std::nullopt;
  };
  // A step of the period's length needs the same kernels (its order is checked when phases are
  // assigned: a step that does not match is irregular). A step of another length is a step of this
  // loop only if it is the regular sequence with a few kernels added or missing: the longest common
  // subsequence covers 90% of the longer. Otherwise it is other work that happens to sit between
  // host gaps (a different loop with the same kernels), and the steps end before it. The multiset
  // bound is checked first: the LCS can never exceed it.
  std::vector<uint32_t> ref_seq;  // the reference step's names, copied when first needed
  auto similar_to_ref = [&](size_t s0, size_t s1) {
    const double multiset = multiset_similarity(names, ref_begin, ref_begin + period, s0, s1);
    if (multiset < 0.5) return false;
    if (s1 - s0 == period) return true;
    if (multiset < 0.9) return false;
    if (ref_seq.empty()) ref_seq = names.slice(ref_begin, ref_begin + period);
    const std::vector<uint32_t> seg_seq = names.slice(s0, s1);
    return static_cast<double>(lcs_pairs(ref_seq, seg_seq).size()) >=
           0.9 * static_cast<double>(std::max(period, s1 - s0));
  };
  if (det.timed && (c0 == b || gap[c0] < threshold)) {
    // No boundary at the best offset: maybe the repetition lacks gaps in this window.
    if (c0 != b) {
      out.push_back({b, e, SegKind::lead, window});
      return out;
    }
  }
  // Forward from c0.
  std::vector<Seg> forward;
  size_t cur = c0;
  // A step whose expected end lies beyond the window is cut by it: the rest is a trail.
  while (cur + period <= e) {
    auto y = boundary_near(cur + period, cur + 1, e);
    if (!y || !similar_to_ref(cur, *y)) break;
    forward.push_back({cur, *y, SegKind::step, window});
    cur = *y;
  }
  // Backward from c0: whole steps before it (a window that starts on a step boundary).
  std::vector<Seg> backward;
  size_t first = c0;
  while (first >= b + period) {
    auto y = boundary_near(first - period, b, first - 1);
    if (!y || !similar_to_ref(*y, first)) break;
    backward.push_back({*y, first, SegKind::step, window});
    first = *y;
  }
  if (first > b) out.push_back({b, first, SegKind::lead, window});
  for (auto it = backward.rbegin(); it != backward.rend(); ++it) out.push_back(*it);
  for (const auto& s : forward) out.push_back(s);
  if (cur < e) out.push_back({cur, e, SegKind::trail, window});
  return out;
}

}  // namespace kprof::analysis::detail
