// The evidence for a prefill step (see phases.hpp).
#include <unordered_map>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {

namespace {

// Median grid product of each kernel name in [s0, s1).
std::unordered_map<uint32_t, int64_t> grid_by_name(const Detector& det, size_t s0, size_t s1) {
  std::unordered_map<uint32_t, std::vector<int64_t>> all;
  for (size_t i = s0; i < s1; ++i)
    all[det.names[i]].push_back(det.pass.shape(det.order[i]).grid_product());
  std::unordered_map<uint32_t, int64_t> out;
  for (auto& [n, v] : all) out[n] = median_of(v);
  return out;
}

}  // namespace

// A prefill processes the whole prompt: same layers as a decode step, larger grids for most
// kernels. Coming first is required but never enough.
PrefillTest test_prefill(const Detector& det, size_t s0, size_t s1, size_t r0, size_t r1,
                         int step_layers) {
  PrefillTest t;
  const auto cand = grid_by_name(det, s0, s1);
  const auto ref = grid_by_name(det, r0, r1);
  size_t shared = 0, larger = 0, smaller = 0;
  uint32_t example = 0;
  int64_t example_ratio = 0;
  for (const auto& [n, g] : ref) {
    auto it = cand.find(n);
    if (it == cand.end()) continue;
    ++shared;
    if (it->second > g) {
      ++larger;
      const int64_t ratio = g > 0 ? it->second / g : it->second;
      if (ratio > example_ratio) example_ratio = ratio, example = n;
    } else if (it->second < g) {
      ++smaller;
    }
  }
  const double covered = ref.empty() ? 0 : static_cast<double>(shared) / ref.size();
  const bool shape = shared >= 2 && larger * 10 >= shared * 4 && smaller * 4 <= larger;
  const LayerFit lf = detect_layers(det.names.slice(s0, s1));
  const bool layer_match = step_layers > 0 && lf.layers == step_layers;
  const std::string len = num(s1 - s0) + " dispatches";
  if (covered < 0.5) {
    t.evidence = "its " + len + " share only " + num(shared) + " of the " + num(ref.size()) +
                 " kernels of a repeated step";
    return t;
  }
  if (!shape) {
    t.evidence = "of the " + num(shared) + " kernels it shares with a repeated step, " +
                 num(larger) + " launch larger grids and " + num(smaller) +
                 " smaller (a prefill launches larger grids for most of them)";
    return t;
  }
  if (step_layers > 0 && !layer_match) {
    t.evidence = "its " + len + " do not run the repeated steps' " + std::to_string(step_layers) +
                 "-layer structure (" +
                 (lf.layers ? std::to_string(lf.layers) + " layers found" : "no layers found") +
                 ")";
    return t;
  }
  t.established = true;
  const auto ex = cand.find(example);
  const auto rx = ref.find(example);
  t.evidence =
      "it comes first, " +
      (layer_match ? "runs the same " + std::to_string(step_layers) + " layers, " : std::string()) +
      "and " + num(larger) + " of the " + num(shared) +
      " kernels it shares with a repeated step launch larger grids (" + det.name_of(example) +
      ": " + std::to_string(ex->second) + " vs " + std::to_string(rx->second) + " work-items)";
  t.confidence = layer_match ? Confidence::high : Confidence::medium;
  return t;
}

PrefillChoice find_prefill(const Detector& det, const std::vector<Seg>& segs, size_t ref,
                           size_t step_len, int layers) {
  PrefillChoice out;
  size_t i0 = 0;
  while (i0 < segs.size() && segs[i0].window != 0) ++i0;
  std::vector<std::pair<size_t, std::pair<size_t, size_t>>> candidates;  // seg, [s0, s1)
  if (i0 < segs.size() && segs[i0].kind == SegKind::lead &&
      segs[i0].end - segs[i0].begin >= std::max<size_t>(1, step_len / 4)) {
    const auto& L = segs[i0];
    candidates.push_back({i0, {L.begin, L.end}});
    // A long lead may hold set-up before the prefill: the part after its largest host gap.
    if (det.timed && L.end - L.begin > step_len + step_len / 4) {
      size_t at = L.begin;
      for (size_t y = L.begin + 1; y < L.end; ++y)
        if (det.gap[y] > det.gap[at] || at == L.begin) at = y;
      if (at > L.begin && L.end - at >= step_len / 4) candidates.push_back({i0, {at, L.end}});
    }
  }
  size_t first_step = i0;
  while (first_step < segs.size() && segs[first_step].window == 0 &&
         segs[first_step].kind != SegKind::step)
    ++first_step;
  if (first_step < segs.size() && segs[first_step].window == 0 &&
      segs[first_step].kind == SegKind::step && segs[first_step].begin != ref)
    candidates.push_back({first_step, {segs[first_step].begin, segs[first_step].end}});
  // The reference of comparison: a regular step other than the candidate.
  for (const auto& [si, range] : candidates) {
    size_t r = ref;
    if (range.first <= r && r < range.second) continue;
    const PrefillTest t = test_prefill(det, range.first, range.second, r, r + step_len, layers);
    if (t.established) {
      out.seg = si;
      if (range.first != segs[si].begin) out.split = range.first;
      out.why = t.evidence;
      out.confidence = t.confidence;
      break;
    }
    if (out.why.empty()) out.why = t.evidence;
    out.rejected.push_back({"Dispatch_Id " + std::to_string(det.order[range.first].dispatch_id) +
                                "-" + std::to_string(det.order[range.second - 1].dispatch_id) +
                                (segs[si].kind == SegKind::step ? " (the first step)" : ""),
                            t.evidence});
  }
  return out;
}

}  // namespace kprof::analysis::detail
