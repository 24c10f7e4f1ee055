// `kprof plan RUNBOOK`: the counter passes a runbook needs, their block occupancy, the lower bound,
// and every pass's exact command line and environment delta, trace pass included: the same use
// case `kprof run` launches from (core/exec/pass_plan.hpp). Plans only; runs no pass (it does run
// `<profiler> --version`, as `kprof run` does, because the command lines depend on it).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "apps/kprof/command.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/exec/gpu_list.hpp"
#include "core/exec/gpu_select.hpp"
#include "core/exec/pass_plan.hpp"
#include "core/exec/rotation_preview.hpp"
#include "core/runbook/runbook.hpp"

namespace {

using namespace kprof;

std::string seconds_text(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) * 1e-9);
  return buf;
}

std::pair<int64_t, int64_t> least_most(const std::vector<int64_t>& row) {
  const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
  return {row.empty() ? 0 : *lo, row.empty() ? 0 : *hi};
}

nlohmann::ordered_json rotation_json(const exec::RotationPreview& r) {
  nlohmann::ordered_json j = {{"groups", r.groups}, {"min_samples", r.min_samples}};
  if (!r.unavailable.empty()) {
    j["unavailable"] = r.unavailable;
    return j;
  }
  j["trace_run"] = r.trace_run;
  j["phase_known"] = r.phase_known;
  j["feasible"] = r.choice.feasible;
  if (!r.choice.feasible) j["why"] = r.choice.why;
  j["interval"] = r.choice.interval;
  j["repeats"] = r.choice.repeats;
  j["application_runs"] = 2;
  j["application_runs_replay"] = 1 + r.groups;
  j["region_ns"] = r.region_ns;
  j["statistical"] = true;
  j["variants"] = nlohmann::ordered_json::array();
  for (size_t v = 0; v < r.variants.size(); ++v) {
    nlohmann::ordered_json row = {{"kernel", r.variants[v].kernel},
                                  {"shape", r.variants[v].shape},
                                  {"per_request", r.variants[v].per_request}};
    if (v < r.choice.samples.size()) row["samples_per_group"] = r.choice.samples[v];
    j["variants"].push_back(row);
  }
  return j;
}

void print_rotation(const exec::RotationPreview& r, size_t width) {
  std::cout << "\n";
  if (!r.unavailable.empty()) {
    std::cout << wrap_text("one-run rotation (rocprofv3 pmc_groups): " + r.unavailable, width, 2)
              << "\n";
    return;
  }
  const auto& c = r.choice;
  std::cout << wrap_text("one-run rotation (rocprofv3 pmc_groups, ROCm 7.0+), planned on run " +
                             std::to_string(r.trace_run) +
                             "'s trace; `kprof run` does not launch it yet:",
                         width)
            << "\n";
  if (!c.feasible) {
    std::cout << wrap_text("  not possible: " + c.why + "; application replay needed", width, 2)
              << "\n";
    return;
  }
  std::cout << wrap_text("  " + std::to_string(r.groups) +
                             " groups (the counter passes above), pmc_group_interval " +
                             std::to_string(c.interval) + ", the request repeated " +
                             std::to_string(c.repeats) + " times in one run (--repeat " +
                             std::to_string(c.repeats) + "): 2 application runs (trace + 1 " +
                             "rotated) instead of " + std::to_string(1 + r.groups) +
                             "; one request's region took " + seconds_text(r.region_ns) +
                             " s in the trace, plus one model load and warm-up per run",
                         width, 2)
            << "\n";
  std::cout << wrap_text(
                   "  statistical: each launch is counted with one group only, so per-variant "
                   "figures are means over different launches (every variant >= " +
                       std::to_string(r.min_samples) + " samples of every group" +
                       (r.phase_known ? ")"
                                      : ", for every starting phase: this rocprofv3 counts "
                                        "the warm-up too)"),
                   width, 2)
            << "\n";
  std::cout << "  per request  samples per group (least..most)  variant\n";
  for (size_t v = 0; v < r.variants.size() && v < c.samples.size(); ++v) {
    const auto [lo, hi] = least_most(c.samples[v]);
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %11lld  %30s  ",
                  static_cast<long long>(r.variants[v].per_request),
                  (std::to_string(lo) + ".." + std::to_string(hi)).c_str());
    std::cout << buf << r.variants[v].kernel << " (" << r.variants[v].shape << ")\n";
  }
}

// The id `kprof run` would give the next run of this database: the commands hold it in paths.
int64_t next_run_id(const std::filesystem::path& db_path) {
  if (!std::filesystem::exists(db_path)) return 1;
  try {
    store::CaptureDb db(db_path, store::OpenMode::read_only);
    const auto last = db.find_last_run();
    return last ? last->id + 1 : 1;
  } catch (const Error&) {
    return 1;  // unreadable or older schema: `run` will report it; the plan stays useful
  }
}

// The command as one line, or on a terminal as lines of at most `width` columns joined by " \\"
// so that it still pastes into a shell.
std::string wrap_command(const std::vector<std::string>& argv, size_t width, size_t indent) {
  if (!width) return shell_join(argv);
  std::string out, line;
  for (const auto& a : argv) {
    const std::string word = shell_join({a});
    if (!line.empty() && indent + line.size() + 1 + word.size() + 2 > width) {
      out += line + " \\\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

nlohmann::ordered_json env_json(const store::EnvDelta& env) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& [k, v] : env) a.push_back({k, v});
  return a;
}

std::string env_line(const store::EnvDelta& env) {
  std::string s;
  for (const auto& [k, v] : env) s += (s.empty() ? "" : " ") + k + "=" + shell_quote(v);
  return s.empty() ? "(none)" : s;
}

int cmd_plan(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("format", po::value<std::string>()->default_value("text"), "text or json")(
      "simulate", "plan for the rocprofv3 test double, as `kprof run --simulate` runs")(
      "gpus", po::value<std::string>(), "show each GPU slot's environment, as `kprof run --gpus`")(
      "db", po::value<std::string>(), "capture database (default: the runbook's `database`)")(
      "node-budget", po::value<std::uint64_t>()->default_value(plan::PlanOptions{}.node_budget),
      "search nodes before the planner stops and reports its best plan as not proved")(
      "runbook", po::value<std::string>(), "the runbook (.yaml)");
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm =
      app::parse_args("plan", "RUNBOOK [--format text|json] [--simulate] [--gpus LIST] [--db PATH]",
                      args, opts, pos,
                      "examples:\n  kprof plan runbooks/qwen3-30b-a3b-sim.yaml\n  kprof plan "
                      "runbooks/qwen3-30b-a3b-mi300x.yaml --format json > plan.json\n      each "
                      "pass's counters, block slots and exact rocprofv3 argv, as JSON");
  if (!vm) return 0;
  if (!vm->count("runbook"))
    throw Error::input("no runbook given", "write 'kprof plan path/to/runbook.yaml'");
  const std::string format = (*vm)["format"].as<std::string>();
  if (format != "text" && format != "json")
    throw Error::input("unknown format '" + format + "'", "use --format text or --format json");

  runbook::Runbook rb = runbook::load_runbook((*vm)["runbook"].as<std::string>());
  if (vm->count("db")) runbook::use_database(rb, (*vm)["db"].as<std::string>());
  const auto backend = exec::make_profiler_backend(rb, {vm->count("simulate") > 0, std::nullopt});
  std::vector<int> gpus;
  if (vm->count("gpus")) gpus = exec::parse_gpu_list((*vm)["gpus"].as<std::string>());
  const auto slot_envs = exec::gpu_slot_envs(gpus, rb, exec::current_environment());
  const auto db_path = rb.database.value;
  const int64_t run_id = next_run_id(db_path);
  exec::RunPlanOptions ro;
  ro.planner.node_budget = (*vm)["node-budget"].as<std::uint64_t>();
  ro.filter_placeholder = "<decided after the trace pass>";
  const exec::RunPlan rp = exec::plan_run(rb, *backend, run_id, ro);
  const auto& version = backend->version();
  // One-run rotation of the planned passes as counter groups, on a trace already in the database.
  std::optional<exec::RotationPreview> rotation;
  if (rp.counters && rp.counters->plan.passes.size() >= 2)
    rotation = exec::preview_rotation(db_path, rb, rp.counters->plan.passes.size(), version);

  if (format == "json") {
    nlohmann::ordered_json j = {
        {"runbook", rb.source.string()},     {"arch", rb.target.arch.value},
        {"profiler", backend->executable()}, {"simulated", backend->simulated()},
        {"profiler_version", version.text},  {"run_id", run_id}};
    if (rp.counters) {
      const auto& c = *rp.counters;
      const auto& p = c.plan;
      const plan::Plan baseline = plan::first_fit_plan(c.target, c.request);
      j["requested_counters"] = c.request.counters.size();
      j["distinct_events"] = p.distinct_events;
      j["lower_bound"] = p.lower_bound;
      j["lower_bound_reason"] = p.lower_bound_reason;
      j["meets_lower_bound"] = static_cast<int>(p.passes.size()) == p.lower_bound;
      j["optimal"] = p.optimal;
      j["time_capped"] = p.time_capped;
      j["proved_at_least"] = p.proved_at_least;
      j["search_nodes"] = p.nodes;
      j["split_ratio_groups"] = p.split_groups;
      j["ratio_groups"] = c.request.groups.size();
      j["first_fit_passes"] = baseline.passes.size();
    }
    j["passes"] = nlohmann::ordered_json::array();  // the counter passes, as planned
    j["commands"] = nlohmann::ordered_json::array();
    for (const auto& cmd : rp.passes) {
      j["commands"].push_back({{"ordinal", cmd.ordinal},
                               {"kind", std::string(store::to_string(cmd.kind))},
                               {"argv", cmd.argv},
                               {"env", env_json(cmd.env)},
                               {"output_dir", cmd.output_dir.string()},
                               {"log", cmd.log_path.string()}});
      if (cmd.kind != store::PassKind::counters || !rp.counters) continue;
      const auto& pass = rp.counters->plan.passes.at(static_cast<size_t>(cmd.ordinal - 1));
      nlohmann::ordered_json events = nlohmann::ordered_json::array();
      for (const auto& e : pass.events) events.push_back(e.str());
      nlohmann::ordered_json occupancy = nlohmann::ordered_json::object();
      for (const auto& b : rp.counters->target.blocks()) {
        auto it = pass.used.find(b.name);
        if (it != pass.used.end())
          occupancy[b.name] = {{"used", it->second}, {"limit", b.counters_per_pass}};
      }
      j["passes"].push_back({{"index", cmd.ordinal},
                             {"counters", pass.counters},
                             {"events", events},
                             {"occupancy", occupancy},
                             {"argv", cmd.argv}});
    }
    if (rp.filter_after_trace) j["kernel_filter_after_trace"] = *rp.filter_after_trace;
    if (rotation) j["rotation"] = rotation_json(*rotation);
    j["gpu_slots"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < slot_envs.size(); ++i)
      j["gpu_slots"].push_back({{"gpu", gpus[i]}, {"env", env_json(slot_envs[i])}});
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }

  std::cout << "plan for " << rb.name.value << " (" << rb.source.string() << "), target "
            << rb.target.arch.value << "\n";
  std::cout << wrap_text("profiler: " + backend->executable() + ", " + version.summary() +
                             (backend->simulated() ? " — SIMULATED (test double)" : ""),
                         terminal_width(STDOUT_FILENO), 2)
            << "\n";
  if (rp.counters) {
    const auto& c = *rp.counters;
    const auto& p = c.plan;
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
    const bool met = static_cast<int>(p.passes.size()) == p.lower_bound;
    const std::string proof = p.optimal ? "optimal (proved)"
                              : p.time_capped
                                  ? "best found before the search budget ran out (not proved)"
                                  : "not proved";
    std::cout << "requested: " << join(what, "; ") << " -> " << c.request.counters.size()
              << " counters, " << p.distinct_events << " hardware events\n";
    std::cout << "passes: " << p.passes.size() << "   lower bound: " << p.lower_bound << " ("
              << p.lower_bound_reason << ")   "
              << (met ? "meets the lower bound" : "above the lower bound") << ", " << proof << "\n";
    if (!p.optimal && p.proved_at_least > p.lower_bound)
      std::cout << "proved: at least " << p.proved_at_least << " passes are needed\n";
    std::cout << "rocprofiler-compute first-fit on the same counters: "
              << plan::first_fit_plan(c.target, c.request).passes.size() << " passes\n";
    if (!c.request.groups.empty())
      std::cout << "ratio metrics split across passes: " << p.split_groups << " of "
                << c.request.groups.size() << "\n";
    std::cout << "planning time: " << static_cast<long>(c.planning_ms + 0.5) << " ms, " << p.nodes
              << " search nodes\n";
  } else {
    std::cout << "no counter passes (the runbook asks for none)\n";
  }
  // On a terminal the long lines wrap (commands with " \\" so they still paste into a shell).
  const size_t width = terminal_width(STDOUT_FILENO);
  std::cout << "\n"
            << wrap_text("commands of run " + std::to_string(run_id) + " in " + db_path.string() +
                             ", exactly as `kprof run` launches them" +
                             (rp.filter_after_trace ? ";" : ""),
                         width);
  if (rp.filter_after_trace)
    std::cout << "\n"
              << wrap_text("counter passes' kernel filter: " + *rp.filter_after_trace, width, 2);
  std::cout << "\n";
  // Passes by ordinal (0 = trace) and label, as `status`, `query passes` and progress name them.
  for (const auto& cmd : rp.passes) {
    if (cmd.kind == store::PassKind::trace) {
      std::cout << "\npass 0 (trace)";
    } else {
      const auto& pass = rp.counters->plan.passes.at(static_cast<size_t>(cmd.ordinal - 1));
      std::cout << "\npass " << cmd.ordinal << " (counters " << cmd.ordinal << "/"
                << rp.counters->plan.passes.size() << ")   "
                << plan::occupancy_text(rp.counters->target, pass)
                << "\n  counters: " << wrap_text(join(pass.counters, " "), width, 12);
    }
    std::cout << "\n  command:  " << wrap_command(cmd.argv, width, 12)
              << "\n  env:      " << wrap_text(env_line(cmd.env), width, 12) << "\n";
  }
  for (size_t i = 0; i < slot_envs.size(); ++i)
    std::cout << (i ? "" : "\n") << "GPU slot " << gpus[i] << " adds: " << env_line(slot_envs[i])
              << "\n";
  if (rotation) print_rotation(*rotation, width);
  return 0;
}

}  // namespace

KPROF_COMMAND("plan",
              "show the passes a runbook needs and each one's exact profiler command and env",
              cmd_plan);
