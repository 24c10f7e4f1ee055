// The driver loop of `kprof run` and `kprof resume` (driver.hpp): the order of the passes. The
// trace pass first; the kernels of interest and replay: auto's decision from its ingested rows;
// then the counter passes. Which commands (driver_decide.cpp), how they are scheduled
// (driver_launch.cpp) and how each attempt's end is recorded (driver_outcome.cpp) are beside it.
#include "core/exec/run/driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "core/base/environment.hpp"
#include "core/base/error.hpp"
#include "core/exec/node/gpu_select.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/run_lock.hpp"
#include "core/exec/passes/kernel_selection.hpp"
#include "core/exec/passes/replay_choice.hpp"
#include "core/exec/run/driver_loop.hpp"

namespace kprof::exec {

std::ostream& out_of(const ExecOptions& o) { return o.out ? *o.out : std::cout; }

namespace driver_detail {

using store::PassKind;
using store::PassState;

Driver::Driver(store::CaptureDb& db, const runbook::Runbook& rb, const ProfilerBackend& backend,
               const RunPlan& plan, PassLauncher& launcher, int64_t run_id,
               const ExecOptions& options)
    : m_db(db),
      m_rb(rb),
      m_backend(backend),
      m_plan(plan),
      m_launcher(launcher),
      m_run_id(run_id),
      m_recorded_sha(db.find_run(run_id).value_or(store::RunInfo{}).runbook_sha256),
      m_options(options),
      m_slots(gpu_slots(options.gpus, rb)),
      m_slot_env(gpu_slot_envs(m_slots, rb, current_environment())),
      m_host(host_name()),
      m_progress(out_of(options), options.tty.value_or(::isatty(STDOUT_FILENO) == 1),
                 options.quiet) {}

ExecResult Driver::drive() {
  const auto passes = m_db.list_passes(m_run_id);
  m_to_run = start_progress(passes);
  const store::PassInfo* trace = nullptr;
  for (const auto& p : passes) {
    if (p.kind == PassKind::trace) trace = &p;
  }

  bool trace_ok = trace == nullptr || trace->state == PassState::done;
  if (trace && trace->state == PassState::planned) {
    Job j = job_of(*trace, std::nullopt);
    run_jobs({j}, 1);
    trace_ok = m_db.find_pass(trace->id)->state == PassState::done;
  } else if (trace && m_adopted.count(trace->id)) {
    run_jobs({}, 1, {adopted_job(*trace, std::nullopt)});
    trace_ok = m_db.find_pass(trace->id)->state == PassState::done;
  }

  std::optional<std::string> include_regex;
  bool can_count = !interrupt_signal();
  if (can_count && trace_ok && trace) {
    try {
      include_regex = select_counted_kernels(trace->id);
    } catch (const Error& e) {
      m_progress.message(std::string("kernel selection failed: ") + e.what());
      can_count = false;
    }
  } else if (!trace_ok && selection_needs_trace(m_rb.passes.counters.kernels)) {
    // from_trace needs the trace: counter passes stay planned for a resume.
    can_count = false;
  } else if (!trace_ok && trace) {
    // A trace pass that failed, after the retries its policy allows, stops the run: the counter
    // passes run the same workload and would most likely fail the same way, each a full run of
    // it. They wait, blocked, until a resume has the trace pass done.
    const auto traced = m_db.find_pass(trace->id);
    const std::string why = traced->reason;
    if (traced->state == PassState::failed) {
      try {
        if (undecided()) decide_after_trace(false);  // records the passes that wait
      } catch (const Error& e) {
        m_progress.message(std::string("replay: auto: ") + e.what());
      }
      block_counter_passes(why);
      can_count = false;
    }
  }

  if (can_count && trace) {
    try {
      decide_after_trace(trace_ok);
    } catch (const Error& e) {
      m_progress.message(std::string("replay: auto: ") + e.what());
      can_count = false;
    }
  }

  if (can_count) run_counter_passes(include_regex);
  return finish();
}

// Progress's totals: the passes done before (a resume) and those to run; returns how many are
// planned now.
int Driver::start_progress(const std::vector<store::PassInfo>& passes) {
  m_progress.set_total(static_cast<int>(passes.size()),
                       static_cast<int>(std::count_if(passes.begin(), passes.end(), [](auto& p) {
                         return p.kind == PassKind::counters;
                       })));
  int to_run = 0;
  for (const auto& p : passes) {
    to_run += p.state == PassState::planned;
    if (p.state != PassState::done) continue;
    m_progress.count_done_before();
    if (p.started_ms && p.finished_ms)
      m_progress.add_finished_before(std::chrono::milliseconds(*p.finished_ms - *p.started_ms));
  }
  // A launcher with its own scheduler runs every counter pass at once (as far as it knows).
  m_progress.set_work(to_run, work_width(to_run));
  if (undecided()) {
    // Until the trace decides, progress counts one run per planned pass (the most it can be).
    const int n = static_cast<int>(run_plan().counters->plan.passes.size());
    m_progress.set_total(static_cast<int>(passes.size()) + n, n);
    m_progress.set_work(to_run + n, work_width(to_run + n));
  }
  estimate_from_earlier_run();
  if (m_rb.passes.counters.replay.value == runbook::Replay::automatic &&
      m_rb.passes.counters.enabled.value && !run_plan().replay.why.empty() &&
      run_plan().replay.mode != ReplayMode::after_trace)
    m_progress.message("replay: auto -> one run per counter pass: " + run_plan().replay.why);
  if (!run_plan().replay.warning.empty())
    m_progress.message("WARNING: " + run_plan().replay.warning);
  return to_run;
}

// Each planned counter pass keeps its state with the reason it waits (status shows it blocked).
void Driver::block_counter_passes(const std::string& trace_failure) {
  const std::string reason = std::string(k_blocked_prefix) + "the trace pass failed (" +
                             trace_failure +
                             "); `kprof resume --retry-failed` runs this pass once the trace pass "
                             "is done";
  int n = 0;
  for (const auto& p : m_db.list_passes(m_run_id)) {
    if (p.kind != PassKind::counters || p.state != PassState::planned) continue;
    store::PassTransition t;
    t.state = PassState::planned;
    t.reason = reason;
    m_db.set_pass_state(p.id, t);
    ++n;
  }
  if (n > 0)
    m_progress.message(std::to_string(n) + " counter passes blocked: the trace pass failed (" +
                       trace_failure + ")");
}

// Every planned counter pass (and those a resume adopted), on the GPU slots or, for a launcher
// with its own scheduler (Slurm), all at once: one array job.
void Driver::run_counter_passes(const std::optional<std::string>& include_regex) {
  std::vector<Job> jobs;
  std::vector<std::pair<Job, std::string>> adopted;
  for (const auto& p : m_db.list_passes(m_run_id)) {
    if (p.kind != PassKind::counters) continue;
    if (p.state == PassState::planned) {
      try {
        jobs.push_back(job_of(p, include_regex));
      } catch (const Error& e) {
        fail_unplannable(p, e.what());
      }
    }
    if (m_adopted.count(p.id)) adopted.push_back(adopted_job(p, include_regex));
  }
  const size_t slots = slot_count(jobs.size() + adopted.size());
  run_jobs(std::move(jobs), slots, std::move(adopted));
}

}  // namespace driver_detail

ExecResult drive_run(store::CaptureDb& db, const runbook::Runbook& rb,
                     const ProfilerBackend& backend, const RunPlan& plan, PassLauncher& launcher,
                     int64_t run_id, const ExecOptions& options,
                     const std::vector<std::pair<int64_t, std::string>>& adopted) {
  driver_detail::Driver driver(db, rb, backend, plan, launcher, run_id, options);
  for (const auto& [pass_id, id] : adopted) driver.adopt(pass_id, id);
  return driver.drive();
}

}  // namespace kprof::exec
