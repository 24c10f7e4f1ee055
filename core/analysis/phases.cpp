#include "core/analysis/phases.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace kprof::analysis {
namespace {

// Share of positions i in [lo, hi) with s[i] == s[i + p].
double match_rate(const std::vector<uint32_t>& s, size_t p, size_t lo, size_t hi) {
  hi = std::min(hi, s.size() > p ? s.size() - p : 0);
  if (hi <= lo) return 0;
  size_t same = 0;
  for (size_t i = lo; i < hi; ++i) same += s[i] == s[i + p];
  return static_cast<double>(same) / static_cast<double>(hi - lo);
}

// Multiset difference of launch identities of two steps: 0 identical, 1 disjoint.
double identity_difference(const std::vector<uint64_t>& ids, const Step& a, const Step& b) {
  std::unordered_map<uint64_t, long> count;
  for (size_t i = a.begin; i < a.end; ++i) ++count[ids[i]];
  size_t common = 0;
  for (size_t i = b.begin; i < b.end; ++i) {
    auto it = count.find(ids[i]);
    if (it != count.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  const size_t larger = std::max(a.end - a.begin, b.end - b.begin);
  return larger ? 1.0 - static_cast<double>(common) / static_cast<double>(larger) : 0.0;
}

}  // namespace

size_t detect_period(const std::vector<uint32_t>& s, size_t k) {
  const size_t n = s.size();
  if (n < 8) return 0;
  if (k == 0) k = std::clamp<size_t>(n / 16, 4, 32);
  if (k >= n) return 0;
  // Polynomial rolling hash of each k-gram; distance to the previous occurrence of the same
  // k-gram. (A hash collision only adds a spurious candidate, which the match-rate check drops.)
  const uint64_t base = 1000003;
  uint64_t pow_k = 1;
  for (size_t i = 0; i < k; ++i) pow_k *= base;
  std::unordered_map<uint64_t, size_t> last;
  std::unordered_map<size_t, size_t> hist;
  last.reserve(n);
  uint64_t h = 0;
  for (size_t i = 0; i < n; ++i) {
    h = h * base + s[i] + 1;
    if (i >= k) h -= pow_k * (s[i - k] + 1);
    if (i + 1 < k) continue;
    const size_t start = i + 1 - k;
    auto [it, inserted] = last.try_emplace(h, start);
    if (!inserted) {
      ++hist[start - it->second];
      it->second = start;
    }
  }
  std::vector<std::pair<size_t, size_t>> cand(hist.begin(), hist.end());  // (distance, count)
  std::sort(cand.begin(), cand.end(), [](auto& a, auto& b) { return a.first > b.first; });
  int evaluated = 0;
  for (auto [d, c] : cand) {
    if (d < 2 || d * 2 > n || c < k) continue;
    if (++evaluated > 64) break;
    if (match_rate(s, d, 0, n) >= 0.5) return d;
  }
  return 0;
}

std::pair<int, size_t> detect_layers(const std::vector<uint32_t>& t) {
  const size_t m = t.size();
  std::unordered_map<uint32_t, std::vector<size_t>> pos;
  for (size_t i = 0; i < m; ++i) pos[t[i]].push_back(i);
  int best_layers = 0;
  size_t best_period = 0;
  for (const auto& [name, p] : pos) {
    if (p.size() < 2) continue;
    std::vector<size_t> dist;
    for (size_t i = 1; i < p.size(); ++i) dist.push_back(p[i] - p[i - 1]);
    std::vector<size_t> sorted = dist;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const size_t d = sorted[sorted.size() / 2];
    if (d < 2) continue;  // back-to-back launches are not a layer structure
    const double tol = 0.15 * static_cast<double>(d) + 0.5;
    bool regular = true;
    for (size_t x : dist)
      regular &= std::abs(static_cast<double>(x) - static_cast<double>(d)) <= tol;
    if (!regular) continue;
    if (p.size() * d * 2 < m) continue;  // covers less than half the step
    const int layers = static_cast<int>(p.size());
    if (layers < best_layers || (layers == best_layers && d >= best_period)) continue;
    if (match_rate(t, d, p.front(), p.back()) < 0.5) continue;
    best_layers = layers;
    best_period = d;
  }
  return {best_layers, best_period};
}

PhaseModel detect_phases(const PassData& trace) {
  std::map<std::pair<int64_t, int64_t>, std::vector<const Dispatch*>> streams;
  for (const auto& d : trace.dispatches) streams[{d.pid, d.agent}].push_back(&d);
  const std::vector<const Dispatch*>* main = nullptr;
  for (const auto& [key, v] : streams)
    if (!main || v.size() > main->size()) main = &v;
  std::vector<const Dispatch*> order = main ? *main : std::vector<const Dispatch*>{};
  std::sort(order.begin(), order.end(),
            [](const Dispatch* a, const Dispatch* b) { return a->dispatch_id < b->dispatch_id; });
  return detect_phases(std::move(order));
}

PhaseModel detect_phases(std::vector<const Dispatch*> order) {
  PhaseModel pm;
  pm.order = std::move(order);
  const size_t n = pm.order.size();
  if (n == 0) return pm;
  pm.main_pid = pm.order[0]->pid;
  pm.main_agent = pm.order[0]->agent;

  std::vector<uint32_t> names(n);
  std::vector<uint64_t> ids(n);
  std::vector<int64_t> gap(n, 0);
  {
    // Launch identity (name, grid, workgroup) packed into one hash key; a collision would only
    // merge two identities in the prefill test, never change a step boundary.
    std::unordered_map<uint64_t, uint64_t> intern;
    for (size_t i = 0; i < n; ++i) {
      const auto* d = pm.order[i];
      names[i] = d->name;
      const uint64_t key = (static_cast<uint64_t>(d->name) * 0x9E3779B97F4A7C15ull) ^
                           (static_cast<uint64_t>(d->grid_product()) * 0xC2B2AE3D27D4EB4Full) ^
                           static_cast<uint64_t>(d->wg_product());
      ids[i] = intern.try_emplace(key, intern.size()).first->second;
      if (i > 0) gap[i] = std::max<int64_t>(0, d->start_ns - pm.order[i - 1]->end_ns);
    }
  }
  const bool timed = std::any_of(gap.begin(), gap.end(), [](int64_t g) { return g > 0; });

  const size_t P = detect_period(names);
  pm.step_period = P;
  std::vector<size_t> cuts;
  if (P == 0) {
    pm.method = "none";
    pm.steps.push_back({0, n, "decode"});
  } else {
    pm.method = timed ? "period+gaps" : "period";
    // First window of P dispatches that repeats one period later: the periodic region's start.
    std::vector<int> match(n > P ? n - P : 0);
    for (size_t i = 0; i + P < n; ++i) match[i] = names[i] == names[i + P];
    size_t r0 = 0, window = 0, best_window = 0, best_r = 0;
    bool found = false;
    for (size_t i = 0; i < match.size(); ++i) {
      window += match[i];
      if (i >= P) window -= match[i - P];
      if (i + 1 >= P) {
        const size_t start = i + 1 - P;
        if (window > best_window) best_window = window, best_r = start;
        if (window * 10 >= P * 8) {
          r0 = start;
          found = true;
          break;
        }
      }
    }
    if (!found) r0 = best_r;
    // The boundary offset: the position in [r0, r0 + P) whose host gaps, one period apart, have
    // the largest median (the host prepares the next step between steps). The median, not the
    // sum: one long stall (a page fault, a compile) must not outvote every step boundary.
    size_t c0 = r0;
    if (timed) {
      int64_t best = -1;
      std::vector<int64_t> g;
      for (size_t x = r0; x < std::min(n, r0 + P); ++x) {
        g.clear();
        for (size_t y = x; y < n; y += P) g.push_back(gap[y]);
        std::nth_element(g.begin(), g.begin() + g.size() / 2, g.end());
        if (g[g.size() / 2] > best) best = g[g.size() / 2], c0 = x;
      }
    }
    cuts.push_back(c0);
    const size_t w = std::max<size_t>(1, P / 100);
    while (cuts.back() + P <= n) {
      const size_t nominal = cuts.back() + P;
      size_t next = nominal;
      if (timed && nominal < n) {
        int64_t best = -1;
        for (size_t y = nominal - std::min(w, P - 1); y <= std::min(n - 1, nominal + w); ++y)
          if (gap[y] > best) best = gap[y], next = y;
      }
      cuts.push_back(next);
    }
    // cuts: c0 .. c_last; each [c_j, c_j+1) is a step; the last cut ends the last full step.
    if (c0 > 0) pm.steps.push_back({0, c0, "prefill"});
    for (size_t j = 0; j + 1 < cuts.size(); ++j)
      pm.steps.push_back({cuts[j], cuts[j + 1], "decode"});
    if (cuts.back() < n) pm.steps.push_back({cuts.back(), n, "tail"});
    if (pm.steps.size() == 1 && pm.steps[0].phase == "tail") pm.steps[0].phase = "decode";
    // Prefill processes the whole prompt: same kernels as a decode step, other grids. The first
    // periodic step is prefill too when its launch identities differ from the next step's much
    // more than the next two steps differ from each other.
    size_t first = 0;
    while (first < pm.steps.size() && pm.steps[first].phase != "decode") ++first;
    if (first + 1 < pm.steps.size() && pm.steps[first + 1].phase == "decode") {
      const double d01 = identity_difference(ids, pm.steps[first], pm.steps[first + 1]);
      const double d12 = first + 2 < pm.steps.size() && pm.steps[first + 2].phase == "decode"
                             ? identity_difference(ids, pm.steps[first + 1], pm.steps[first + 2])
                             : 0.0;
      if (d01 > 0.05 && d01 > 2 * d12) {
        if (first > 0) {
          pm.steps[first - 1].end = pm.steps[first].end;  // one initial step, not two
          pm.steps.erase(pm.steps.begin() + static_cast<long>(first));
        } else {
          pm.steps[first].phase = "prefill";
        }
      }
    }
  }
  pm.step_of.assign(n, 0);
  for (size_t s = 0; s < pm.steps.size(); ++s)
    for (size_t i = pm.steps[s].begin; i < pm.steps[s].end; ++i)
      pm.step_of[i] = static_cast<int>(s);
  for (const auto& s : pm.steps) {
    pm.prefill_steps += s.phase == "prefill";
    pm.decode_steps += s.phase == "decode";
  }
  // Layers from a decode step in the middle (the first and last may carry warm-up or drain work).
  std::vector<const Step*> decode;
  for (const auto& s : pm.steps)
    if (s.phase == "decode") decode.push_back(&s);
  if (!decode.empty()) {
    const Step* rep = decode[decode.size() / 2];
    std::vector<uint32_t> t(names.begin() + rep->begin, names.begin() + rep->end);
    auto [layers, period] = detect_layers(t);
    pm.layers = layers;
    pm.layer_period = period;
  }
  return pm;
}

}  // namespace kprof::analysis
