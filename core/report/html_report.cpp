#include "core/report/html_report.hpp"

#include <sstream>

#include "core/base/text.hpp"
#include "core/report/html.hpp"
#include "core/report/svg_charts.hpp"

namespace kprof::report {
namespace {

// Kept short and in one place; the layout must hold at 1280 px (the browser test checks it):
// long kernel names wrap anywhere, tables never widen the page.
const char* const k_css = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; padding: 16px; max-width: 1200px;
       color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
section { margin-bottom: 24px; }
.simulated-banner { background: #b00020; color: #fff; font-weight: bold; padding: 6px 10px;
                    letter-spacing: 0.05em; }
.measured-banner { background: #2e7d32; color: #fff; padding: 6px 10px; }
table { border-collapse: collapse; width: 100%; table-layout: auto; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
table.view { font-size: 12px; }
th { font-size: 11px; }
td.long { overflow-wrap: anywhere; min-width: 8em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.above-peak td { background: #ffe0e0; }
.flag { color: #b00020; font-weight: bold; }
code { font-size: 12px; overflow-wrap: anywhere; }
td.command { width: 55%; }
.notes { font-size: 13px; color: #444; white-space: pre-wrap; overflow-wrap: anywhere; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
svg .grid { stroke: #e4e4e4; } svg .plot { fill: none; stroke: #999; }
svg .roof { stroke-width: 2; } svg .roof.memory { stroke: #1f4e9c; } svg .roof.compute { stroke: #555; }
svg .roof-point.mixed circle, svg .roof-point.mixed rect { stroke-dasharray: 2 2; stroke-width: 2; }
svg .roof-point.above-peak text { fill: #b00020; font-weight: bold; }
.legend span { display: inline-block; margin: 0 12px 4px 0; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
dt { font-weight: bold; } dd { margin: 0; overflow-wrap: anywhere; }
)css";

std::string cell_html(const Cell& c, bool& numeric) {
  numeric = false;
  if (std::holds_alternative<std::monostate>(c)) return "-";
  if (const auto* i = std::get_if<int64_t>(&c)) {
    numeric = true;
    return std::to_string(*i);
  }
  if (const auto* d = std::get_if<double>(&c)) {
    numeric = true;
    return format_number(*d);
  }
  return escape(std::get<std::string>(c));
}

// Column names wrap at '_' (dispatches_per_step), as the terminal tables do.
std::string header_html(const std::string& name) {
  std::string out;
  for (const char ch : name) {
    out += escape(std::string_view(&ch, 1));
    if (ch == '_') out += "<wbr>";
  }
  return out;
}

// A query view as an HTML table; `flags` (one per row, may be empty) highlights rows whose figures
// cannot be physical (the view's own `suspect` column says why).
void table_html(std::ostream& o, const Table& t, const std::vector<std::string>& flags = {}) {
  o << "<table class=\"view\" data-view=\"" << escape(t.title) << "\"><thead><tr>";
  for (const auto& c : t.columns) o << "<th>" << header_html(c) << "</th>";
  if (!flags.empty()) o << "<th>check</th>";  // the flag cell every row gets below
  o << "</tr></thead><tbody>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const bool flagged = r < flags.size() && !flags[r].empty();
    o << "<tr" << (flagged ? " class=\"above-peak\"" : "") << ">";
    for (const auto& c : t.rows[r]) {
      bool numeric = false;
      const std::string text = cell_html(c, numeric);
      // Long text (kernel names, explanations) may break anywhere; short text keeps its words.
      const char* cls = numeric ? " class=\"num\"" : text.size() > 24 ? " class=\"long\"" : "";
      o << "<td" << cls << ">" << text << "</td>";
    }
    if (!flags.empty())
      o << "<td>"
        << (flagged ? "<span class=\"flag\">&#9888; " + escape(flags[r]) + "</span>" : "ok")
        << "</td>";
    o << "</tr>\n";
  }
  o << "</tbody></table>\n";
  if (t.rows_omitted) o << "<p class=\"notes\">" << t.rows_omitted << " more rows not shown</p>\n";
  if (!t.notes.empty()) {
    o << "<div class=\"notes\">";
    for (const auto& n : t.notes) o << escape(n) << "\n";
    o << "</div>\n";
  }
}

class Page {
 public:
  Page(std::ostream& o, bool simulated) : m_o(o), m_simulated(simulated) {}
  void open(const std::string& id, const std::string& title) {
    m_o << "<section id=\"" << id << "\"><h2>" << escape(title) << "</h2>\n";
    if (m_simulated)
      m_o << "<p class=\"simulated-banner\">SIMULATED: figures from the rocprofv3 test double "
             "(rocprofv3-sim), not measured on a GPU</p>\n";
  }
  void close() { m_o << "</section>\n"; }

 private:
  std::ostream& m_o;
  bool m_simulated;
};

void legend(std::ostream& o, const std::vector<Bar>& bars, const FamilyColours& colours) {
  o << "<p class=\"legend\">";
  for (const auto& b : bars)
    o << "<span><i style=\"background:" << colours.of(b.label) << "\"></i>"
      << escape(shorten(b.label, 60)) << "</span>";
  o << "</p>\n";
}

void provenance_section(std::ostream& o, Page& page, const Provenance& p) {
  page.open("provenance", "Run provenance");
  auto field = [&](const std::string& k, const std::string& v) {
    o << "<dt>" << escape(k) << "</dt><dd>" << (v.empty() ? "-" : escape(v)) << "</dd>";
  };
  o << "<dl>";
  field("run", std::to_string(p.run_id) + (p.name.empty() ? "" : " (" + p.name + ")"));
  field("figures", p.simulated ? "SIMULATED (rocprofv3 test double)" : "measured");
  field("runbook", p.runbook_path);
  field("host", p.host);
  field("agent", p.arch + (p.product.empty() ? "" : " (" + p.product + ")"));
  field("profiler", p.profiler_version);
  field("kprof", p.kprof_version);
  field("status", p.status);
  field("started", p.started);
  field("finished", p.finished);
  if (p.seed) field("seed", std::to_string(*p.seed));
  o << "</dl>\n<table class=\"passes\"><thead><tr><th>pass</th><th>kind</th><th>state</th>"
       "<th>attempts</th><th>counters</th><th>command</th></tr></thead><tbody>\n";
  for (const auto& r : p.passes) {
    o << "<tr><td class=\"num\">" << r.ordinal << "</td><td>" << escape(r.kind) << "</td><td>"
      << escape(r.state) << (r.reason.empty() ? "" : ": " + escape(r.reason))
      << "</td><td class=\"num\">" << r.attempts << "</td><td class=\"long\">"
      << escape(join(r.counters, " ")) << "</td><td class=\"command\"><code>" << escape(r.command)
      << "</code></td></tr>\n";
  }
  o << "</tbody></table>\n";
  page.close();
}

// A trace pass with several ranks: the ranks view, and one lane per rank around the collective
// of the widest arrival skew.
void ranks_section(std::ostream& o, Page& page, const ReportModel& m,
                   const FamilyColours& colours) {
  if (!m.ranks) return;
  page.open("ranks", "Ranks: compute, collectives, arrival skew");
  table_html(o, *m.ranks);
  if (m.rank_lanes.found) {
    o << "<p>One lane per rank on one time axis: " << escape(m.rank_lanes.layer_basis) << ", "
      << escape(duration_text(m.rank_lanes.step_us * 1e3)) << ".</p>\n"
      << timeline_svg(m.rank_lanes, colours);
  }
  page.close();
}

void plan_section(std::ostream& o, Page& page, const Provenance& p, const Table& passes) {
  page.open("plan", "Pass plan and block occupancy");
  o << "<table class=\"occupancy\"><thead><tr><th>pass</th><th>counters</th>"
       "<th>hardware block: events used / per-pass limit</th></tr></thead><tbody>\n";
  for (const auto& r : p.passes) {
    if (r.kind != "counters") continue;
    o << "<tr><td class=\"num\">" << r.ordinal << "</td><td>" << escape(join(r.counters, " "))
      << "</td><td>";
    if (r.occupancy.empty()) o << "unknown (no hardware description knows these counters)";
    for (const auto& u : r.occupancy) {
      const bool over = u.limit > 0 && u.used > u.limit;
      o << "<span" << (over ? " class=\"flag\"" : "") << ">" << escape(u.block) << " " << u.used
        << "/" << u.limit << "</span> ";
    }
    o << "</td></tr>\n";
  }
  o << "</tbody></table>\n<h3>Passes and the cross-pass join</h3>\n";
  table_html(o, passes);
  page.close();
}

}  // namespace

void write_html_report(std::ostream& o, const ReportModel& m) {
  const auto& p = m.provenance;
  const FamilyColours colours(m.families);
  Page page(o, m.simulated);
  const std::string title = "kprof report: run " + std::to_string(p.run_id) +
                            (p.name.empty() ? "" : " " + p.name) +
                            (m.simulated ? " (SIMULATED)" : "");
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       // Nothing is fetched: this policy blocks any network access a future edit might add.
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; img-src data:\">"
       "<title>"
    << escape(title) << "</title>\n<style>" << k_css << "</style></head><body>\n";
  o << "<h1>" << escape(title) << "</h1>\n";
  if (m.simulated)
    o << "<p class=\"simulated-banner\" id=\"simulated\">SIMULATED RUN: every figure in this "
         "report comes from the rocprofv3 test double and its workload model, not from a GPU. "
         "Do not read it as a measurement.</p>\n";
  else
    o << "<p class=\"measured-banner\">Measured: figures from rocprofv3 captures.</p>\n";
  if (!m.notes.empty()) {
    o << "<div class=\"notes\">";
    for (const auto& n : m.notes) o << escape(n) << "\n";
    o << "</div>\n";
  }
  provenance_section(o, page, p);

  page.open("families", "Kernel families by time");
  o << "<p>Summed trace-pass kernel time of the " << m.families.size()
    << " largest families (total "
    << escape(duration_text(static_cast<double>(m.families_total_ns)))
    << " of kernel time, not wall time).</p>\n";
  o << families_svg(m.families, colours);
  page.close();

  page.open("explain", "Launch explanation");
  table_html(o, m.explain);
  o << "<h3>Phases</h3>\n";
  // Both views end with the same structure summary and its evidence: the page shows it once.
  Table phases = m.phases;
  if (phases.notes == m.explain.notes) phases.notes.clear();
  table_html(o, phases);
  o << "<h3>Claims</h3>\n";
  table_html(o, m.claims);
  page.close();

  page.open("timeline", "One step, layer by layer");
  const auto& tl = m.timeline;
  if (tl.found) {
    o << "<p>Step " << tl.step_number << " of " << tl.steps << " (" << analysis::to_string(tl.phase)
      << "), " << tl.slices.size() << " dispatches, " << escape(duration_text(tl.step_us * 1e3))
      << " from the first launch to the last end. " << escape(tl.layer_basis)
      << ". Each row starts at its first dispatch.</p>\n"
      << timeline_svg(tl, colours);
    legend(o, m.families, colours);
  } else {
    o << "<p class=\"notes\">" << escape(tl.why_not) << "</p>\n";
  }
  page.close();

  ranks_section(o, page, m, colours);

  page.open("metrics", "Counters and derived metrics per variant and phase");
  table_html(o, m.metrics, m.metrics_flags);
  page.close();

  page.open("roofline", "Roofline");
  const auto& r = m.roofline;
  if (r.available && !r.points.empty()) {
    o << "<p>Log-log. Roofs of " << escape(r.arch) << " from its hardware file; one point per "
      << "variant and phase with FLOP and byte counters (" << r.points.size() << " points; "
      << r.rows_without_counters << " variant-phase rows without them). Squares: prefill; "
      << "circles: other phases; hollow dashed: FLOPs and bytes from different counter passes; "
      << "'!': above a physical peak.</p>\n"
      << roofline_svg(r, colours);
    legend(o, m.families, colours);
  } else {
    o << "<p class=\"notes\">" << escape(r.why_not) << "</p>\n";
  }
  page.close();

  plan_section(o, page, p, m.passes);
  if (m.baseline) {
    page.open("baseline", "Compared with the baseline (A: baseline, B: this run)");
    o << "<div class=\"notes\">";
    for (const auto& line : m.baseline->workload) o << escape(line) << "\n";
    o << "</div>\n";
    table_html(o, m.baseline->families);
    table_html(o, m.baseline->variants);
    page.close();
  }
  o << "<footer class=\"notes\">kprof " << escape(p.kprof_version)
    << " report; self-contained: no script, no network.</footer>\n</body></html>\n";
}

}  // namespace kprof::report
