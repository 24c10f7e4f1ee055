// `kprof export DB --perfetto trace.json [--run R]`: the run as Chrome trace-event JSON for
// ui.perfetto.dev and chrome://tracing (core/report/perfetto.hpp).
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/run_args.hpp"
#include "core/analysis/views/session.hpp"
#include "core/base/error.hpp"
#include "core/base/output_file.hpp"
#include "core/base/table.hpp"
#include "core/report/perfetto.hpp"
#include "core/store/database_path.hpp"

namespace {

namespace po = kprof::app::po;

int cmd_export(const kprof::app::Args& args) {
  po::options_description opts("options");
  kprof::app::RunFlags run;
  std::string perfetto;
  kprof::app::add_run_options(opts, run);
  opts.add_options()("perfetto", po::value(&perfetto),
                     "write Chrome trace-event JSON to this file");
  auto vm = kprof::app::parse_args(
      "export", "DB --perfetto trace.json [--run R]", args, opts, kprof::app::run_positionals(),
      "The trace opens in https://ui.perfetto.dev (Open trace file) and chrome://tracing: one\n"
      "track per process, agent and queue; each dispatch a slice with its kernel, family,\n"
      "variant, phase, step, counters and derived metrics; steps and phases as enclosing slices;\n"
      "counter-pass dispatches on their own processes (each pass is a separate run).\n"
      "\nexamples:\n"
      "  kprof export out/q.db --perfetto q.json");
  if (!vm) return 0;
  if (run.db.empty())
    throw kprof::Error::input("missing capture database",
                              "usage: kprof export DB --perfetto trace.json");
  if (perfetto.empty())
    throw kprof::Error::input("no output format given", "write --perfetto trace.json");
  // Refused before the work: the trace may never replace the database it is read from.
  kprof::check_output_path(perfetto, {run.db});
  kprof::store::with_database_errors({run.db}, [&] {
    auto exp = kprof::report::PerfettoExport::open(run.db, run.run_id());
    for (const auto& j : exp.joins_computed())
      std::cerr << kprof::note_line(kprof::analysis::join_note(j), STDERR_FILENO) << "\n";
    for (const auto& n : exp.notes()) std::cerr << "kprof: note: " << n << "\n";
    kprof::report::PerfettoSummary sum;
    kprof::write_file_atomically(perfetto, {run.db},
                                 [&](std::ostream& os) { sum = exp.write(os); });
    std::cout << "wrote " << perfetto << ": " << sum.dispatch_slices << " dispatch slices, "
              << sum.step_slices << " phase and step slices, " << sum.counter_pass_slices
              << " counter-pass dispatch slices"
              << (sum.overlap_lanes ? ", " + std::to_string(sum.overlap_lanes) +
                                          " overlap lanes for dispatches that overlap on a queue"
                                    : "")
              << (sum.simulated ? " (SIMULATED run)" : "") << "\n";
  });
  return 0;
}

}  // namespace

KPROF_COMMAND("export", "write a run as Chrome trace-event JSON for Perfetto (--perfetto FILE)",
              cmd_export);
