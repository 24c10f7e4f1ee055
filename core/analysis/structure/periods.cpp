// Period and layer detection on kernel-name sequences, and the small numeric helpers of phase
// detection.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "core/analysis/structure/family.hpp"
#include "core/analysis/structure/phase_detail.hpp"
#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis {
namespace detail {

double match_rate(const SpillVector<uint32_t>& s, size_t p, size_t lo, size_t hi) {
  hi = std::min(hi, s.size() > p ? s.size() - p : 0);
  if (hi <= lo) return 0;
  size_t same = 0;
  for (size_t i = lo; i < hi; ++i) same += s[i] == s[i + p];
  return static_cast<double>(same) / static_cast<double>(hi - lo);
}

double aligned_match(const SpillVector<uint32_t>& s, size_t a, size_t b, size_t len) {
  if (len == 0) return 0;
  size_t same = 0;
  for (size_t i = 0; i < len; ++i) same += s[a + i] == s[b + i];
  return static_cast<double>(same) / static_cast<double>(len);
}

double multiset_similarity(const SpillVector<uint32_t>& s, size_t a0, size_t a1, size_t b0,
                           size_t b1) {
  std::unordered_map<uint32_t, long> count;
  for (size_t i = a0; i < a1; ++i) ++count[s[i]];
  size_t common = 0;
  for (size_t i = b0; i < b1; ++i) {
    auto it = count.find(s[i]);
    if (it != count.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  const size_t larger = std::max(a1 - a0, b1 - b0);
  return larger ? static_cast<double>(common) / static_cast<double>(larger) : 0.0;
}

std::string fmt_ns(double ns) {
  char buf[48];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  return buf;
}

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * share);
  return buf;
}

int64_t upper_quantile(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, v.size() * 6 / 10);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

std::string Detector::name_of(uint32_t id) const {
  if (!names_table || id >= names_table->size()) return "kernel " + std::to_string(id);
  // No return type or arguments, as families are cut (family.cpp: a '(' after "::" is a scope).
  std::string n = strip_arguments(strip_return_type(names_table->name(id)));
  if (n.size() > 60) {
    const size_t lt = n.find('<');
    if (lt != std::string::npos && lt > 0) n = n.substr(0, lt) + "<...>";
  }
  if (n.size() > 60) n = n.substr(0, 57) + "...";
  return n;
}

}  // namespace detail

using namespace detail;

size_t detect_period(const std::vector<uint32_t>& names, size_t k) {
  const SpillVector<uint32_t> s(names);  // a copy: for tests and the real-capture pin
  return detect_period(s, 0, s.size(), k);
}

size_t detect_period(const SpillVector<uint32_t>& s, size_t b, size_t e, size_t k,
                     std::vector<PeriodCandidate>* considered) {
  const size_t n = e - b;
  if (n < 8) return 0;
  if (k == 0) k = std::clamp<size_t>(n / 16, 4, 32);
  if (k >= n) return 0;
  // Polynomial rolling hash of each k-gram; distance to the previous occurrence of the same
  // k-gram. (A hash collision only adds a spurious candidate, which the match-rate check drops.)
  const uint64_t base = 1000003;
  uint64_t pow_k = 1;
  for (size_t i = 0; i < k; ++i) pow_k *= base;
  std::unordered_map<uint64_t, size_t> last;
  std::unordered_map<size_t, size_t> hist;  // not reserved: a loop has few distinct k-grams
  uint64_t h = 0;
  for (size_t i = 0; i < n; ++i) {
    h = h * base + s[b + i] + 1;
    if (i >= k) h -= pow_k * (s[b + i - k] + 1);
    if (i + 1 < k) continue;
    const size_t start = i + 1 - k;
    auto [it, inserted] = last.try_emplace(h, start);
    if (!inserted) {
      ++hist[start - it->second];
      it->second = start;
    }
  }
  std::vector<std::pair<size_t, size_t>> cand(hist.begin(), hist.end());  // (distance, count)
  std::sort(cand.begin(), cand.end(), [](auto& x, auto& y) { return x.first > y.first; });
  int evaluated = 0;
  size_t chosen = 0;
  int after = 0;  // candidates weighed after the chosen one, for the alternatives only
  for (auto [d, c] : cand) {
    if (d < 2 || d * 2 > n || c < k) continue;
    if (++evaluated > 64) break;
    const double m = match_rate(s, d, b, e - d);
    if (chosen) {
      considered->push_back({d, m});
      if (++after >= 4) break;
      continue;
    }
    if (m >= 0.5) {
      chosen = d;
      if (!considered) break;
      continue;
    }
    if (considered) considered->push_back({d, m});
  }
  return chosen;
}

namespace {

// Whether the stretches between consecutive launches of a kernel (positions `p`) repeat somewhere:
// two neighbouring stretches of the same names, as neighbouring layers of one kind are.
bool stretches_repeat(const SpillVector<uint32_t>& t, const std::vector<size_t>& p) {
  for (size_t k = 0; k + 2 < p.size(); ++k) {
    const size_t len = p[k + 1] - p[k];
    if (p[k + 2] - p[k + 1] != len) continue;
    bool same = true;
    for (size_t i = 0; i < len && same; ++i) same = t[p[k] + i] == t[p[k + 1] + i];
    if (same) return true;
  }
  return false;
}

// A layer count must account for every kernel launched within the layers. The case checked: a
// kernel that launches m > 1 times per claimed layer (a whole number), at uneven distances (else it
// would be the anchor of a finer count), with neighbouring stretches between its launches alike:
// it marks layers of two kinds inside each claimed one (three of one attention kind and one of
// another run as one 4-layer block). The count is then not established (`conflict`). The layer
// stretch starts up to one period before the anchor's first launch.
void check_every_kernel(const SpillVector<uint32_t>& t,
                        const std::unordered_map<uint32_t, std::vector<size_t>>& pos,
                        LayerFit& fit) {
  const auto& anchor = pos.at(fit.anchor);
  const size_t lo = anchor.front() >= fit.period ? anchor.front() - fit.period : 0;
  const size_t hi = anchor.back() + fit.period;
  const size_t layers = static_cast<size_t>(fit.layers);
  std::map<uint32_t, const std::vector<size_t>*> ordered;
  for (const auto& [name, p] : pos) ordered[name] = &p;
  for (const auto& [name, pp] : ordered) {
    const auto& p = *pp;
    if (name == fit.anchor || p.front() < lo || p.back() >= hi) continue;  // not in the layers
    const size_t c = p.size();
    if (c % layers == 0 && c >= 2 * layers && stretches_repeat(t, p)) {
      fit.conflict = name;
      fit.conflict_count = c;
      fit.finer = true;
      return;
    }
  }
}

}  // namespace

LayerFit detect_layers(std::vector<uint32_t> step_names) {
  const SpillVector<uint32_t> t(std::move(step_names));  // taken, not copied
  const size_t m = t.size();
  std::unordered_map<uint32_t, std::vector<size_t>> pos;
  for (size_t i = 0; i < m; ++i) pos[t[i]].push_back(i);
  LayerFit best;
  // Every candidate's verdict, for the agreement and the runner-up once the best is known.
  struct Verdict {
    uint32_t name;
    int layers;
    size_t period;
    std::string why;  // empty: it fits
  };
  std::vector<Verdict> verdicts;
  // Candidates in name order, so that ties resolve the same way on every platform.
  std::map<uint32_t, const std::vector<size_t>*> ordered;
  for (const auto& [name, pp] : pos) ordered[name] = &pp;
  for (const auto& [name, pp] : ordered) {
    const auto& p = *pp;
    if (p.size() < 2) continue;
    std::vector<size_t> dist;
    for (size_t i = 1; i < p.size(); ++i) dist.push_back(p[i] - p[i - 1]);
    const size_t d = median_of(dist);
    if (d < 2) continue;  // back-to-back launches are not a layer structure
    const int layers = static_cast<int>(p.size());
    const double tol = 0.15 * static_cast<double>(d) + 0.5;
    const auto [lo, hi] = std::minmax_element(dist.begin(), dist.end());
    if (std::abs(static_cast<double>(*lo) - static_cast<double>(d)) > tol ||
        std::abs(static_cast<double>(*hi) - static_cast<double>(d)) > tol) {
      verdicts.push_back({name, layers, d,
                          "launches at irregular distances (" + std::to_string(*lo) + " to " +
                              std::to_string(*hi) + ")"});
      continue;
    }
    if (p.size() * d * 2 < m) {
      verdicts.push_back({name, layers, d, "covers less than half the step"});
      continue;
    }
    const double match = match_rate(t, d, p.front(), p.back());
    if (match < 0.5) {
      verdicts.push_back({name, layers, d, "its stretch repeats at " + pct(match) + " only"});
      continue;
    }
    verdicts.push_back({name, layers, d, ""});
    if (layers < best.layers || (layers == best.layers && d >= best.period)) continue;
    best = LayerFit{};
    best.layers = layers;
    best.period = d;
    best.anchor = name;
    best.match = match;
  }
  // Agreement: kernels that fit with the same count and distance. The runner-up: the candidate
  // with the most launches that gives another count (fitting or not), and why it lost.
  for (const auto& v : verdicts) {
    if (v.why.empty() && v.layers == best.layers && v.period == best.period) {
      ++best.agreeing;
      continue;
    }
    if (v.layers == best.layers || v.layers <= best.rival_layers) continue;
    best.rival_layers = v.layers;
    best.rival_period = v.period;
    best.rival_anchor = v.name;
    best.rival_fits = v.why.empty();
    // A candidate that fits has fewer launches than the best (which has the most of those that
    // fit); one that does not fit says why.
    best.rival_why = !v.why.empty() ? v.why
                                    : "fewer launches (" + std::to_string(v.layers) + " against " +
                                          std::to_string(best.layers) + ")";
  }
  if (best.layers > 0) check_every_kernel(t, pos, best);
  return best;
}

}  // namespace kprof::analysis
