// `kprof report DB [-o report.html] [--run R]`: one self-contained HTML file of a run (charts,
// explanation, roofline, provenance), built from the query session (core/report).
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/run_args.hpp"
#include "core/base/output_file.hpp"
#include "core/base/table.hpp"
#include "core/report/html_report.hpp"
#include "core/report/report_model.hpp"
#include "core/report/run_ref.hpp"
#include "core/store/database_path.hpp"

namespace {

namespace po = kprof::app::po;

int cmd_report(const kprof::app::Args& args) {
  po::options_description opts("options");
  kprof::app::RunFlags run;
  std::string out = "report.html", baseline;
  kprof::app::add_run_options(opts, run);
  opts.add_options()("output,o", po::value(&out), "the HTML file to write (default: report.html)")(
      "baseline", po::value(&baseline),
      "compare with this run (DB or DB:RUN), as `kprof compare BASELINE DB` does")(
      "force", po::bool_switch(), "--baseline: compare runs of different targets anyway");
  auto vm = kprof::app::parse_args(
      "report", "DB [-o report.html] [--run R] [--baseline DB[:RUN]]", args, opts,
      kprof::app::run_positionals(),
      "The report is one HTML file with inline SVG charts and no script or network access: it\n"
      "opens from a file:// URL. A simulated run is marked SIMULATED in every section.\n"
      "\nexamples:\n"
      "  kprof report out/q.db -o q.html\n"
      "  kprof report out/q.db --run 2 -o run2.html\n"
      "  kprof report out/today.db --baseline out/yesterday.db -o today.html");
  if (!vm) return 0;
  // Refused before the work: the report may never replace a database it is read from.
  std::vector<std::filesystem::path> inputs = {run.db};
  if (!baseline.empty()) inputs.push_back(kprof::report::parse_run_ref(baseline).db);
  kprof::check_output_path(out, inputs);
  kprof::store::with_database_errors(inputs, [&] {
    // The report's views are all bounded ones (report_model.hpp): no trace dispatch is held.
    auto session = kprof::app::open_run(run, "usage: kprof report DB -o report.html", true);
    kprof::report::ReportOptions ro;
    ro.run_id = run.run_id();
    auto model = kprof::report::build_report_model(session, ro);
    if (!baseline.empty()) {
      auto base = kprof::report::open_run_ref(baseline);
      kprof::report::CompareOptions co;
      co.force = (*vm)["force"].as<bool>();
      model.baseline = kprof::report::compare_runs(
          base.session, base.label, session,
          run.db + " run " + std::to_string(session.trace_capture().run.id), co);
    }
    kprof::write_file_atomically(
        out, inputs, [&](std::ostream& os) { kprof::report::write_html_report(os, model); });
    for (const auto& n : model.notes) std::cerr << kprof::note_line(n, STDERR_FILENO) << "\n";
    std::cout << "wrote " << out << (model.simulated ? " (SIMULATED run)" : "") << "\n";
  });
  return 0;
}

}  // namespace

KPROF_COMMAND("report", "write a self-contained HTML report of a run: charts, roofline, timeline",
              cmd_report);
