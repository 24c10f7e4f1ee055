#include "core/exec/usecases/plan_view.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/gpu_select.hpp"

namespace kprof::exec {

namespace {

std::string seconds_text(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) * 1e-9);
  return buf;
}

std::pair<int64_t, int64_t> least_most(const std::vector<int64_t>& row) {
  const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
  return {row.empty() ? 0 : *lo, row.empty() ? 0 : *hi};
}

nlohmann::ordered_json rotation_json(const RotationPreview& r) {
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

void print_rotation(std::ostream& os, const RotationPreview& r, size_t width, bool launched,
                    bool auto_replay) {
  os << "\n";
  if (!r.unavailable.empty()) {
    os << wrap_text("one-run rotation (rocprofv3 pmc_groups): " + r.unavailable, width, 2) << "\n";
    return;
  }
  const auto& c = r.choice;
  os << wrap_text("one-run rotation (rocprofv3 pmc_groups, ROCm 7.0+), planned on run " +
                      std::to_string(r.trace_run) + "'s trace" +
                      (launched      ? "; `kprof run` launches it as pass 1 (replay: rotate):"
                       : auto_replay ? "; what replay: auto would launch if it rotates:"
                                     : "; `replay: rotate` would launch it:"),
                  width)
     << "\n";
  if (!c.feasible) {
    os << wrap_text("  not possible: " + c.why + "; application replay needed", width, 2) << "\n";
    return;
  }
  os << wrap_text("  " + std::to_string(r.groups) +
                      " groups (the counter passes above), pmc_group_interval " +
                      std::to_string(c.interval) + ", the request repeated " +
                      std::to_string(c.repeats) + " times in one run (--repeat " +
                      std::to_string(c.repeats) + "): 2 application runs (trace + 1 " +
                      "rotated) instead of " + std::to_string(1 + r.groups) +
                      "; one request's region took " + seconds_text(r.region_ns) +
                      " s in the trace, plus one model load and warm-up per run",
                  width, 2)
     << "\n";
  os << wrap_text(
            "  statistical: each launch is counted with one group only, so per-variant "
            "figures are means over different launches (every variant >= " +
                std::to_string(r.min_samples) + " samples of every group" +
                (r.phase_known ? ")"
                               : ", for every starting phase: this rocprofv3 counts "
                                 "the warm-up too)"),
            width, 2)
     << "\n";
  os << "  per request  groups x samples per group (least..most)  variant\n";
  for (size_t v = 0; v < r.variants.size() && v < c.samples.size(); ++v) {
    const auto [lo, hi] = least_most(c.samples[v]);
    char buf[96];
    std::snprintf(buf, sizeof buf, "  %11lld  %41s  ",
                  static_cast<long long>(r.variants[v].per_request),
                  (std::to_string(c.samples[v].size()) + " x " + std::to_string(lo) + ".." +
                   std::to_string(hi))
                      .c_str());
    os << buf << r.variants[v].kernel << " (" << r.variants[v].shape << ")\n";
  }
}

// All of `kprof plan`'s time, then its parts: the pass search is milliseconds, while reading a
// large trace for the rotation preview or simulating the workload model for the estimate takes
// seconds, and a figure without them would hide where the command spends its time.
std::string planning_time(const RunbookPlan& bp) {
  const auto ms = [](double v) { return std::to_string(static_cast<long>(v + 0.5)) + " ms"; };
  std::string s = "planning time: " + ms(bp.total_ms) + " in all: pass search " +
                  ms(bp.plan.counters->planning_ms) + " (" +
                  std::to_string(bp.plan.counters->plan.nodes) + " search nodes)";
  if (bp.rotation && bp.rotation->trace_run)
    s += ", rotation preview on run " + std::to_string(bp.rotation->trace_run) + "'s trace " +
         ms(bp.preview_ms);
  if (bp.estimate) s += ", run estimate " + ms(bp.estimate_ms);
  return s;
}

std::string replay_line(const RunbookPlan& bp) {
  const ReplayChoice& r = bp.plan.replay;
  const bool automatic = bp.rb.passes.counters.replay.value == runbook::Replay::automatic;
  std::string s = "replay: ";
  if (r.mode == ReplayMode::after_trace) {
    s += "auto, " + r.why;
    if (bp.predicted)
      s += "; on run " + std::to_string(bp.rotation->trace_run) + "'s trace it chooses " +
           (bp.predicted->mode == ReplayMode::rotate ? "rotation: " : "application replay: ") +
           bp.predicted->why;
    return s;
  }
  s += r.mode == ReplayMode::rotate   ? "rotate"
       : r.mode == ReplayMode::kernel ? "kernel, " + r.why
                                      : "application";
  s += automatic ? " (auto" + (r.why.empty() ? std::string() : ": " + r.why) + ")"
                 : " (the runbook's)";
  if (!r.warning.empty()) s += "; WARNING: " + r.warning;
  return s;
}

nlohmann::ordered_json replay_json(const RunbookPlan& bp) {
  nlohmann::ordered_json j = {
      {"asked", std::string(runbook::to_string(bp.rb.passes.counters.replay.value))},
      {"mode", to_string(bp.plan.replay.mode)},
      {"why", bp.plan.replay.why}};
  if (bp.predicted)
    j["predicted"] = {{"mode", to_string(bp.predicted->mode)}, {"why", bp.predicted->why}};
  return j;
}

std::string fixed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string fixed3(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}

void print_estimate(std::ostream& os, const RunEstimate& e, size_t width) {
  os << "\n";
  if (!e.unavailable.empty()) {
    os << wrap_text("run-time estimate: " + e.unavailable, width, 2) << "\n";
    return;
  }
  os << wrap_text("run-time ESTIMATE (SIMULATED: workload model " + e.model +
                      "'s modelled times, not measured): one application run = load " +
                      fixed1(e.load_s) + " s + warm-up " + fixed3(e.warmup_s) +
                      " s + one request " + fixed3(e.region_s) + " s",
                  width, 2)
     << "\n";
  os << wrap_text("  application replay: " + std::to_string(e.application_runs) +
                      " application runs, " + fixed1(e.application_s) + " s",
                  width, 4)
     << "\n";
  os << wrap_text("  rotated:            " + std::to_string(e.rotated_runs) +
                      " application runs (trace + one rotated run of " + std::to_string(e.repeats) +
                      " request" + (e.repeats == 1 ? "" : "s") + "), " + fixed1(e.rotated_s) +
                      " s" + (e.repeats_basis.empty() ? "" : "; " + e.repeats_basis),
                  width, 4)
     << "\n";
}

nlohmann::ordered_json estimate_json(const RunEstimate& e) {
  if (!e.unavailable.empty()) return {{"unavailable", e.unavailable}};
  return {{"simulated", true},
          {"model", e.model},
          {"load_s", e.load_s},
          {"warmup_s", e.warmup_s},
          {"region_s", e.region_s},
          {"application_runs", e.application_runs},
          {"application_s", e.application_s},
          {"rotated_runs", e.rotated_runs},
          {"repeats", e.repeats},
          {"repeats_basis", e.repeats_basis},
          {"rotated_s", e.rotated_s}};
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

}  // namespace

std::string plan_json(const RunbookPlan& bp) {
  const RunPlan& rp = bp.plan;
  nlohmann::ordered_json j = {{"runbook", bp.rb.source.string()},
                              {"arch", bp.rb.target.arch.value},
                              {"profiler", bp.profiler},
                              {"simulated", bp.simulated},
                              {"profiler_version", bp.version.text},
                              {"profiler_release", bp.version.release},
                              {"run_id", bp.run_id}};
  if (bp.rb.profiler.selected_regions.value) j["region"] = bp.version.region_way();
  if (rp.counters) {
    const auto& c = *rp.counters;
    const auto& p = c.plan;
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
    j["first_fit_passes"] = bp.first_fit_passes;
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
    if (cmd.request.input_file) {  // replay: rotate: one pass, the planned passes its groups
      nlohmann::ordered_json groups = nlohmann::ordered_json::array();
      for (const auto& g : rp.counters->plan.passes) groups.push_back(g.counters);
      j["commands"].back()["rotated_groups"] = groups;
      continue;
    }
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
  if (rp.counters) j["replay"] = replay_json(bp);
  if (bp.rotation) j["rotation"] = rotation_json(*bp.rotation);
  if (bp.estimate) j["estimate"] = estimate_json(*bp.estimate);
  j["gpu_slots"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < bp.slot_envs.size(); ++i)
    j["gpu_slots"].push_back({{"gpu", bp.slots[i].front()},  // its first GPU, as before ranks
                              {"gpus", bp.slots[i]},
                              {"env", env_json(bp.slot_envs[i])}});
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string plan_text(const RunbookPlan& bp, size_t width) {
  const RunPlan& rp = bp.plan;
  std::ostringstream os;
  os << "plan for " << bp.rb.name.value << " (" << bp.rb.source.string() << "), target "
     << bp.rb.target.arch.value << "\n";
  os << wrap_text("profiler: " + bp.profiler + ", " + bp.version.summary() +
                      (bp.simulated ? " — SIMULATED (test double)" : ""),
                  width, 2)
     << "\n";
  if (bp.rb.profiler.selected_regions.value)
    os << wrap_text("region: " + bp.version.region_way(), width, 2) << "\n";
  if (rp.counters) {
    const auto& c = *rp.counters;
    const auto& p = c.plan;
    std::vector<std::string> what;
    if (!bp.rb.passes.counters.metric_sets.value.empty()) {
      std::vector<std::string> names;
      for (const auto& s : bp.rb.passes.counters.metric_sets.value) names.push_back(s.value);
      what.push_back("metric sets " + join(names, ", "));
    }
    if (!bp.rb.passes.counters.counters.value.empty())
      what.push_back(std::to_string(bp.rb.passes.counters.counters.value.size()) + " counters");
    if (!bp.rb.passes.counters.pins.value.empty())
      what.push_back(std::to_string(bp.rb.passes.counters.pins.value.size()) +
                     (bp.rb.passes.counters.pins.value.size() == 1 ? " pin" : " pins"));
    const bool met = static_cast<int>(p.passes.size()) == p.lower_bound;
    const std::string proof = p.optimal ? "optimal (proved)"
                              : p.time_capped
                                  ? "best found before the search budget ran out (not proved)"
                                  : "not proved";
    os << "requested: " << join(what, "; ") << " -> " << c.request.counters.size() << " counters, "
       << p.distinct_events << " hardware events\n";
    os << "passes: " << p.passes.size() << "   lower bound: " << p.lower_bound << " ("
       << p.lower_bound_reason << ")   "
       << (met ? "meets the lower bound" : "above the lower bound") << ", " << proof << "\n";
    if (!p.optimal && p.proved_at_least > p.lower_bound)
      os << "proved: at least " << p.proved_at_least << " passes are needed\n";
    os << "first-fit (our reimplementation of rocprofiler-compute's policy) on the same counters: "
       << bp.first_fit_passes << " passes\n";
    if (!c.request.groups.empty())
      os << "ratio metrics split across passes: " << p.split_groups << " of "
         << c.request.groups.size() << "\n";
    os << wrap_text(planning_time(bp), width, 2) << "\n";
    if (p.passes.size() >= 2) os << wrap_text(replay_line(bp), width, 2) << "\n";
  } else {
    os << "no counter passes (the runbook asks for none)\n";
  }
  os << "\n"
     << wrap_text("commands of run " + std::to_string(bp.run_id) + " in " +
                      bp.rb.database.value.string() + ", exactly as `kprof run` launches them" +
                      (rp.filter_after_trace ? ";" : ""),
                  width);
  if (rp.filter_after_trace)
    os << "\n" << wrap_text("counter passes' kernel filter: " + *rp.filter_after_trace, width, 2);
  os << "\n";
  // Passes by ordinal (0 = trace) and label, as `status`, `query passes` and progress name them.
  for (const auto& cmd : rp.passes) {
    if (cmd.kind == store::PassKind::trace) {
      os << "\npass 0 (trace)";
    } else if (!cmd.request.replay_groups.empty()) {
      // replay: kernel: the planned passes are the groups every dispatch is replayed with.
      const auto& groups = cmd.request.replay_groups;
      os << "\npass " << cmd.ordinal << " (counters, kernel replay: " << groups.size()
         << " groups, each counted dispatch run once per group)";
      for (size_t g = 0; g < groups.size(); ++g)
        os << "\n  group " << g + 1 << ":  " << wrap_text(join(groups[g], " "), width, 12);
    } else if (cmd.request.input_file) {
      // replay: rotate: the planned passes are the groups of one run (rotated_pass.hpp).
      const auto& groups = rp.counters->plan.passes;
      os << "\npass " << cmd.ordinal << " (counters, rotated: " << groups.size()
         << " groups over successive dispatches; interval and --repeat chosen on the trace)";
      for (size_t g = 0; g < groups.size(); ++g)
        os << "\n  group " << g + 1 << ":  " << wrap_text(join(groups[g].counters, " "), width, 12);
    } else {
      const auto& pass = rp.counters->plan.passes.at(static_cast<size_t>(cmd.ordinal - 1));
      os << "\npass " << cmd.ordinal << " (counters " << cmd.ordinal << "/"
         << rp.counters->plan.passes.size() << ")   "
         << plan::occupancy_text(rp.counters->target, pass)
         << "\n  counters: " << wrap_text(join(pass.counters, " "), width, 12);
    }
    os << "\n  command:  " << wrap_command(cmd.argv, width, 12)
       << "\n  env:      " << wrap_text(env_line(cmd.env), width, 12) << "\n";
  }
  for (size_t i = 0; i < bp.slot_envs.size(); ++i)
    os << (i ? "" : "\n") << "GPU slot " << gpu_slot_text(bp.slots[i])
       << " adds: " << env_line(bp.slot_envs[i]) << "\n";
  if (bp.rotation)
    print_rotation(os, *bp.rotation, width, rp.replay.mode == ReplayMode::rotate,
                   bp.rb.passes.counters.replay.value == runbook::Replay::automatic);
  if (bp.estimate) print_estimate(os, *bp.estimate, width);
  return os.str();
}

}  // namespace kprof::exec
