// The driver's decisions on what to run (driver_loop.hpp): the run's plan, replay: auto's choice
// on this run's trace, rotated counter passes, the kernels of interest, and the earlier run the
// ETA starts from.
#include <algorithm>
#include <filesystem>

#include "core/base/crash_point.hpp"
#include "core/exec/passes/kernel_selection.hpp"
#include "core/exec/passes/replay_choice.hpp"
#include "core/exec/passes/rotated_pass.hpp"
#include "core/exec/run/driver_loop.hpp"
#include "core/plan/rotation.hpp"

namespace kprof::exec::driver_detail {

namespace fs = std::filesystem;
using store::PassKind;
using store::PassState;

// The durations of the latest earlier run of the same runbook text in this database: the ETA's
// estimate until a pass of this run ends.
void Driver::estimate_from_earlier_run() {
  const auto runs = m_db.list_runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->id == m_run_id || it->runbook_sha256 != m_rb.sha256) continue;
    std::vector<std::chrono::milliseconds> took;
    for (const auto& p : m_db.list_passes(it->id))
      if (p.state == PassState::done && p.started_ms && p.finished_ms)
        took.emplace_back(*p.finished_ms - *p.started_ms);
    if (took.empty()) continue;
    m_progress.set_earlier_run(took, it->id);
    return;
  }
}

// The run's plan, made once by the executor (the same use case `kprof plan` prints:
// pass_plan.hpp).
const RunPlan& Driver::run_plan() const { return m_plan; }

// A counter pass that rotates the planned passes as groups: `replay: rotate`, or `auto` that
// chose rotation on this run's trace (then the run holds that one counter pass).
bool Driver::rotated(const store::PassInfo& p) {
  if (p.kind != PassKind::counters) return false;
  const RunPlan& plan = run_plan();
  if (!plan.counters || plan.counters->plan.passes.size() < 2) return false;
  if (plan.replay.mode == ReplayMode::rotate) return true;
  if (plan.replay.mode != ReplayMode::after_trace) return false;
  size_t counter_passes = 0;
  for (const auto& q : m_db.list_passes(m_run_id)) counter_passes += q.kind == PassKind::counters;
  return counter_passes == 1;
}

// replay: auto waits for this run's trace, and no counter pass is recorded yet.
bool Driver::undecided() {
  const RunPlan& plan = run_plan();
  if (plan.replay.mode != ReplayMode::after_trace || !plan.counters) return false;
  for (const auto& p : m_db.list_passes(m_run_id))
    if (p.kind == PassKind::counters) return false;  // decided before
  return true;
}

// `replay: auto` with rotation possible (replay_choice.hpp): once this run's trace is in, the
// rotation is simulated on its dispatch sequence and the counter passes are recorded, ONE
// rotated pass or one per planned pass, in one transaction (a resume after a kill finds either
// none, and decides again, or all).
// A trace pass that failed leaves nothing to plan on: one run per pass, as before rotation.
void Driver::decide_after_trace(bool trace_ok) {
  if (!undecided()) return;
  const RunPlan& plan = run_plan();
  RunPlan decided = plan;
  if (trace_ok) {
    const RotationPreview preview =
        rotation_on_run(m_db, m_run_id, m_rb, plan.counters->plan.passes.size(),
                        m_backend.version(), m_rb.passes.counters.min_samples.value);
    decided.replay = choose_replay_on_trace(preview, m_rb);
  } else {
    decided.replay = {ReplayMode::application,
                      "this run's trace pass did not finish, and rotation is planned on it"};
  }
  {
    store::WriteTransaction tx(m_db);
    for (const auto& c : commands_for_run(decided, m_rb, m_backend, m_run_id)) {
      if (c.kind == PassKind::counters) m_db.add_planned_pass(m_run_id, planned_pass(c));
    }
    tx.commit();
  }
  const auto passes = m_db.list_passes(m_run_id);
  const int counters = static_cast<int>(std::count_if(
      passes.begin(), passes.end(), [](auto& p) { return p.kind == PassKind::counters; }));
  m_progress.set_total(static_cast<int>(passes.size()), counters);
  m_progress.set_work(m_to_run + counters, work_width(counters));
  m_progress.message(std::string("replay: auto -> ") +
                     (decided.replay.mode == ReplayMode::rotate ? "one rotated counter run: "
                                                                : "one run per counter pass: ") +
                     decided.replay.why);
}

std::optional<std::string> Driver::select_counted_kernels(int64_t trace_pass_id) {
  Selection sel = select_kernels(m_rb.passes.counters.kernels, kernel_totals(m_db, trace_pass_id));
  m_db.set_selected_kernels(m_run_id, sel.kernels);
  crash_point("run.selection_stored");
  std::optional<std::string> include_regex = sel.include_regex;
  if (!include_regex && m_backend.counters_count_outside_regions()) {
    // This profiler counts outside the selected region too (rocprofv3_version.hpp): keep
    // counter passes to the kernels the trace saw inside it. Launches of the same kernels
    // before the region (the warm-up) are still counted; the join leaves them unmatched.
    std::vector<std::string> names;
    if (!sel.kernels.empty()) {
      for (const auto& k : sel.kernels) names.push_back(k.name);
    } else {
      for (const auto& t : kernel_totals(m_db, trace_pass_id)) names.push_back(t.name);
    }
    if (!names.empty()) include_regex = exact_names_regex(names);
  }
  if (!sel.kernels.empty()) {
    m_progress.message("kernels of interest: " + std::to_string(sel.kernels.size()) + " (" +
                       sel.kernels.front().reason + ")");
  }
  return include_regex;
}

// The pass's command, made once by the same factory `kprof plan` prints with (pass_plan.hpp),
// from the request as this run decided it.
Job Driver::job_of(const store::PassInfo& p, const std::optional<std::string>& include_regex) {
  PassRequest request = pass_request(m_rb, m_run_id, p.ordinal, p.kind, p.counters, include_regex);
  request.replay_groups = kernel_replay_groups(m_rb, m_backend, run_plan(), p.kind);
  Job j;
  if (rotated(p)) {
    // Rotation: interval and repeats chosen on this run's trace (rotated_pass.hpp).
    const RunPlan& plan = run_plan();
    std::vector<std::vector<std::string>> groups =
        plan::rotation_groups(plan.counters->plan, plan.counters->request);
    const fs::path input = rotation_input_file(m_rb, m_run_id, p.ordinal);
    const RotatedPass rot =
        prepare_rotated_pass(m_db, m_run_id, m_rb, m_backend, std::move(groups), input);
    request.input_file = input;
    request.repeats = rot.repeats;
    j.groups = rot.groups;
    m_progress.message("rotated counter pass: " + std::to_string(rot.groups.size()) +
                       " groups, pmc_group_interval " + std::to_string(rot.interval) +
                       ", the request repeated " + std::to_string(rot.repeats) +
                       " times: every variant of interest gets >= " +
                       std::to_string(rot.basis.choice.least) + " launches of every group");
  }
  j.pass_id = p.id;
  j.ordinal = p.ordinal;
  j.kind = p.kind;
  j.counters = p.counters;
  // The command recorded with the pass was made by the same factory from the same request when
  // nothing decided since changes it (no kernel filter from the trace, not rotated) and the
  // runbook is the one the run recorded: it is launched as stored, not made again.
  if (!include_regex && j.groups.empty() && !p.argv.empty() && m_recorded_sha == m_rb.sha256) {
    j.request = std::move(request);
    j.argv = p.argv;
    return j;
  }
  PlannedCommand c = pass_command(m_rb, m_backend, m_run_id, p.ordinal, p.kind, std::move(request));
  j.request = std::move(c.request);
  j.argv = std::move(c.argv);
  return j;
}

std::pair<Job, std::string> Driver::adopted_job(const store::PassInfo& p,
                                                const std::optional<std::string>& include_regex) {
  Job j = job_of(p, include_regex);
  j.argv = p.argv;  // the command that attempt runs
  j.tries = static_cast<int>(p.attempts);
  m_progress.message("pass " + std::to_string(p.ordinal) + ": waiting for " +
                     std::string(m_launcher.name()) + " attempt " + m_adopted.at(p.id) +
                     " left by the previous kprof");
  return {std::move(j), m_adopted.at(p.id)};
}

}  // namespace kprof::exec::driver_detail
