// `metrics` (per variant and phase) and `roofline` (per family and phase): FLOPs, bytes, intensity
// and rates from the joined counters and trace durations, against the target's peaks.
#include "core/analysis/views/views.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/analysis/views/view_helpers.hpp"
#include "core/base/text.hpp"
#include "core/store/pass_ranks.hpp"

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

std::string three_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// One figure per rank ("rank 0 (GPU agent 1) 1.02") and its spread, max / min over the ranks
// that have it; "" when fewer than two ranks have it.
std::string per_rank_figure(const std::vector<store::PassRank>& ranks,
                            const std::vector<std::optional<double>>& values,
                            const std::string& what) {
  std::vector<std::string> parts;
  double lo = 0, hi = 0;
  size_t n = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!values[r]) continue;
    parts.push_back("rank " + std::to_string(ranks[r].rank) + " (GPU agent " +
                    std::to_string(ranks[r].agent) + ") " + three_digits(*values[r]));
    lo = n ? std::min(lo, *values[r]) : *values[r];
    hi = n ? std::max(hi, *values[r]) : *values[r];
    ++n;
  }
  if (n < 2) return "";
  return what + " per rank: " + join(parts, ", ") + "; spread max/min " +
         (lo > 0 ? three_digits(hi / lo) : std::string("-"));
}

// The notes of a trace pass with several ranks: each rank's achieved rates and intensity over
// its own dispatches with counters (the rows' filters kept), and their spread.
std::vector<std::string> per_rank_notes(const std::vector<store::PassRank>& ranks,
                                        const std::vector<GroupMetrics>& per_rank) {
  std::vector<std::optional<double>> tflops, tbps, ai;
  for (const auto& g : per_rank) {
    const auto f = g.flops_per_s(), b = g.bytes_per_s();
    tflops.push_back(f ? std::optional<double>(*f / 1e12) : std::nullopt);
    tbps.push_back(b ? std::optional<double>(*b / 1e12) : std::nullopt);
    ai.push_back(g.intensity());
  }
  std::vector<std::string> out;
  for (auto line : {per_rank_figure(ranks, tflops, "TFLOP/s"), per_rank_figure(ranks, tbps, "TB/s"),
                    per_rank_figure(ranks, ai, "FLOP/byte")})
    if (!line.empty()) out.push_back(line);
  if (out.empty())
    out.push_back(std::to_string(ranks.size()) +
                  " ranks, but fewer than two have joined counters: no per-rank figures");
  return out;
}

// Per rank of a tensor-parallel trace (one per GPU agent, store::pass_ranks): the sums of the
// rows, over each rank's own dispatches. Nothing is summed for a trace with one rank.
class RankSums {
 public:
  RankSums(store::CaptureDb& db, const Capture& cap)
      : m_cap(cap), m_ranks(store::pass_ranks(db, cap.trace.pass_id)), m_sums(m_ranks.size()) {}
  void add(const Dispatch& d, const DispatchMetrics& dm) {
    if (m_ranks.size() < 2) return;
    for (size_t r = 0; r < m_ranks.size(); ++r)
      if (m_ranks[r].pid == d.pid && m_ranks[r].agent == m_cap.trace.agent(d))
        return m_sums[r].add(dm, d.duration_ns());
  }
  std::vector<std::string> notes() const {
    return m_ranks.size() < 2 ? std::vector<std::string>{} : per_rank_notes(m_ranks, m_sums);
  }

 private:
  const Capture& m_cap;
  std::vector<store::PassRank> m_ranks;
  std::vector<GroupMetrics> m_sums;
};

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
  RankSums per_rank(m_db, m_cap);
  // Per group while the joined counters stream by, in trace order (the sums' order as before).
  const bool repeated =
      for_each_joined([&](size_t k) { return keep(k, o); },
                      [&](size_t k, const JoinedCounters& jc, size_t i) {
                        const auto& v = m_model.variants[static_cast<size_t>(variant_of(k))];
                        const std::string key = roofline ? v.family : std::to_string(v.index);
                        const auto gk = std::make_pair(key, std::string(to_string(phase_of(k))));
                        ++launches[gk];
                        if (!tgt || jc.by_dispatch[i].empty()) return;
                        const DispatchMetrics dm = dispatch_metrics(*tgt, jc, i);
                        groups[gk].add(dm, dispatch(k).duration_ns());
                        per_rank.add(dispatch(k), dm);
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
  if (tgt)
    for (auto& line : per_rank.notes()) t.notes.push_back(std::move(line));
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
