#include "apps/kprof/query_args.hpp"

#include "core/base/text.hpp"

namespace kprof::app {

void add_query_options(po::options_description& opts, analysis::QueryArgs& q, std::string& sql,
                       TableFlags& table) {
  opts.add_options()("db", po::value(&q.db), "capture database")(
      "view", po::value(&q.view), kprof::join(analysis::view_names(), " | ").c_str())(
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
      "all", po::bool_switch(&q.all),
      "roofline, metrics: every row and column (default on a terminal: the rows with counters "
      "and FLOP/s, bytes/s, intensity, bound, % of peak)")(
      "force-join", po::bool_switch(&q.force_join),
      "use the counters of a join that failed its self-check (matches far apart); still flagged");
  add_table_options(opts, table);
}

po::positional_options_description query_positionals() {
  po::positional_options_description pos;
  pos.add("db", 1).add("view", 1).add("family-arg", 1);
  return pos;
}

const char* const k_query_help =
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
    "  metric_sets per variant and phase: the metric sets' metrics (l2_hit_percent, ...), "
    "flagged\n"
    "  roofline  per family and phase: rates against the target's peaks, and the bound\n"
    "  passes    the run's passes (0 = trace), states and the join's match rate\n"
    "  samples   per variant and counter: n, mean, sd, se (rotated runs: one group a launch)\n"
    "  ranks     per rank (GPU) of a tensor-parallel trace: compute, collectives, exposed time, "
    "skew\n"
    "\nexamples:\n"
    "  kprof query out/q.db top --limit 10\n"
    "  kprof query out/q.db explain fused_moe_kernel\n"
    "  kprof query out/q.db roofline --phase decode --format csv > roofline.csv\n"
    "  kprof query out/q.db --sql \"SELECT kernel_name, count(*) FROM v_dispatches GROUP BY 1\"";

}  // namespace kprof::app
