#include "core/report/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "core/report/html.hpp"

namespace kprof::report {
namespace {

// Tableau 10 and its lighter half: distinguishable, and readable with dark text beside them.
const char* const k_palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                 "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                                 "#a0cbe8", "#ffbe7d", "#8cd17d", "#86bcb6", "#f1ce63"};
constexpr size_t k_palette_size = sizeof(k_palette) / sizeof(k_palette[0]);

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Powers of ten covering [lo, hi] on a log axis.
std::pair<double, double> decades(double lo, double hi) {
  return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

std::string si(double v, const std::string& unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return format_number(v) + " " + prefixes[i] + unit;
}

// A roofline point as people say it: the kernel's family and the variant number the metrics and
// variants views use ("fused_moe_kernel v20"); the marker's shape says the phase and the <title>
// holds the full kernel name.
std::string point_name(const RoofPoint& p) { return shorten(p.family, 32) + " v" + p.variant; }

}  // namespace

std::string duration_text(double ns) {
  if (ns >= 1e9) return format_number(ns / 1e9) + " s";
  if (ns >= 1e6) return format_number(ns / 1e6) + " ms";
  if (ns >= 1e3) return format_number(ns / 1e3) + " us";
  return format_number(ns) + " ns";
}

FamilyColours::FamilyColours(const std::vector<Bar>& families) {
  size_t i = 0;
  for (const auto& b : families)
    if (i < k_palette_size) m_colour[b.label] = k_palette[i++];
}

std::string FamilyColours::of(const std::string& family) const {
  const auto it = m_colour.find(family);
  return it == m_colour.end() ? "#999999" : it->second;
}

std::string families_svg(const std::vector<Bar>& bars, const FamilyColours& colours) {
  const double width = 1000, label_w = 330, value_w = 170, row = 22;
  const double plot_w = width - label_w - value_w;
  const double height = row * static_cast<double>(bars.size()) + 10;
  double max = 0;
  for (const auto& b : bars) max = std::max(max, b.value);
  std::ostringstream o;
  o << "<svg class=\"chart families\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << width
    << " " << height << "\" width=\"" << width << "\" height=\"" << height
    << "\" role=\"img\" aria-label=\"kernel families by summed trace time\">\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = 5 + row * static_cast<double>(i);
    const double w = max > 0 ? plot_w * b.value / max : 0;
    o << "<g><title>" << escape(b.label) << ": " << escape(duration_text(b.value)) << ", "
      << b.launches << " launches, " << format_number(b.share_pct) << "% of kernel time</title>"
      << "<text class=\"label\" x=\"" << label_w - 8 << "\" y=\"" << num(y + 15)
      << "\" text-anchor=\"end\">" << escape(shorten(b.label, 44)) << "</text>"
      << "<rect class=\"bar\" x=\"" << label_w << "\" y=\"" << num(y + 2) << "\" width=\""
      << num(std::max(w, 1.0)) << "\" height=\"" << row - 6 << "\" fill=\"" << colours.of(b.label)
      << "\"/>"
      << "<text class=\"value\" x=\"" << num(label_w + w + 6) << "\" y=\"" << num(y + 15) << "\">"
      << escape(duration_text(b.value)) << " (" << format_number(b.share_pct) << "%)</text></g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string timeline_svg(const Timeline& tl, const FamilyColours& colours) {
  // Row labels are end-anchored at label_w - 6: wide enough for the longest at 11 px system-ui
  // (under 6.5 px a character), so no label starts left of the chart (the browser test's check).
  size_t longest = 0;
  for (const auto& r : tl.rows) longest = std::max(longest, r.size());
  const double width = 1000, right = 20, row = 12;
  const double label_w = std::max(120.0, 12 + 6.5 * static_cast<double>(longest));
  const double plot_w = width - label_w - right;
  const double top = 24;
  const double height = top + row * static_cast<double>(tl.rows.size()) + 10;
  double span = 0;
  for (const auto& s : tl.slices) span = std::max(span, s.start_us + s.dur_us);
  if (span <= 0) span = 1;
  std::ostringstream o;
  o << "<svg class=\"chart timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << width
    << " " << num(height) << "\" width=\"" << width << "\" height=\"" << num(height)
    << "\" role=\"img\" aria-label=\"one step, layer by layer\">\n";
  // Time axis: 0 .. span, five ticks.
  for (int t = 0; t <= 4; ++t) {
    const double x = label_w + plot_w * t / 4;
    o << "<line class=\"grid\" x1=\"" << num(x) << "\" y1=\"" << top - 4 << "\" x2=\"" << num(x)
      << "\" y2=\"" << num(height - 8) << "\"/>"
      << "<text class=\"tick\" x=\"" << num(x) << "\" y=\"" << top - 8 << "\" text-anchor=\""
      << (t == 0   ? "start"
          : t == 4 ? "end"
                   : "middle")
      << "\">" << escape(duration_text(span * 1e3 * t / 4)) << "</text>\n";
  }
  for (size_t r = 0; r < tl.rows.size(); ++r)
    o << "<text class=\"label\" x=\"" << label_w - 6 << "\" y=\""
      << num(top + row * static_cast<double>(r) + 9) << "\" text-anchor=\"end\">"
      << escape(tl.rows[r]) << "</text>\n";
  for (const auto& s : tl.slices) {
    const double x = label_w + plot_w * s.start_us / span;
    const double w = std::max(plot_w * s.dur_us / span, 0.5);
    o << "<rect class=\"slice\" x=\"" << num(x) << "\" y=\""
      << num(top + row * static_cast<double>(s.row) + 1) << "\" width=\"" << num(w)
      << "\" height=\"" << row - 2 << "\" fill=\"" << colours.of(s.family) << "\"><title>"
      << escape(s.kernel) << " (" << escape(s.family)
      << "): " << escape(duration_text(s.dur_us * 1e3)) << " at +"
      << escape(duration_text(s.start_us * 1e3)) << "</title></rect>\n";
  }
  o << "</svg>\n";
  return o.str();
}

namespace {

// The roofline's plot area and its log-log axes, whole decades around the points and roofs.
struct RooflineAxes {
  double width = 1000, height = 560, left = 90, right = 170, top = 20, bottom = 50;
  double pw = width - left - right, ph = height - top - bottom;
  double ridge = 1;  // FLOP per byte where the memory roof meets the highest compute roof
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;

  double x_at(double v) const { return left + pw * std::log10(v / x0) / std::log10(x1 / x0); }
  double y_at(double v) const { return top + ph - ph * std::log10(v / y0) / std::log10(y1 / y0); }
};

RooflineAxes roofline_axes(const Roofline& r) {
  RooflineAxes a;
  double max_roof = 0;
  for (const auto& c : r.compute) max_roof = std::max(max_roof, c.flops_per_s);
  double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = max_roof;
  for (const auto& p : r.points) {
    xlo = std::min(xlo, p.flop_per_byte);
    xhi = std::max(xhi, p.flop_per_byte);
    ylo = std::min(ylo, p.flops_per_s);
    yhi = std::max(yhi, p.flops_per_s);
  }
  a.ridge = r.hbm_bytes_per_s > 0 ? max_roof / r.hbm_bytes_per_s : 1;
  xlo = std::min(xlo / 2, 1.0);
  xhi = std::max(xhi, a.ridge * 4);
  ylo = std::min(ylo, r.hbm_bytes_per_s * xlo);
  if (!(ylo > 0)) ylo = 1e9;
  std::tie(a.x0, a.x1) = decades(xlo, xhi);
  std::tie(a.y0, a.y1) = decades(ylo, yhi * 1.5);
  return a;
}

void draw_roofline_grid(std::ostream& o, const RooflineAxes& a) {
  for (double v = a.x0; v <= a.x1 * 1.0001; v *= 10)
    o << "<line class=\"grid\" x1=\"" << num(a.x_at(v)) << "\" y1=\"" << a.top << "\" x2=\""
      << num(a.x_at(v)) << "\" y2=\"" << a.top + a.ph << "\"/><text class=\"tick\" x=\""
      << num(a.x_at(v)) << "\" y=\"" << a.top + a.ph + 16 << "\" text-anchor=\"middle\">"
      << format_number(v) << "</text>\n";
  for (double v = a.y0; v <= a.y1 * 1.0001; v *= 10)
    o << "<line class=\"grid\" x1=\"" << a.left << "\" y1=\"" << num(a.y_at(v)) << "\" x2=\""
      << a.left + a.pw << "\" y2=\"" << num(a.y_at(v)) << "\"/><text class=\"tick\" x=\""
      << a.left - 6 << "\" y=\"" << num(a.y_at(v) + 4) << "\" text-anchor=\"end\">"
      << escape(si(v, "FLOP/s")) << "</text>\n";
  o << "<text class=\"axis\" x=\"" << a.left + a.pw / 2 << "\" y=\"" << a.height - 10
    << "\" text-anchor=\"middle\">arithmetic intensity (FLOP per HBM byte)</text>\n";
}

void draw_roofs(std::ostream& o, const Roofline& r, const RooflineAxes& a) {
  // The memory roof up to the highest compute roof; each compute roof from its own ridge.
  if (r.hbm_bytes_per_s > 0) {
    const double xa = std::max(a.x0, a.y0 / r.hbm_bytes_per_s), xb = std::min(a.x1, a.ridge);
    o << "<line class=\"roof memory\" x1=\"" << num(a.x_at(xa)) << "\" y1=\""
      << num(a.y_at(r.hbm_bytes_per_s * xa)) << "\" x2=\"" << num(a.x_at(xb)) << "\" y2=\""
      << num(a.y_at(r.hbm_bytes_per_s * xb)) << "\"><title>HBM "
      << escape(si(r.hbm_bytes_per_s, "B/s")) << "</title></line>\n";
    o << "<text class=\"roof-label\" x=\"" << num(a.x_at(xa) + 4) << "\" y=\""
      << num(a.y_at(r.hbm_bytes_per_s * xa) - 6) << "\">HBM "
      << escape(si(r.hbm_bytes_per_s, "B/s")) << "</text>\n";
  }
  // Roofs of equal height (matrix and vector FP32 on gfx942) share one line and one label.
  std::vector<Roof> roofs;
  for (const auto& c : r.compute) {
    auto same = std::find_if(roofs.begin(), roofs.end(),
                             [&](const Roof& x) { return x.flops_per_s == c.flops_per_s; });
    if (same == roofs.end())
      roofs.push_back(c);
    else
      same->name += ", " + c.name;
  }
  for (const auto& c : roofs) {
    const double xa =
        r.hbm_bytes_per_s > 0 ? std::max(a.x0, c.flops_per_s / r.hbm_bytes_per_s) : a.x0;
    o << "<line class=\"roof compute\" x1=\"" << num(a.x_at(xa)) << "\" y1=\""
      << num(a.y_at(c.flops_per_s)) << "\" x2=\"" << a.left + a.pw << "\" y2=\""
      << num(a.y_at(c.flops_per_s)) << "\"><title>" << escape(c.name) << " "
      << escape(si(c.flops_per_s, "FLOP/s")) << "</title></line>"
      << "<text class=\"roof-label\" x=\"" << a.left + a.pw + 4 << "\" y=\""
      << num(a.y_at(c.flops_per_s) + 4) << "\">" << escape(c.name) << "</text>\n";
  }
}

void draw_roofline_points(std::ostream& o, const Roofline& r, const FamilyColours& colours,
                          const RooflineAxes& a) {
  std::vector<std::pair<double, double>> placed;  // label anchors already used
  for (const auto& p : r.points) {
    const double x = a.x_at(p.flop_per_byte), y = a.y_at(p.flops_per_s);
    // Points of one kernel often coincide: move a label down until it is clear of the others.
    double ly = y - 6;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [px, py] : placed)
        if (std::abs(px - x) < 70 && std::abs(py - ly) < 12) {
          ly = py + 12;
          moved = true;
        }
    }
    placed.push_back({x, ly});
    std::string cls = "roof-point";
    if (p.mixed) cls += " mixed";
    if (p.above_peak) cls += " above-peak";
    std::ostringstream title;
    title << p.family << " v" << p.variant << " (" << analysis::to_string(p.phase)
          << "): " << format_number(p.flop_per_byte) << " FLOP/B, " << si(p.flops_per_s, "FLOP/s")
          << ", " << p.launches << " launches"
          << (p.mixed ? "; FLOPs and bytes from different counter passes" : "")
          << (p.above_peak ? "; ABOVE A PHYSICAL PEAK" : "")
          << (p.kernel.empty() ? "" : "; kernel " + p.kernel);
    o << "<g class=\"" << cls << "\" data-phase=\"" << analysis::to_string(p.phase) << "\"><title>"
      << escape(title.str()) << "</title>";
    const std::string fill = p.mixed ? "none" : colours.of(p.family);
    if (p.phase == analysis::Phase::prefill)
      o << "<rect x=\"" << num(x - 5) << "\" y=\"" << num(y - 5)
        << "\" width=\"10\" height=\"10\" fill=\"" << fill << "\" stroke=\"" << colours.of(p.family)
        << "\"/>";
    else
      o << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"5\" fill=\"" << fill
        << "\" stroke=\"" << colours.of(p.family) << "\"/>";
    const bool right_side = x > a.left + a.pw - 80;
    o << "<text class=\"point-label\" x=\"" << num(right_side ? x - 8 : x + 8) << "\" y=\""
      << num(ly) << "\" text-anchor=\"" << (right_side ? "end" : "start") << "\">"
      << (p.above_peak ? "! " : "") << escape(point_name(p)) << "</text></g>\n";
  }
}

}  // namespace

std::string roofline_svg(const Roofline& r, const FamilyColours& colours) {
  const RooflineAxes a = roofline_axes(r);
  std::ostringstream o;
  o << "<svg class=\"chart roofline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
    << a.width << " " << a.height << "\" width=\"" << a.width << "\" height=\"" << a.height
    << "\" role=\"img\" aria-label=\"roofline, log-log\">\n"
    << "<rect class=\"plot\" x=\"" << a.left << "\" y=\"" << a.top << "\" width=\"" << a.pw
    << "\" height=\"" << a.ph << "\"/>\n";
  draw_roofline_grid(o, a);
  draw_roofs(o, r, a);
  draw_roofline_points(o, r, colours, a);
  o << "</svg>\n";
  return o.str();
}

}  // namespace kprof::report
