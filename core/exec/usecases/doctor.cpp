#include "core/exec/usecases/doctor.hpp"

#include <set>

#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/exec/launch/registered_names.hpp"
#include "core/exec/node/tool_probe.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/exec/profiler/rocprofv3_backend.hpp"
#include "core/exec/usecases/doctor_node.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

namespace {

DoctorCheck failed(std::string what, std::string fix) {
  return {CheckState::failed, std::move(what), std::move(fix)};
}

// An Error's first diagnostic as a check: its line, and its hint as the fix.
DoctorCheck failed_with(const std::string& what, const Error& e) {
  const auto& d = e.diagnostics();
  std::string text = what + ": " + (d.empty() ? std::string(e.what()) : d.front().what);
  if (!d.empty() && d.front().pos) text = d.front().pos->str() + ": " + text;
  if (d.size() > 1) text += " (and " + std::to_string(d.size() - 1) + " more problems)";
  std::string fix =
      d.empty() || d.front().hint.empty() ? std::string("see 'kprof validate'") : d.front().hint;
  return failed(text, fix);
}

const std::string k_install_fix =
    "install ROCm 7.0 or later with rocprofiler-sdk and put rocprofv3 on PATH (docs/real-node.md), "
    "or set profiler.path in the runbook";

// The profiler line: the release found and what kprof does with it.
DoctorCheck profiler_check(const std::string& executable, const ProfilerVersion& v, bool simulated,
                           bool regions) {
  if (!v.known() && v.release.empty()) return failed("rocprofv3: " + v.text, k_install_fix);
  std::string what = (simulated ? "rocprofv3 (the test double): " : "rocprofv3: ") + v.summary() +
                     " at " + executable + "; kprof uses the " + v.table().name +
                     " option table, " + (v.has_rocpd() ? "rocpd" : "csv") + " output";
  if (regions) what += "; " + v.region_way();
  return {CheckState::passed, what, {}};
}

// The hardware counters of every counter pass the plan holds.
std::set<std::string> planned_counters(const RunPlan& plan) {
  std::set<std::string> out;
  for (const auto& p : plan.passes)
    out.insert(p.request.counters.begin(), p.request.counters.end());
  return out;
}

// Checks that need no runbook: the rocprofv3 on PATH and any GPU.
void node_checks(DoctorReport& report) {
  if (!find_tool("rocprofv3")) {
    report.checks.push_back(failed("rocprofv3: not found on PATH", k_install_fix));
  } else {
    const auto v = read_rocprofv3_version("rocprofv3", {});
    report.checks.push_back(profiler_check("rocprofv3", v, false, false));
  }
  report.checks.push_back(check_gpus("", {}));
}

void runbook_checks(DoctorReport& report, runbook::Runbook& rb, const DoctorRequest& request) {
  const auto env = workload_env(rb);
  std::unique_ptr<ProfilerBackend> backend;
  try {
    backend = make_profiler_backend(rb, {request.simulate, std::nullopt});
  } catch (const Error& e) {
    report.checks.push_back(failed_with("rocprofv3", e));
    return;
  }
  const bool found = backend->simulated() || find_tool(backend->executable(), env).has_value();
  if (!found) {
    report.checks.push_back(
        failed("rocprofv3: '" + backend->executable() + "' not found on PATH", k_install_fix));
  } else {
    report.checks.push_back(profiler_check(backend->executable(), backend->version(),
                                           backend->simulated(),
                                           rb.profiler.selected_regions.value));
  }
  if (backend->simulated()) {
    report.checks.push_back({CheckState::skipped,
                             "GPUs, PyTorch, vLLM, model weights: not needed (the test double "
                             "simulates " +
                                 rb.target.arch.value + ")",
                             {}});
  } else {
    report.checks.push_back(check_gpus(rb.target.arch.value, env, rb.workload.ranks.value));
    for (auto& c : check_python_packages(rb)) report.checks.push_back(std::move(c));
    if (auto w = check_model_weights(rb)) report.checks.push_back(std::move(*w));
  }
  std::optional<RunPlan> plan;
  try {
    plan = plan_run(rb, *backend, 1);
  } catch (const Error& e) {
    report.checks.push_back(failed_with("plan", e));
  }
  if (plan && plan->counters) {
    const auto counters = planned_counters(*plan);
    if (!found) {
      report.checks.push_back({CheckState::skipped, "counters: no rocprofv3 to list them", {}});
    } else {
      // Releases before 6.4 list the counters with -L/--list-metrics (configs/rocprofv3 tables).
      const auto& table = backend->version().table();
      const std::string list = table.has("--list-avail")     ? "--list-avail"
                               : table.has("--list-metrics") ? "--list-metrics"
                                                             : "";
      if (list.empty())
        report.checks.push_back({CheckState::skipped,
                                 "counters: rocprofv3 " + backend->version().release +
                                     " has neither --list-avail nor --list-metrics; kprof's " +
                                     rb.target.arch.value +
                                     " table is all there is to check them against",
                                 {}});
      else
        report.checks.push_back(check_counters(backend->executable(), list, env, counters));
    }
  }
  report.checks.push_back(check_free_disk(rb.captures.value, request.min_free_bytes));
}

}  // namespace

bool DoctorReport::ok() const {
  for (const auto& c : checks)
    if (c.state == CheckState::failed) return false;
  return true;
}

DoctorReport run_doctor(const DoctorRequest& request) {
  DoctorReport report;
  if (!request.runbook) {
    node_checks(report);
    return report;
  }
  runbook::Runbook rb;
  try {
    rb = runbook::load_runbook(*request.runbook);
    if (request.db) runbook::use_database(rb, *request.db);
    check_registered_names(rb);
  } catch (const Error& e) {
    report.checks.push_back(failed_with("runbook " + request.runbook->string(), e));
    node_checks(report);
    return report;
  }
  report.checks.push_back({CheckState::passed,
                           "runbook " + rb.source.string() + ": valid (" + rb.name.value + ")",
                           {}});
  runbook_checks(report, rb, request);
  return report;
}

std::string doctor_text(const DoctorReport& report, size_t width) {
  std::string out;
  int failures = 0;
  for (const auto& c : report.checks) {
    const char* mark = c.state == CheckState::passed   ? "✔"
                       : c.state == CheckState::failed ? "✘"
                                                       : "–";
    out += wrap_text(std::string(mark) + " " + c.what, width, 2) + "\n";
    if (c.state == CheckState::failed) {
      out += wrap_text("    fix: " + c.fix, width, 9) + "\n";
      ++failures;
    }
  }
  out += failures == 0 ? "doctor: ready\n"
                       : "doctor: " + std::to_string(failures) + " check" +
                             (failures == 1 ? "" : "s") + " failed\n";
  return out;
}

}  // namespace kprof::exec
