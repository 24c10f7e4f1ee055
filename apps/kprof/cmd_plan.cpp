// `kprof plan RUNBOOK`: the counter passes a runbook needs, their block occupancy, the lower bound
// and the exact rocprofv3 command line of every pass. Plans only; runs nothing.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/kprof/command.hpp"
#include "core/base/text.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/rocprof_command.hpp"
#include "core/plan/runbook_request.hpp"
#include "core/runbook/runbook.hpp"

namespace {

using namespace kprof;

int cmd_plan(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("format", po::value<std::string>()->default_value("text"), "text or json")(
      "node-budget", po::value<std::uint64_t>()->default_value(plan::PlanOptions{}.node_budget),
      "search nodes before the planner stops and reports its best plan as not proved")(
      "runbook", po::value<std::string>(), "the runbook (.yaml)");
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm = app::parse_args("plan", "RUNBOOK [--format text|json]", args, opts, pos);
  if (!vm) return 0;
  if (!vm->count("runbook"))
    throw Error::input("no runbook given", "write 'kprof plan path/to/runbook.yaml'");
  const std::string format = (*vm)["format"].as<std::string>();
  if (format != "text" && format != "json")
    throw Error::input("unknown format '" + format + "'", "use --format text or --format json");

  const runbook::Runbook rb = runbook::load_runbook((*vm)["runbook"].as<std::string>());
  const hw::Target target = hw::Target::load_arch(rb.target.arch.value);
  if (!rb.passes.counters.enabled.value)
    throw Error(ErrorKind::input,
                runbook::diagnostic(rb, rb.passes.counters.enabled.pos,
                                    "the runbook asks for no counter passes",
                                    "add passes.counters.metric_sets or passes.counters.counters"));
  std::vector<hw::MetricSet> sets;
  const auto known_sets = hw::metric_set_names();
  for (const auto& s : rb.passes.counters.metric_sets.value)
    if (std::find(known_sets.begin(), known_sets.end(), s.value) != known_sets.end())
      sets.push_back(hw::load_metric_set_named(s.value, target));
  const plan::Request request = plan::request_from_runbook(rb, target, sets);

  plan::PlanOptions options;
  options.node_budget = (*vm)["node-budget"].as<std::uint64_t>();
  const auto t0 = std::chrono::steady_clock::now();
  const plan::Plan p = plan::plan_passes(target, request, options);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const plan::Plan baseline = plan::first_fit_plan(target, request);

  // Kernels picked from the trace pass are only known after it ran: shown as a placeholder.
  std::optional<std::string> include;
  if (const auto& ft = rb.passes.counters.kernels.from_trace)
    include = "<top " + std::to_string(ft->top.value) + " kernels of the trace pass>";
  std::vector<std::vector<std::string>> argvs;
  for (size_t i = 0; i < p.passes.size(); ++i) {
    std::filesystem::path dir = rb.captures.value / ("counters-" + std::to_string(i + 1));
    argvs.push_back(plan::rocprof_argv(
        plan::pass_command_from_runbook(rb, p.passes[i].counters, dir, "counters", include)));
  }
  const bool met = static_cast<int>(p.passes.size()) == p.lower_bound;
  const std::string proof = p.optimal ? "optimal (proved)"
                            : p.time_capped
                                ? "best found before the search budget ran out (not proved)"
                                : "not proved";

  if (format == "json") {
    nlohmann::ordered_json j = {{"runbook", rb.source.string()},
                                {"arch", target.arch()},
                                {"requested_counters", request.counters.size()},
                                {"distinct_events", p.distinct_events},
                                {"lower_bound", p.lower_bound},
                                {"lower_bound_reason", p.lower_bound_reason},
                                {"meets_lower_bound", met},
                                {"optimal", p.optimal},
                                {"time_capped", p.time_capped},
                                {"proved_at_least", p.proved_at_least},
                                {"search_nodes", p.nodes},
                                {"split_ratio_groups", p.split_groups},
                                {"ratio_groups", request.groups.size()},
                                {"first_fit_passes", baseline.passes.size()},
                                {"passes", nlohmann::ordered_json::array()}};
    for (size_t i = 0; i < p.passes.size(); ++i) {
      const auto& pass = p.passes[i];
      nlohmann::ordered_json events = nlohmann::ordered_json::array();
      for (const auto& e : pass.events) events.push_back(e.str());
      nlohmann::ordered_json occupancy = nlohmann::ordered_json::object();
      for (const auto& b : target.blocks()) {
        auto it = pass.used.find(b.name);
        if (it != pass.used.end())
          occupancy[b.name] = {{"used", it->second}, {"limit", b.counters_per_pass}};
      }
      j["passes"].push_back({{"index", i + 1},
                             {"counters", pass.counters},
                             {"events", events},
                             {"occupancy", occupancy},
                             {"argv", argvs[i]}});
    }
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }

  std::cout << "plan for " << rb.name.value << " (" << rb.source.string() << "), target "
            << target.arch() << "\n";
  std::vector<std::string> what;
  if (!rb.passes.counters.metric_sets.value.empty()) {
    std::vector<std::string> names;
    for (const auto& s : rb.passes.counters.metric_sets.value) names.push_back(s.value);
    what.push_back("metric sets " + join(names, ", "));
  }
  if (!rb.passes.counters.counters.value.empty())
    what.push_back(std::to_string(rb.passes.counters.counters.value.size()) + " counters");
  if (!rb.passes.counters.pins.value.empty())
    what.push_back(std::to_string(rb.passes.counters.pins.value.size()) +
                   (rb.passes.counters.pins.value.size() == 1 ? " pin" : " pins"));
  std::cout << "requested: " << join(what, "; ") << " -> " << request.counters.size()
            << " counters, " << p.distinct_events << " hardware events\n";
  std::cout << "passes: " << p.passes.size() << "   lower bound: " << p.lower_bound << " ("
            << p.lower_bound_reason << ")   "
            << (met ? "meets the lower bound" : "above the lower bound") << ", " << proof << "\n";
  if (!p.optimal && p.proved_at_least > p.lower_bound)
    std::cout << "proved: at least " << p.proved_at_least << " passes are needed\n";
  std::cout << "rocprofiler-compute first-fit on the same counters: " << baseline.passes.size()
            << " passes\n";
  if (!request.groups.empty())
    std::cout << "ratio metrics split across passes: " << p.split_groups << " of "
              << request.groups.size() << "\n";
  std::cout << "planning time: " << static_cast<long>(ms + 0.5) << " ms, " << p.nodes
            << " search nodes\n";
  for (size_t i = 0; i < p.passes.size(); ++i) {
    std::cout << "\npass " << i + 1 << "/" << p.passes.size() << "   "
              << plan::occupancy_text(target, p.passes[i])
              << "\n  counters: " << join(p.passes[i].counters, " ")
              << "\n  command:  " << shell_join(argvs[i]) << "\n";
  }
  return 0;
}

}  // namespace

KPROF_COMMAND("plan", "show the counter passes a runbook needs and their rocprofv3 commands",
              cmd_plan);
