// The report's charts, drawn as inline SVG from the typed values of report_model.hpp. No script,
// no external resource: the file opens from a file:// URL with the network off. Every mark has a
// class the browser test counts (bar, slice, roof-point) and a <title> tooltip with its full text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/report/report_model.hpp"

namespace kprof::report {

// Fill colour per family: the families chart's order (largest first) picks from one palette;
// families beyond it are grey.
class FamilyColours {
 public:
  explicit FamilyColours(const std::vector<Bar>& families);
  std::string of(const std::string& family) const;

 private:
  std::map<std::string, std::string> m_colour;
};

std::string families_svg(const std::vector<Bar>& bars, const FamilyColours& colours);
std::string timeline_svg(const Timeline& tl, const FamilyColours& colours);
std::string roofline_svg(const Roofline& r, const FamilyColours& colours);

// "1.23 ms", "456 us", "789 ns"
std::string duration_text(double ns);

}  // namespace kprof::report
