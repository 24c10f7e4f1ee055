// The driver loop of `kprof run` and `kprof resume` (driver.hpp): schedules the planned passes on
// the launcher, records every state change, ingests each attempt and decides retries.
#include "core/exec/driver.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "core/base/crash_point.hpp"
#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/failure.hpp"
#include "core/exec/gpu_select.hpp"
#include "core/exec/kernel_selection.hpp"
#include "core/exec/pass_ingest.hpp"
#include "core/exec/pass_plan.hpp"
#include "core/exec/process_runner.hpp"
#include "core/exec/progress.hpp"
#include "core/exec/replay_choice.hpp"
#include "core/exec/rotated_pass.hpp"
#include "core/exec/run_lock.hpp"
#include "core/ingest/group_check.hpp"
#include "core/plan/rotation.hpp"

namespace kprof::exec {

std::ostream& out_of(const ExecOptions& o) { return o.out ? *o.out : std::cout; }

namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;
using store::PassKind;
using store::PassState;

// The pass folder is emptied before every attempt: rocprofv3 names files by pid (%pid%), so an
// earlier attempt's files would otherwise be ingested with the new ones (paths: pass_plan.hpp).

struct Job {
  int64_t pass_id = 0;
  int64_t ordinal = 0;
  PassKind kind = PassKind::trace;
  std::vector<std::string> counters;
  PassRequest request;  // what the backend built the command from (and classifies against)
  std::vector<std::string> argv;
  // A rotated pass (replay: rotate): its counter groups, which ingest tells each dispatch's from.
  std::vector<std::vector<std::string>> groups;
  int tries = 0;             // attempts started by this kprof process
  std::string last_failure;  // why the previous attempt failed, when this one is a retry
  clock::time_point not_before{};
};

struct Finished {
  Job job;
  size_t slot = 0;
  RunResult result;
  std::optional<std::string> launch_error;
};

// An attempt the launcher runs.
struct Running {
  Job job;
  size_t slot = 0;
};

class Driver {
 public:
  Driver(store::CaptureDb& db, const runbook::Runbook& rb, const ProfilerBackend& backend,
         PassLauncher& launcher, int64_t run_id, const ExecOptions& options)
      : m_db(db),
        m_rb(rb),
        m_backend(backend),
        m_launcher(launcher),
        m_run_id(run_id),
        m_options(options),
        m_slot_env(gpu_slot_envs(options.gpus, rb, current_environment())),
        m_host(host_name()),
        m_progress(out_of(options), options.tty.value_or(::isatty(STDOUT_FILENO) == 1),
                   options.quiet) {}

  // An attempt a killed kprof left that the launcher took over (resume): drive() waits for it
  // instead of running its pass again.
  void adopt(int64_t pass_id, std::string id) { m_adopted[pass_id] = std::move(id); }

  // Runs every pass that is `planned` (the caller reset the ones to re-run).
  ExecResult drive() {
    auto passes = m_db.list_passes(m_run_id);
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
    m_progress.set_work(to_run, m_launcher.schedules_itself()
                                    ? to_run
                                    : static_cast<int>(std::max<size_t>(m_options.gpus.size(), 1)));
    m_to_run = to_run;
    if (undecided()) {
      // Until the trace decides, progress counts one run per planned pass (the most it can be).
      const int n = static_cast<int>(run_plan().counters->plan.passes.size());
      m_progress.set_total(static_cast<int>(passes.size()) + n, n);
      m_progress.set_work(to_run + n,
                          m_launcher.schedules_itself()
                              ? to_run + n
                              : static_cast<int>(std::max<size_t>(m_options.gpus.size(), 1)));
    }
    estimate_from_earlier_run();
    if (m_rb.passes.counters.replay.value == runbook::Replay::automatic &&
        m_rb.passes.counters.enabled.value && !run_plan().replay.why.empty() &&
        run_plan().replay.mode != ReplayMode::after_trace)
      m_progress.message("replay: auto -> one run per counter pass: " + run_plan().replay.why);
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
        Selection sel =
            select_kernels(m_rb.passes.counters.kernels, kernel_totals(m_db, trace->id));
        m_db.set_selected_kernels(m_run_id, sel.kernels);
        crash_point("run.selection_stored");
        include_regex = sel.include_regex;
        if (!include_regex && m_backend.counters_count_outside_regions()) {
          // This profiler counts outside the selected region too (rocprofv3_version.hpp): keep
          // counter passes to the kernels the trace saw inside it. Launches of the same kernels
          // before the region (the warm-up) are still counted; the join leaves them unmatched.
          std::vector<std::string> names;
          if (!sel.kernels.empty()) {
            for (const auto& k : sel.kernels) names.push_back(k.name);
          } else {
            for (const auto& t : kernel_totals(m_db, trace->id)) names.push_back(t.name);
          }
          if (!names.empty()) include_regex = exact_names_regex(names);
        }
        if (!sel.kernels.empty()) {
          m_progress.message("kernels of interest: " + std::to_string(sel.kernels.size()) + " (" +
                             sel.kernels.front().reason + ")");
        }
      } catch (const Error& e) {
        m_progress.message(std::string("kernel selection failed: ") + e.what());
        can_count = false;
        m_selection_failed = true;
      }
    } else if (!trace_ok && selection_needs_trace(m_rb.passes.counters.kernels)) {
      // from_trace needs the trace: counter passes stay planned for a resume.
      can_count = false;
    }

    if (can_count && trace) {
      try {
        decide_after_trace(trace_ok);
      } catch (const Error& e) {
        m_progress.message(std::string("replay: auto: ") + e.what());
        can_count = false;
      }
    }

    if (can_count) {
      std::vector<Job> jobs;
      std::vector<std::pair<Job, std::string>> adopted;
      for (const auto& p : m_db.list_passes(m_run_id)) {
        if (p.kind != PassKind::counters) continue;
        if (p.state == PassState::planned) {
          try {
            jobs.push_back(job_of(p, include_regex));
          } catch (const Error& e) {
            // A rotated pass that cannot be planned on this trace: nothing is launched.
            store::PassTransition t;
            t.state = PassState::failed;
            t.reason = std::string(e.what()) + " (not retried: deterministic)";
            m_db.set_pass_state(p.id, t);
            m_progress.pass_finished(p.ordinal, "failed", std::chrono::milliseconds(0), *t.reason);
          }
        }
        if (m_adopted.count(p.id)) adopted.push_back(adopted_job(p, include_regex));
      }
      // A launcher with its own scheduler (Slurm) gets every pass at once: one array job.
      const size_t slots = m_launcher.schedules_itself()
                               ? std::max<size_t>(1, jobs.size() + adopted.size())
                           : m_options.gpus.empty() ? 1
                                                    : m_options.gpus.size();
      run_jobs(std::move(jobs), slots, std::move(adopted));
    }
    return finish();
  }

 private:
  // The durations of the latest earlier run of the same runbook text in this database: the ETA's
  // estimate until a pass of this run ends.
  void estimate_from_earlier_run() {
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

  // The run's plan, made once (the same use case `kprof plan` prints: pass_plan.hpp).
  const RunPlan& run_plan() {
    if (!m_plan) m_plan = plan_run(m_rb, m_backend, m_run_id);
    return *m_plan;
  }

  // A counter pass that rotates the planned passes as groups: `replay: rotate`, or `auto` that
  // chose rotation on this run's trace (then the run holds that one counter pass).
  bool rotated(const store::PassInfo& p) {
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
  bool undecided() {
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
  void decide_after_trace(bool trace_ok) {
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
    m_progress.set_work(m_to_run + counters,
                        m_launcher.schedules_itself()
                            ? counters
                            : static_cast<int>(std::max<size_t>(m_options.gpus.size(), 1)));
    m_progress.message(std::string("replay: auto -> ") +
                       (decided.replay.mode == ReplayMode::rotate ? "one rotated counter run: "
                                                                  : "one run per counter pass: ") +
                       decided.replay.why);
  }

  // The pass's command, built by the same use case `kprof plan` prints (pass_plan.hpp).
  Job job_of(const store::PassInfo& p, const std::optional<std::string>& include_regex) {
    PlannedCommand c =
        pass_command(m_rb, m_backend, m_run_id, p.ordinal, p.kind, p.counters, include_regex);
    Job j;
    if (rotated(p)) {
      // Rotation: interval and repeats chosen on this run's trace (rotated_pass.hpp).
      const RunPlan& plan = run_plan();
      std::vector<std::vector<std::string>> groups =
          plan::rotation_groups(plan.counters->plan, plan.counters->request);
      const fs::path input = rotation_input_file(m_rb, m_run_id, p.ordinal);
      const RotatedPass rot =
          prepare_rotated_pass(m_db, m_run_id, m_rb, m_backend, std::move(groups), input);
      c.request.input_file = input;
      c.request.repeats = rot.repeats;
      c.argv = m_backend.argv(c.request);
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
    j.request = c.request;
    j.argv = c.argv;
    return j;
  }

  std::pair<Job, std::string> adopted_job(const store::PassInfo& p,
                                          const std::optional<std::string>& include_regex) {
    Job j = job_of(p, include_regex);
    j.argv = p.argv;  // the command that attempt runs
    j.tries = static_cast<int>(p.attempts);
    m_progress.message("pass " + std::to_string(p.ordinal) + ": waiting for " +
                       std::string(m_launcher.name()) + " attempt " + m_adopted.at(p.id) +
                       " left by the previous kprof");
    return {std::move(j), m_adopted.at(p.id)};
  }

  LaunchSpec spec_of(const Job& j, size_t slot) {
    LaunchSpec s;
    s.ordinal = j.ordinal;
    s.argv = j.argv;
    // The profiler itself is never run through a shell; `shell: true` already made the
    // application `/bin/sh -c LINE` (core/plan).
    for (const auto& [k, v] : m_backend.env()) s.env[k] = v;
    if (slot < m_slot_env.size()) {
      for (const auto& [k, v] : m_slot_env[slot]) s.env[k] = v;
    }
    s.cwd = m_rb.workload.cwd.value;
    s.log_path = pass_log(m_rb, m_run_id, j.ordinal);
    s.output_dir = pass_dir(m_rb, m_run_id, j.ordinal);
    if (m_rb.workload.timeout.value) s.timeout = *m_rb.workload.timeout.value;
    s.kill_grace = m_options.kill_grace;
    s.name = "kprof run " + std::to_string(m_run_id) + " pass " + std::to_string(j.ordinal);
    if (slot < m_options.gpus.size()) s.gpu = m_options.gpus[slot];
    return s;
  }

  // Starts attempts together (launcher.start_all: one submission); returns those that could not
  // be started, each as it ended.
  std::vector<Finished> start_batch(std::vector<std::pair<Job, size_t>> batch) {
    std::vector<Finished> failed;
    if (batch.empty()) return failed;
    std::vector<LaunchSpec> specs;
    for (auto& [j, slot] : batch) specs.push_back(prepare(j, slot));
    std::vector<std::string> ids;
    try {
      ids = m_launcher.start_all(specs);
    } catch (const std::exception& e) {
      for (auto& [j, slot] : batch) {
        Finished f;
        f.slot = slot;
        f.job = std::move(j);
        f.launch_error = e.what();
        failed.push_back(std::move(f));
      }
      return failed;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      m_db.set_pass_launch(batch[i].first.pass_id, std::string(m_launcher.name()), ids[i]);
      crash_point("launch.spawned");
      m_running.emplace(ids[i], Running{std::move(batch[i].first), batch[i].second});
    }
    return failed;
  }

  // Starts an attempt; returns how it ended when the launcher could not start it.
  std::optional<Finished> start(Job j, size_t slot) {
    LaunchSpec spec = prepare(j, slot);
    std::string id;
    try {
      id = m_launcher.start(spec);
    } catch (const std::exception& e) {
      Finished f;
      f.slot = slot;
      f.job = std::move(j);
      f.launch_error = e.what();
      return f;
    }
    // The owner record: a resume after kill -9 of kprof asks this launcher to stop the attempt
    // before it re-runs the pass into the same folder.
    m_db.set_pass_launch(j.pass_id, std::string(m_launcher.name()), id);
    crash_point("launch.spawned");
    m_running.emplace(id, Running{std::move(j), slot});
    return std::nullopt;
  }

  // Records the new attempt (running, its command), empties its folder and says so; the spec to
  // launch.
  LaunchSpec prepare(Job& j, size_t slot) {
    ++j.tries;
    const auto info = m_db.find_pass(j.pass_id);
    store::PassTransition t;
    t.state = PassState::running;
    t.attempts = (info ? info->attempts : 0) + 1;
    t.owner_pid = ::getpid();
    t.owner_host = m_host;
    t.reason = std::string();
    t.argv = j.argv;
    m_db.set_pass_state(j.pass_id, t);
    crash_point("launch.state_running");

    std::error_code ec;
    fs::remove_all(pass_dir(m_rb, m_run_id, j.ordinal), ec);
    fs::create_directories(pass_dir(m_rb, m_run_id, j.ordinal));
    LaunchSpec spec = spec_of(j, slot);
    fs::create_directories(spec.log_path.parent_path());
    {
      std::ofstream log(spec.log_path, std::ios::app);
      log << "kprof: attempt " << *t.attempts << ": " << rerunnable_line(spec) << "\n";
    }
    m_progress.pass_started(j.ordinal, j.kind == PassKind::trace, j.counters,
                            slot < m_options.gpus.size() ? m_options.gpus[slot] : -1);
    return spec;
  }

  // A line a POSIX shell runs again as the same command: `cd DIR && K=V ... argv`, all quoted.
  static std::string rerunnable_line(const LaunchSpec& s) {
    std::string line = s.cwd.empty() ? "" : "cd " + shell_quote(s.cwd.string()) + " && ";
    for (const auto& [k, v] : s.env) line += k + "=" + shell_quote(v) + " ";
    return line + shell_join(s.argv);
  }

  void run_jobs(std::vector<Job> jobs, size_t slots,
                std::vector<std::pair<Job, std::string>> adopted = {}) {
    constexpr std::chrono::milliseconds k_poll(200);  // progress ticks and retry backoffs
    std::deque<Job> pending(std::make_move_iterator(jobs.begin()),
                            std::make_move_iterator(jobs.end()));
    std::vector<bool> busy(slots, false);
    for (size_t i = 0; i < adopted.size(); ++i) {
      const size_t slot = std::min(i, slots - 1);
      busy[slot] = true;
      m_running.emplace(adopted[i].second, Running{std::move(adopted[i].first), slot});
    }
    bool cancelled = false;
    for (;;) {
      if (const int sig = interrupt_signal(); sig == 0 && m_launcher.schedules_itself()) {
        // Every ready pass in one submission (one Slurm array job).
        const auto now = clock::now();
        std::vector<std::pair<Job, size_t>> batch;
        for (size_t s = 0; s < slots; ++s) {
          if (busy[s]) continue;
          auto it = std::find_if(pending.begin(), pending.end(),
                                 [&](const Job& j) { return j.not_before <= now; });
          if (it == pending.end()) break;
          batch.emplace_back(std::move(*it), s);
          pending.erase(it);
          busy[s] = true;
        }
        for (auto& failed : start_batch(std::move(batch))) {
          busy[failed.slot] = false;
          handle(failed);
        }
      } else if (sig == 0) {
        const auto now = clock::now();
        for (size_t s = 0; s < slots; ++s) {
          if (busy[s]) continue;
          auto it = std::find_if(pending.begin(), pending.end(),
                                 [&](const Job& j) { return j.not_before <= now; });
          if (it == pending.end()) break;
          Job j = std::move(*it);
          pending.erase(it);
          busy[s] = true;
          if (auto failed = start(std::move(j), s)) {
            busy[s] = false;
            handle(*failed);
          }
        }
      } else if (!cancelled) {
        // kprof was interrupted: every attempt gets the signal (the profiler writes what it has).
        for (const auto& [id, r] : m_running) m_launcher.cancel(id, sig);
        cancelled = true;
      }
      if (m_running.empty() && (pending.empty() || interrupt_signal())) break;
      std::vector<AttemptEnd> ended;
      if (m_running.empty()) {
        std::this_thread::sleep_for(k_poll);  // only retries waiting out their backoff
      } else {
        ended = m_launcher.wait(k_poll);
      }
      for (auto& e : ended) {
        auto it = m_running.find(e.id);
        assert(it != m_running.end() && "a launcher reported an attempt it did not start");
        if (it == m_running.end()) continue;
        Finished f;
        f.job = std::move(it->second.job);
        f.slot = it->second.slot;
        f.result = std::move(e.result);
        f.launch_error = std::move(e.launch_error);
        m_running.erase(it);
        busy[f.slot] = false;
        if (auto retry = handle(f)) pending.push_back(std::move(*retry));
      }
      m_progress.tick();
    }
  }

  // Records how an attempt ended; returns the job when it is to be retried.
  std::optional<Job> handle(Finished& f) {
    crash_point("run.pass_exited");
    Job& j = f.job;
    store::PassTransition t;
    if (f.launch_error) {
      t.state = PassState::failed;
      t.reason = *f.launch_error;
      m_db.set_pass_state(j.pass_id, t);
      m_progress.pass_finished(j.ordinal, "failed", std::chrono::milliseconds(0), *f.launch_error);
      return std::nullopt;
    }
    const RunResult& r = f.result;
    if (r.signal == 0) t.exit_code = r.exit_code;
    if (r.signal != 0) t.signal = r.signal;
    t.log_excerpt = r.log_tail;
    Failure failure = m_backend.classify(r, j.request);
    if (failure.kind == FailureKind::none) {
      // The attempt's rows and its `done` are one transaction: a kill -9 between them would leave
      // a `running` pass holding rows. A capture judged empty or unreadable is rolled back whole,
      // so the pass holds nothing it did not measure. The PassLoader loads in a savepoint of it.
      store::WriteTransaction tx(m_db, store::WriteKind::bulk_load);
      try {
        ingest(j);
        failure =
            judge_capture(m_db.row_counts(j.pass_id), j.kind, m_rb.profiler.selected_regions.value);
      } catch (const ingest::GroupMismatch& e) {
        // Readable output whose groups cannot be told apart: the same command gives the same.
        failure = {FailureKind::deterministic, e.what()};
      } catch (const Error& e) {
        // The profiler exited 0 but left unreadable or no output (a crash in its finalizer, a
        // full disk): another attempt may write it whole.
        failure = {FailureKind::transient, std::string("ingest failed: ") + e.what()};
      }
      if (failure.kind == FailureKind::none) {
        t.state = PassState::done;
        t.reason = j.last_failure.empty() ? std::string()
                                          : "succeeded on attempt " + std::to_string(j.tries) +
                                                " after: " + j.last_failure;
        m_db.set_pass_state(j.pass_id, t);
        tx.commit();
        crash_point("commit.pass_done");
        m_progress.pass_finished(j.ordinal, "done", r.duration, "");
        return std::nullopt;
      }
      // Judged empty or unreadable: `tx` rolls the attempt's rows back as it goes out of scope.
    }
    if (failure.kind == FailureKind::interrupted) {
      // Ended by the user (Ctrl-C, SIGTERM to kprof), not by the pass: the attempt is not
      // counted, so `attempts` and the retry budget count only attempts that ran to their end.
      t.state = PassState::interrupted;
      t.reason = failure.reason;
      if (const auto info = m_db.find_pass(j.pass_id); info && info->attempts > 0)
        t.attempts = info->attempts - 1;
      std::ofstream(pass_log(m_rb, m_run_id, j.ordinal), std::ios::app)
          << "kprof: " << failure.reason << ": stopped by the user, not counted as an attempt\n";
      m_db.set_pass_state(j.pass_id, t);
      m_progress.pass_finished(j.ordinal, "interrupted", r.duration, failure.reason);
      return std::nullopt;
    }
    const int max_tries = std::max(1, m_rb.retry.attempts.value);
    if (failure.kind == FailureKind::transient && j.tries < max_tries && !interrupt_signal()) {
      const auto backoff = m_rb.retry.backoff.value;
      t.state = PassState::planned;
      t.reason = "attempt " + std::to_string(j.tries) + " failed (" + failure.reason +
                 "), retrying after " + format_duration(backoff);
      m_db.set_pass_state(j.pass_id, t);
      m_progress.pass_finished(j.ordinal, "retry", r.duration, *t.reason);
      j.not_before = clock::now() + backoff;
      j.last_failure = failure.reason;
      return std::move(j);
    }
    t.state = PassState::failed;
    t.reason = failure.reason +
               (failure.kind == FailureKind::deterministic ? " (not retried: deterministic)" : "");
    m_db.set_pass_state(j.pass_id, t);
    m_progress.pass_finished(j.ordinal, "failed", r.duration, *t.reason);
    return std::nullopt;
  }

  // The files of an attempt whose profiler exited 0, loaded into its pass (pass_ingest.hpp).
  void ingest(const Job& j) {
    std::optional<RegionContext> region;
    if (j.kind == PassKind::counters && m_backend.counters_count_outside_regions()) {
      // A profiler that counts outside --selected-regions (ROCm 7.0): the region's launches are
      // found against the trace pass (region_window.hpp); the rest is left out of the database
      // and said so in the pass log.
      for (const auto& p : m_db.list_passes(m_run_id))
        if (p.kind == PassKind::trace && p.state == PassState::done)
          region = RegionContext{p.id, pass_log(m_rb, m_run_id, j.ordinal),
                                 m_backend.version().summary()};
    }
    ingest_attempt(m_db, j.pass_id, pass_dir(m_rb, m_run_id, j.ordinal), region, j.groups);
  }

  ExecResult finish() {
    ExecResult res;
    res.run_id = m_run_id;
    res.db = m_db.path();
    res.simulated = m_backend.simulated();
    for (const auto& p : m_db.list_passes(m_run_id)) {
      ++res.passes;
      if (p.state == PassState::done) ++res.done;
      if (p.state == PassState::failed) ++res.failed;
      if (p.state == PassState::interrupted) ++res.interrupted;
    }
    if (const int sig = interrupt_signal()) {
      res.status = store::RunStatus::interrupted;
      res.exit_code = 128 + sig;
    } else if (res.done == res.passes) {
      res.status = store::RunStatus::done;
    } else {
      res.status = store::RunStatus::failed;
      res.exit_code = 1;
    }
    crash_point("commit.run_status");
    m_db.set_run_status(m_run_id, res.status);
    m_progress.finish();
    return res;
  }

  store::CaptureDb& m_db;
  const runbook::Runbook& m_rb;
  const ProfilerBackend& m_backend;
  PassLauncher& m_launcher;
  int64_t m_run_id;
  const ExecOptions& m_options;
  std::vector<store::EnvDelta> m_slot_env;  // --gpus: the variables of each GPU slot
  std::string m_host;
  Progress m_progress;
  bool m_selection_failed = false;
  std::optional<RunPlan> m_plan;
  int m_to_run = 0;  // passes planned when drive() began

  std::map<std::string, Running> m_running;  // by the launcher's attempt id
  std::map<int64_t, std::string> m_adopted;  // pass id → attempt id, taken over by a resume
};

}  // namespace

ExecResult drive_run(store::CaptureDb& db, const runbook::Runbook& rb,
                     const ProfilerBackend& backend, PassLauncher& launcher, int64_t run_id,
                     const ExecOptions& options,
                     const std::vector<std::pair<int64_t, std::string>>& adopted) {
  Driver driver(db, rb, backend, launcher, run_id, options);
  for (const auto& [pass_id, id] : adopted) driver.adopt(pass_id, id);
  return driver.drive();
}

}  // namespace kprof::exec
