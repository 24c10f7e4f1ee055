// kprof query DB <view> [FAMILY] | kprof query DB --sql "SELECT ...": the analysis' named views.
// Parses flags, calls the query use case (core/analysis/query.hpp: joins counter passes to the
// trace first when a pass has no stored mapping yet, and says so), prints the table.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/analysis/query.hpp"
#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"

namespace {

namespace an = kprof::analysis;
namespace po = kprof::app::po;

int cmd_query(const kprof::app::Args& args) {
  po::options_description opts("options");
  std::string db_path, view, family_arg, sql, format = "table", family, phase, timeout_text = "60s";
  int64_t limit = 0, run = 0, layers = 0, tokens = 0, width = -1;
  opts.add_options()("db", po::value(&db_path), "capture database")(
      "view", po::value(&view),
      "top | families | variants | phases | structure | windows | explain | counters | metrics | "
      "metric_sets | roofline | passes | samples")("family-arg", po::value(&family_arg),
                                                   "a family (explain FAMILY)")(
      "sql", po::value(&sql),
      "run one SELECT on a read-only connection instead of a view (no writes, no ATTACH, no "
      "VACUUM, no PRAGMA assignments)")("timeout", po::value(&timeout_text),
                                        "--sql: stop the statement after this long (default 60s)")(
      "format", po::value(&format), "table | csv | jsonl | json")(
      "wide", po::bool_switch(), "full kernel names and no width limit in tables")(
      "width", po::value(&width), "table width in columns, 0 = no limit (default: the terminal's)")(
      "family", po::value(&family), "only this kernel family")(
      "phase", po::value(&phase),
      "only this phase: prefill | decode | step | irregular | partial | unknown | other")(
      "limit", po::value(&limit), "at most this many rows")("run", po::value(&run),
                                                            "run id (default: the latest run)")(
      "expect-layers", po::value(&layers), "check: layers per step the model has (runbook hint)")(
      "expect-steps", po::value(&tokens), "check: steps (output tokens) expected (runbook hint)")(
      "metric-set", po::value<std::vector<std::string>>()->composing(),
      "metric_sets: this set of configs/metrics (repeatable; default: the runbook's, else every "
      "set whose counters the run has)")(
      "force-join", po::bool_switch(),
      "use the counters of a join that failed its self-check (matches far apart); still flagged");
  po::positional_options_description pos;
  pos.add("db", 1).add("view", 1).add("family-arg", 1);
  auto vm = kprof::app::parse_args(
      "query", "kprof query DB <view> [FAMILY] [options]  |  kprof query DB --sql \"SELECT ...\"",
      args, opts, pos,
      "views:\n"
      "  top       kernels by summed trace duration (short names; --wide for full ones)\n"
      "  families  kernel families (configs/families rules) with launches and variant counts\n"
      "  variants  distinct launch configurations: grid, workgroup, LDS, scratch, registers\n"
      "  phases    steps found from the dispatch sequence: prefill, decode, layers, evidence\n"
      "  structure every finding with its confidence and evidence, and what was not established\n"
      "  windows   stretches of the trace with no missing Dispatch_Id, and the steps in each\n"
      "  explain   launches = steps x layers x launches per layer x variants, per family\n"
      "  counters  counter values joined onto trace dispatches, per counter and pass\n"
      "  metrics   per variant and phase: FLOPs, bytes, intensity, achieved rates\n"
      "  metric_sets per variant: the metrics of the metric sets (l2_hit_percent, ...), flagged\n"
      "  roofline  per family and phase: rates against the target's peaks, and the bound\n"
      "  passes    the run's passes (0 = trace), states and the join's match rate\n"
      "  samples   per variant and counter: n, mean, sd, se (rotated runs: one group a launch)\n"
      "\nexamples:\n"
      "  kprof query out/q.db top --limit 10\n"
      "  kprof query out/q.db explain fused_moe_kernel\n"
      "  kprof query out/q.db roofline --phase decode --format csv > roofline.csv\n"
      "  kprof query out/q.db --sql \"SELECT kernel_name, count(*) FROM v_dispatches GROUP BY 1\"");
  if (!vm) return 0;
  if (db_path.empty()) {
    throw kprof::Error::input("missing capture database", "usage: kprof query DB <view>");
  }
  const an::Format f = an::parse_format(format);
  an::PrintOptions print_options;
  print_options.layout.wide = (*vm)["wide"].as<bool>();
  print_options.layout.width = print_options.layout.wide ? 0
                               : width >= 0              ? static_cast<size_t>(width)
                                                         : kprof::terminal_width(STDOUT_FILENO);
  if (!family_arg.empty()) {
    if (!family.empty() && family != family_arg)
      throw kprof::Error::input(
          "two families given ('" + family_arg + "' and --family '" + family + "')", "give one");
    family = family_arg;
  }
  an::QueryRequest request;
  request.db = db_path;
  request.view = view;
  if (run) request.session.run_id = run;
  if (layers) request.session.layers = static_cast<int>(layers);  // flags override the runbook
  if (tokens) request.session.output_tokens = static_cast<int>(tokens);
  request.session.force_join = (*vm)["force-join"].as<bool>();
  request.options.family = family;
  request.options.phase = an::parse_phase_option(phase);
  request.options.limit = limit > 0 ? static_cast<size_t>(limit) : 0;
  if (vm->count("metric-set"))
    request.options.metric_sets = (*vm)["metric-set"].as<std::vector<std::string>>();
  request.options.structured = f != an::Format::table;  // explain: one row per term, not prose
  if (vm->count("sql")) {
    if (!view.empty())
      throw kprof::Error::input("give a view or --sql, not both", "see 'kprof query --help'");
    const auto timeout = kprof::parse_duration(timeout_text);
    if (!timeout || timeout->count() <= 0)
      throw kprof::Error::input("--timeout: '" + timeout_text + "' is not a duration",
                                "write e.g. 90s, 10m or 500ms");
    request.sql = sql;
    request.timeout = *timeout;
    print_options.exact_columns = true;
  }
  const an::QueryResult result = an::run_query(request);
  for (const auto& j : result.joins) std::cerr << kprof::note_line(j, STDERR_FILENO) << "\n";
  for (const auto& n : result.notes) std::cerr << "kprof: note: " << n << "\n";
  an::print(std::cout, result.table, f, print_options);
  return 0;
}

}  // namespace

KPROF_COMMAND("query", "explain a capture: families, variants, phases, counters, roofline, SQL",
              cmd_query);
