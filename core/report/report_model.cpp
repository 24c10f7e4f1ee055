#include "core/report/report_model.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <ctime>
#include <map>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/hw/target.hpp"
#include "core/report/svg_charts.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;

std::string utc_text(std::optional<int64_t> ms) {
  if (!ms) return "";
  const std::time_t s = static_cast<std::time_t>(*ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Index of `name` in the table's columns; the views name their columns, so a missing one is a
// programmer error (a view renamed a column the report reads).
size_t column(const Table& t, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  if (it == t.columns.end())
    throw Error::runtime("view '" + t.title + "' has no column '" + name + "'",
                         "a kprof bug: the report reads a column the view no longer has");
  return static_cast<size_t>(it - t.columns.begin());
}

}  // namespace

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

namespace {

std::optional<double> number(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return std::nullopt;
}

std::string text(const Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return cell_text(c);
}

Provenance provenance(an::QuerySession& session) {
  const auto& cap = session.trace_capture();
  Provenance p;
  p.run_id = cap.run.id;
  p.name = cap.run.name;
  p.runbook_path = cap.run.runbook_path;
  p.host = cap.run.host;
  p.status = std::string(store::to_string(cap.run.status));
  p.kprof_version = cap.run.kprof_version;
  p.profiler_version = cap.run.profiler_version;
  p.started = utc_text(cap.run.started_ms);
  p.finished = utc_text(cap.run.finished_ms);
  // The run's stored provenance (runs.simulated), set when it was run or ingested.
  p.simulated = cap.run.simulated;
  p.seed = cap.run.seed;
  p.arch = cap.arch;
  p.product = cap.product;
  const hw::Target* target = session.target();
  for (const auto& pass : cap.passes) {
    PassRow row;
    row.ordinal = pass.ordinal;
    row.kind = std::string(store::to_string(pass.kind));
    row.state = std::string(store::to_string(pass.state));
    row.attempts = pass.attempts;
    row.counters = pass.counters;
    row.command = shell_join(pass.argv);
    row.reason = pass.reason;
    if (target && !pass.counters.empty()) {
      try {
        const auto occ = target->occupancy(pass.counters);
        for (const auto& [block, used] : occ.used) {
          const auto* b = target->block(block);
          row.occupancy.push_back({block, used, b ? b->counters_per_pass : 0});
        }
      } catch (const Error&) {
        // A counter this hardware file does not know (an ingested capture of another target):
        // the pass is shown without occupancy.
      }
    }
    p.passes.push_back(std::move(row));
  }
  return p;
}

std::vector<Bar> family_bars(const Table& families, size_t top, int64_t& total) {
  std::vector<Bar> bars;
  const size_t f = column(families, "family"), n = column(families, "launches"),
               ns = column(families, "total_ns"), share = column(families, "share_pct");
  total = 0;
  Bar other{"(other families)", 0, 0, 0};
  for (size_t i = 0; i < families.rows.size(); ++i) {
    const auto& r = families.rows[i];
    Bar b{text(r[f]), number(r[ns]).value_or(0), number(r[share]).value_or(0),
          static_cast<int64_t>(number(r[n]).value_or(0))};
    total += static_cast<int64_t>(b.value);
    if (i < top) {
      bars.push_back(std::move(b));
    } else {
      other.value += b.value;
      other.share_pct += b.share_pct;
      other.launches += b.launches;
    }
  }
  if (other.launches) bars.push_back(other);
  return bars;
}

// One step of the main stream, cut into rows at the launches of the kernel that runs once per
// layer (analysis::detect_layers names it).
Timeline timeline(const an::TraceModel& m) {
  Timeline tl;
  const auto& pm = m.phases;
  const an::Step* chosen = nullptr;
  size_t number = 0, steps = 0;
  for (const auto& want : {an::Phase::decode, an::Phase::step}) {
    for (size_t i = 0; i < pm.steps.size() && !chosen; ++i)
      if (pm.steps[i].phase == want) chosen = &pm.steps[i];
    if (chosen) break;
  }
  for (size_t i = 0; i < pm.steps.size(); ++i) {
    const auto ph = pm.steps[i].phase;
    if (ph == an::Phase::prefill || ph == an::Phase::decode || ph == an::Phase::step ||
        ph == an::Phase::irregular) {
      ++steps;
      if (&pm.steps[i] == chosen) number = steps;
    }
  }
  if (!chosen) {
    tl.why_not = "no regular step was established in this trace (" + an::structure_summary(pm) +
                 "), so no step is drawn";
    return tl;
  }
  tl.found = true;
  tl.phase = chosen->phase;
  tl.step_number = number;
  tl.steps = steps;
  std::vector<uint32_t> names;
  for (size_t i = chosen->begin; i < chosen->end; ++i) names.push_back(pm.order[i].name);
  const an::LayerFit lf = an::detect_layers(names);
  // Row starts: dispatch offsets within the step. The anchor is whichever kernel runs once per
  // layer, often in the middle of one (a SiLU between two GEMMs); a row starts where the layer's
  // repeated sequence starts: the longest run of dispatches before the first anchor that is the
  // same as the run before the second (shorter than the period, so no layer is cut twice).
  std::vector<size_t> starts;
  size_t lead = 0;
  if (lf.layers > 0) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == lf.anchor) starts.push_back(i);
    if (starts.size() >= 2) {
      const size_t gap = starts[1] - starts[0];
      while (lead + 1 < gap && lead < starts[0] &&
             names[starts[0] - lead - 1] == names[starts[1] - lead - 1])
        ++lead;
    }
    for (auto& s : starts) s -= lead;
  }
  std::vector<std::pair<size_t, std::string>> rows;  // first dispatch, label
  if (starts.empty()) {
    rows.push_back({0, "whole step"});  // why: tl.layer_basis, printed under the chart
    tl.layer_basis = "layers not established in this step; the step is one row";
  } else {
    if (starts.front() > 0) rows.push_back({0, "before layer 1"});
    for (size_t l = 0; l < starts.size(); ++l)
      rows.push_back({starts[l], "layer " + std::to_string(l + 1)});
    // The last layer is as long as the layer period; what follows it is the step's tail.
    const size_t tail = starts.back() + lf.period;
    if (tail < names.size()) rows.push_back({tail, "after layer " + std::to_string(starts.size())});
    tl.layer_basis =
        (lead == 0 ? "rows start at each launch of "
                   : "rows start " + std::to_string(lead) + " dispatches before each launch of ") +
        m.family_of_name[lf.anchor] + ", which runs once per layer (" +
        std::to_string(starts.size()) + " launches, every " + std::to_string(lf.period) +
        " dispatches)" +
        (lead == 0 ? "" : ", where the sequence that repeats from layer to layer begins");
  }
  for (const auto& r : rows) tl.rows.push_back(r.second);
  const int64_t step_start = pm.order[chosen->begin].start_ns;
  int64_t step_end = step_start;
  size_t row = 0;
  int64_t row_start = step_start;
  for (size_t i = 0; i < names.size(); ++i) {
    const an::Dispatch d = pm.order[chosen->begin + i];
    while (row + 1 < rows.size() && rows[row + 1].first <= i) {
      ++row;
      row_start = d.start_ns;
    }
    if (i == 0) row_start = d.start_ns;
    step_end = std::max(step_end, d.end_ns);
    tl.slices.push_back({m.names->name(d.name), m.family_of_name[d.name], row,
                         static_cast<double>(d.start_ns - row_start) / 1e3,
                         static_cast<double>(d.duration_ns()) / 1e3});
  }
  tl.step_us = static_cast<double>(step_end - step_start) / 1e3;
  return tl;
}

Roofline roofline(an::QuerySession& session, const Table& metrics,
                  std::vector<std::string>& flags) {
  flags.assign(metrics.rows.size(), "");
  Roofline r;
  const hw::Target* target = session.target();
  r.arch = session.trace_capture().arch;
  if (!target) {
    r.why_not = "no hardware description for arch '" + r.arch +
                "' (configs/hw/<arch>.yaml), so there are no roofs";
    return r;
  }
  const auto& pk = target->peaks();
  r.hbm_bytes_per_s = pk.hbm_bytes_per_s;
  for (const auto& [name, v] :
       std::vector<std::pair<std::string, double>>{{"matrix FP8", pk.matrix_fp8_flops},
                                                   {"matrix BF16/FP16", pk.matrix_bf16_flops},
                                                   {"matrix FP32", pk.matrix_fp32_flops},
                                                   {"vector FP32", pk.vector_fp32_flops},
                                                   {"vector FP64", pk.vector_fp64_flops}})
    if (v > 0) r.compute.push_back({name, v});
  const size_t cv = column(metrics, "variant"), cf = column(metrics, "family"),
               cp = column(metrics, "phase"), cl = column(metrics, "launches"),
               ci = column(metrics, "flop_per_byte"), ct = column(metrics, "tflops"),
               cb = column(metrics, "tbps"), cpass = column(metrics, "passes"),
               csus = column(metrics, "suspect");
  for (size_t k = 0; k < metrics.rows.size(); ++k) {
    const auto& row = metrics.rows[k];
    const auto ai = number(row[ci]), tf = number(row[ct]), tb = number(row[cb]);
    // The metrics view says which figures are above a physical peak (analysis'
    // impossible_figures: the dominant type's compute peak, the HBM peak, negative counts).
    if (std::holds_alternative<std::string>(row[csus])) flags[k] = std::get<std::string>(row[csus]);
    if (!ai || !tf || *ai <= 0 || *tf <= 0) {
      ++r.rows_without_counters;
      continue;
    }
    RoofPoint p;
    p.variant = text(row[cv]);
    p.family = text(row[cf]);
    // The metrics view numbers variants as the trace model does (1-based, Variant::index).
    const auto& variants = session.model().variants;
    const auto vi = static_cast<size_t>(number(row[cv]).value_or(0));
    if (vi >= 1 && vi <= variants.size() && session.model().names)
      p.kernel = session.model().names->name(variants[vi - 1].name);
    const auto phase = an::parse_phase(text(row[cp]));  // the view writes to_string(Phase)
    assert(phase);
    p.phase = phase.value_or(an::Phase::unknown);
    p.launches = static_cast<int64_t>(number(row[cl]).value_or(0));
    p.flop_per_byte = *ai;
    p.flops_per_s = *tf * 1e12;
    p.bytes_per_s = tb ? *tb * 1e12 : 0;
    p.mixed = text(row[cpass]).find("mixed") != std::string::npos;
    p.above_peak = !flags[k].empty();
    r.points.push_back(std::move(p));
  }
  r.available = true;
  if (r.points.empty())
    r.why_not = "no variant has both FLOP and byte counters joined (run a roofline metric set)";
  return r;
}

// The ranks' lanes as a timeline on one axis: every rank's kernels from the window's start, so
// that the late rank's longer compute and the others' wait in the collective line up.
Timeline rank_timeline(an::QuerySession& session) {
  Timeline tl;
  const auto lanes = session.rank_lanes();
  if (!lanes) return tl;
  tl.found = true;
  tl.rows = lanes->lanes;
  for (const auto& s : lanes->slices) {
    // Clipped to the window: the kernels that cross its edges are drawn up to them.
    const int64_t start = std::max(s.start_ns, lanes->from_ns),
                  end = std::min(s.end_ns, lanes->to_ns);
    tl.slices.push_back({s.kernel, s.family, s.rank,
                         static_cast<double>(start - lanes->from_ns) / 1e3,
                         static_cast<double>(end - start) / 1e3});
  }
  tl.step_us = static_cast<double>(lanes->to_ns - lanes->from_ns) / 1e3;
  tl.layer_basis = "matched collective " + std::to_string(lanes->ordinal) + " of " +
                   std::to_string(lanes->matched) + ", the widest arrival skew (" +
                   duration_text(static_cast<double>(lanes->skew_ns)) +
                   "), with the kernels before it back to the collective before it";
  return tl;
}

}  // namespace

ReportModel build_report_model(an::QuerySession& session, const ReportOptions& options) {
  ReportModel m;
  m.provenance = provenance(session);
  m.simulated = m.provenance.simulated;
  const Table families = session.view("families", {});
  m.families = family_bars(families, options.top_families, m.families_total_ns);
  m.timeline = timeline(session.model());
  m.explain = session.view("explain", {});
  m.phases = session.view("phases", {});
  m.claims = session.view("claims", {});
  m.metrics = session.view("metrics", {});
  m.passes = session.view("passes", {});
  if (Table ranks = session.view("ranks", {}); ranks.rows.size() > 1) {
    m.ranks = std::move(ranks);
    m.rank_lanes = rank_timeline(session);
  }
  m.roofline = roofline(session, m.metrics, m.metrics_flags);
  for (const auto& j : session.joins_computed()) m.notes.push_back(an::join_note(j));
  for (const auto& n : session.notes()) m.notes.push_back(n);
  return m;
}

ReportModel build_report_model(const std::string& db_path, const ReportOptions& options) {
  an::SessionOptions so;
  so.run_id = options.run_id;
  // Every view the report draws is one a bounded session serves (bounded_view), the step timeline
  // reads the spilled main stream, so no trace dispatch is held with a current stored join.
  so.bounded = true;
  an::QuerySession session = an::QuerySession::open(db_path, so);
  return build_report_model(session, options);
}

}  // namespace kprof::report
