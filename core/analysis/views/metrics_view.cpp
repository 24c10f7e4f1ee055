// `metrics` (per variant and phase) and `roofline` (per family and phase): FLOPs, bytes, intensity
// and rates from the joined counters and trace durations, against the target's peaks.
#include "core/analysis/views/views.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/analysis/views/view_helpers.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

namespace {

std::vector<std::string> metrics_columns(bool roofline, bool structured) {
  std::vector<std::string> c;
  if (roofline) {
    c = {"family",
         "phase",
         "launches",
         "with_counters",
         "flops_per_launch",
         "bytes_per_launch",
         "flop_per_byte",
         "tflops",
         "peak_tflops",
         "pct_peak_flops",
         "tbps",
         "pct_peak_hbm",
         "ridge_flop_per_byte",
         "bound",
         "passes",
         "suspect"};
  } else {
    c = {"variant",       "family",     "phase",      "launches",   "with_counters",
         "mean_trace_ns", "mfma_flops", "valu_flops", "bytes_read", "bytes_written",
         "flop_per_byte", "tflops",     "tbps",       "passes",     "suspect"};
  }
  // Machine formats: the prose of `passes` and `suspect` as fields too.
  if (structured) c.insert(c.end(), {"mixed", "suspect_flags", "suspect_cause"});
  return c;
}

Cell mixed_cell(const GroupMetrics& g) {
  return g.with_flops || g.with_bytes ? Cell(std::string(g.mixed_passes() ? "yes" : "no")) : Cell();
}

// A figure above a physical peak is never printed plain: the row says what and why.
struct SuspectCells {
  Cell suspect, flags, cause;
};

SuspectCells suspect_cells(const hw::Target* tgt, const GroupMetrics& g,
                           std::set<std::string>& suspect_reasons) {
  SuspectCells s;
  if (!tgt) return s;
  const auto bad = impossible_figures(g, tgt->peaks());
  if (!bad.empty()) {
    s.suspect = suspect_text(bad);
    s.flags = suspect_codes(bad);
    s.cause = suspect_cause(g);
    suspect_reasons.insert(suspect_reason(g));
  }
  return s;
}

// A roofline row's figures against the target's peaks: empty without a target or FLOPs.
struct PeakCells {
  Cell peak, pct_f, pct_b, ridge, bound;
};

PeakCells peak_cells(const hw::Target* tgt, const GroupMetrics& g, std::optional<double> tflops,
                     std::optional<double> tbps) {
  PeakCells c;
  if (!tgt || !g.with_flops) return c;
  const auto& pk = tgt->peaks();
  const double pf = peak_flops_for(pk, g.dominant_type());
  c.peak = pf / 1e12;
  if (tflops && pf > 0) c.pct_f = 100.0 * *tflops * 1e12 / pf;
  if (tbps && pk.hbm_bytes_per_s > 0) c.pct_b = 100.0 * *tbps * 1e12 / pk.hbm_bytes_per_s;
  if (pk.hbm_bytes_per_s > 0) {
    const double r = pf / pk.hbm_bytes_per_s;
    c.ridge = r;
    if (auto ai = g.intensity())
      c.bound =
          std::string(*ai < r ? "memory" : "compute") + (g.mixed_passes() ? " (mixed passes)" : "");
  }
  return c;
}

}  // namespace

Table QueryContext::metrics(const ViewOptions& o, bool roofline) {
  Table t = base_table(roofline ? "roofline per family and phase"
                                : "derived metrics per variant and phase");
  const auto* tgt = target();
  using GroupKey = std::pair<std::string, std::string>;  // (key, phase)
  std::map<GroupKey, GroupMetrics> groups;
  std::map<GroupKey, int64_t> launches;
  // `metrics`: MFMA and VALU FLOPs apart, summed over the group's dispatches that have FLOPs.
  struct Split {
    double mfma = 0, valu = 0;
    int64_t n = 0;
  };
  std::map<GroupKey, Split> split;
  // Per group while the joined counters stream by, in trace order (the sums' order as before).
  const bool repeated = for_each_joined(
      [&](size_t k) { return keep(k, o); },
      [&](size_t k, const JoinedCounters& jc, size_t i) {
        const auto& v = m_model.variants[m_model.variant_of[k]];
        const std::string key = roofline ? v.family : std::to_string(v.index);
        const auto gk = std::make_pair(key, std::string(to_string(m_model.phase_of[k])));
        ++launches[gk];
        if (!tgt || jc.by_dispatch[i].empty()) return;
        const DispatchMetrics dm = dispatch_metrics(*tgt, jc, i);
        groups[gk].add(dm, m_cap.trace.dispatches[k].duration_ns());
        if (roofline || !dm.has_flops()) return;
        Split& sp = split[gk];
        sp.mfma += dm.mfma_flops.value_or(0);
        sp.valu += dm.valu_flops.value_or(0);
        ++sp.n;
      });
  if (repeated)
    t.notes.push_back(
        "rotated counters: each launch was counted with one counter group, so a dispatch's "
        "figures combine counters read on different launches of its variant (a statistical "
        "join, not one launch's numbers); `kprof query DB samples` gives n, mean and sd");
  if (!tgt) {
    t.notes.push_back("no hardware description for arch '" + m_cap.arch +
                      "': derived metrics need configs/hw/<arch>.yaml");
  }
  t.columns = metrics_columns(roofline, o.structured);
  std::vector<std::pair<GroupKey, int64_t>> order(launches.begin(), launches.end());
  std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
  bool any_mixed = false;
  std::set<std::string> suspect_reasons;
  for (const auto& [gk, n] : order) {
    auto it = groups.find(gk);
    const GroupMetrics g = it == groups.end() ? GroupMetrics{} : it->second;
    any_mixed |= g.mixed_passes();
    const auto tflops =
        g.flops_per_s() ? std::optional<double>(*g.flops_per_s() / 1e12) : std::nullopt;
    const auto tbps =
        g.bytes_per_s() ? std::optional<double>(*g.bytes_per_s() / 1e12) : std::nullopt;
    const std::string passes = passes_in(m_cap, g);
    const auto [suspect, flags, cause] = suspect_cells(tgt, g, suspect_reasons);
    if (roofline) {
      const PeakCells c = peak_cells(tgt, g, tflops, tbps);
      t.rows.push_back({gk.first, gk.second, n, g.with_flops, opt(g.mean_flops()),
                        opt(g.mean_bytes()), opt(g.intensity()), opt(tflops), c.peak, c.pct_f,
                        opt(tbps), c.pct_b, c.ridge, c.bound, passes, suspect});
      if (o.structured) t.rows.back().insert(t.rows.back().end(), {mixed_cell(g), flags, cause});
    } else {
      const auto& v = m_model.variants[std::stoi(gk.first) - 1];
      const double mean_ns = v.duration.mean_ns();
      auto mean = [&](double sum, int64_t cnt) { return cnt ? Cell(sum / cnt) : Cell(); };
      t.rows.push_back({static_cast<int64_t>(v.index), v.family, gk.second, n,
                        std::max(g.with_flops, g.with_bytes), mean_ns, Cell(), Cell(),
                        mean(g.bytes_read, g.with_bytes), mean(g.bytes_written, g.with_bytes),
                        opt(g.intensity()), opt(tflops), opt(tbps), passes, suspect});
      if (o.structured) t.rows.back().insert(t.rows.back().end(), {mixed_cell(g), flags, cause});
      if (const auto sp = split.find(gk); sp != split.end() && sp->second.n) {
        t.rows.back()[6] = sp->second.mfma / sp->second.n;
        t.rows.back()[7] = sp->second.valu / sp->second.n;
      }
    }
  }
  t.notes.push_back(
      "rates use trace-pass durations (counter passes serialize kernels and stretch them)");
  add_join_notes(t);
  for (const auto& why : suspect_reasons) {
    t.notes.push_back("suspect: figures above a physical peak of " + m_cap.product +
                      " (configs/hw/" + m_cap.arch +
                      ".yaml peaks) cannot be measurements; likely cause: " + why);
  }
  if (any_mixed) {
    t.notes.push_back(
        "(mixed): FLOPs and bytes of these rows come from different counter passes, i.e. "
        "different runs of the application; their ratio compares two runs");
  }
  return t;
}

}  // namespace kprof::analysis
