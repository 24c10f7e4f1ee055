// kprof query DB <view> [FAMILY] | kprof query DB --sql "SELECT ...": the analysis' named views.
// Parses flags, calls the query use case (core/analysis/query.hpp: checks the flags into a request,
// joins counter passes to the trace first when a pass has no stored mapping yet, and says so),
// prints the table.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/table_args.hpp"
#include "core/analysis/query.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"

namespace {

namespace an = kprof::analysis;
namespace po = kprof::app::po;

int cmd_query(const kprof::app::Args& args) {
  po::options_description opts("options");
  an::QueryArgs q;
  kprof::app::TableFlags table;
  std::string sql;
  opts.add_options()("db", po::value(&q.db), "capture database")(
      "view", po::value(&q.view), kprof::join(an::view_names(), " | ").c_str())(
      "family-arg", po::value(&q.family_arg), "a family (explain FAMILY)")(
      "sql", po::value(&sql),
      "run one SELECT on a read-only connection instead of a view (no writes, no ATTACH, no "
      "VACUUM, no PRAGMA assignments)")("timeout", po::value(&q.timeout),
                                        "--sql: stop the statement after this long (default 60s)")(
      "family", po::value(&q.family), "only this kernel family")(
      "phase", po::value(&q.phase),
      "only this phase: prefill | decode | step | irregular | partial | unknown | other")(
      "limit", po::value(&q.limit), "at most this many rows")("run", po::value(&q.run),
                                                              "run id (default: the latest run)")(
      "expect-layers", po::value(&q.expect_layers),
      "check: layers per step the model has (runbook hint)")(
      "expect-steps", po::value(&q.expect_steps),
      "check: steps (output tokens) expected (runbook hint)")(
      "metric-set", po::value(&q.metric_sets)->composing(),
      "metric_sets: this set of configs/metrics (repeatable; default: the runbook's, else every "
      "set whose counters the run has)")(
      "force-join", po::bool_switch(&q.force_join),
      "use the counters of a join that failed its self-check (matches far apart); still flagged");
  kprof::app::add_table_options(opts, table);
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
  const an::Format f = kprof::app::table_format(table);
  an::PrintOptions print_options = kprof::app::print_options(table);
  if (vm->count("sql")) q.sql = sql;
  print_options.exact_columns = q.sql.has_value();
  q.structured = f != an::Format::table;  // explain: one row per term, not prose
  const an::QueryResult result = an::run_query(an::query_request(q));
  for (const auto& j : result.joins) std::cerr << kprof::note_line(j, STDERR_FILENO) << "\n";
  for (const auto& n : result.notes) std::cerr << "kprof: note: " << n << "\n";
  an::print(std::cout, result.table, f, print_options);
  return 0;
}

}  // namespace

KPROF_COMMAND("query", "explain a capture: families, variants, phases, counters, roofline, SQL",
              cmd_query);
