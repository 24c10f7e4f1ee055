// `kprof report`: one self-contained HTML file (inline CSS and SVG, no script, no external
// resource) laid out from a ReportModel. A simulated run says SIMULATED at the top and in every
// section; a figure above a physical peak is flagged where it is shown.
#pragma once

#include <ostream>

#include "core/report/report_model.hpp"

namespace kprof::report {

void write_html_report(std::ostream& os, const ReportModel& model);

}  // namespace kprof::report
