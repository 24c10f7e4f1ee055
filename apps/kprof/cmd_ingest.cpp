// `kprof ingest DB DIR|FILE...`: load rocprofv3 outputs captured by hand or on another machine
// into a capture database. Parses flags, calls the ingest use case
// (core/exec/usecases/ingest_capture.hpp: which pass each file goes to, one transaction), prints
// what it loaded (ingest_view.hpp), then stores each run's counter join and outline for queries
// (core/analysis/outline/stored_results.hpp) and says so: a query never writes the database.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/exec/usecases/ingest_capture.hpp"
#include "core/exec/usecases/ingest_view.hpp"

namespace {

using namespace kprof;

int cmd_ingest(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("pass-kind", po::value<std::string>(),
                     "trace or counters, for every pass (default: counters when a pass holds "
                     "counter_collection.csv)")(
      "run", po::value<std::string>(),
      "add the files to the run of this name (created when missing): each joins the pass its kind "
      "decides, with the files already there")(
      "replace", po::bool_switch(),
      "let a second kernel trace (or other files for an existing pass_N) replace the pass's rows")(
      "strict", po::bool_switch(), "fail on any bad row instead of counting it")(
      "db", po::value<std::string>(), "capture database")(
      "inputs", po::value<std::vector<std::string>>()->multitoken(), "rocprofv3 outputs");
  po::positional_options_description pos;
  pos.add("db", 1).add("inputs", -1);
  auto vm = app::parse_args(
      "ingest", "DB DIR|FILE... [--pass-kind trace|counters] [--run NAME] [--replace] [--strict]",
      args, opts, pos,
      "examples:\n  kprof ingest k.db path/to/rocprofv3-output/\n  kprof "
      "ingest k.db pass_1/ pass_2/ --run mi300x-2026-07-26 --strict");
  if (!vm) return 0;
  if (!vm->count("db") || !vm->count("inputs")) {
    throw Error::input("expected a database and at least one directory or file",
                       "usage: kprof ingest DB DIR|FILE...");
  }
  const std::string db_path = (*vm)["db"].as<std::string>();
  const auto inputs = (*vm)["inputs"].as<std::vector<std::string>>();
  exec::IngestRequest request;
  request.db = db_path;
  request.inputs = inputs;
  if (vm->count("pass-kind"))
    request.forced_kind = exec::parse_pass_kind_option((*vm)["pass-kind"].as<std::string>());
  request.read.strict = (*vm)["strict"].as<bool>();
  request.replace = (*vm)["replace"].as<bool>();
  if (vm->count("run")) request.run_name = (*vm)["run"].as<std::string>();
  const exec::IngestReport report = exec::ingest_capture(request);
  std::cout << exec::ingest_text(report, db_path, terminal_width(STDOUT_FILENO));
  // After the load's transaction: the rows are in whatever happens here.
  std::vector<int64_t> runs;
  for (const auto& run : report.runs) runs.push_back(run.id);
  analysis::print_stored_results(db_path, runs, std::cout);
  return 0;
}

}  // namespace

KPROF_COMMAND("ingest", "load rocprofv3 outputs (CSV or rocpd) into a capture database",
              cmd_ingest);
