#include "core/exec/executor.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/base/crash_point.hpp"
#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/sha256.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/exec/failure.hpp"
#include "core/exec/gpu_select.hpp"
#include "core/exec/kernel_selection.hpp"
#include "core/exec/local_launcher.hpp"
#include "core/exec/pass_plan.hpp"
#include "core/exec/process_runner.hpp"
#include "core/exec/profiler_backend.hpp"
#include "core/exec/progress.hpp"
#include "core/exec/region_window.hpp"
#include "core/exec/run_lock.hpp"
#include "core/exec/text_diff.hpp"
#include "core/ingest/discover.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;
using store::PassKind;
using store::PassState;

std::ostream& out_of(const ExecOptions& o) { return o.out ? *o.out : std::cout; }

// The summary table fits the terminal when it goes to one.
size_t summary_width(const ExecOptions& o) { return o.out ? 0 : terminal_width(STDOUT_FILENO); }

// The pass folder is emptied before every attempt: rocprofv3 names files by pid (%pid%), so an
// earlier attempt's files would otherwise be ingested with the new ones (paths: pass_plan.hpp).

struct Job {
  int64_t pass_id = 0;
  int64_t ordinal = 0;
  PassKind kind = PassKind::trace;
  std::vector<std::string> counters;
  PassRequest request;  // what the backend built the command from (and classifies against)
  std::vector<std::string> argv;
  int tries = 0;             // attempts started by this kprof process
  std::string last_failure;  // why the previous attempt failed, when this one is a retry
  clock::time_point not_before{};
};

// Collects the launches of a pass's files (first read of a counter pass that counted outside the
// region; region_window.hpp).
class LaunchCollector final : public store::RowSink {
 public:
  std::map<int64_t, std::vector<Launch>> by_pid;  // in file order; sorted by the caller
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow& r) override {
    by_pid[r.pid].push_back(
        {r.dispatch_id, r.kernel_name, r.grid_x * r.grid_y * r.grid_z, r.wg_x * r.wg_y * r.wg_z});
  }
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
};

// Forwards every row to the loader except the dispatches (and their counter values) of a process
// that fall outside its region window. It overrides every RowSink call: one added there must be
// forwarded here too.
class RegionFilter final : public store::RowSink {
 public:
  RegionFilter(store::RowSink& to, const std::map<int64_t, RegionWindow>& windows)
      : m_to(to), m_windows(windows) {}
  void begin_file(const std::string& path, const std::string& kind) override {
    m_to.begin_file(path, kind);
  }
  void agent(const store::AgentRow& r) override { m_to.agent(r); }
  void dispatch(const store::DispatchRow& r) override {
    if (keep(r.pid, r.dispatch_id)) m_to.dispatch(r);
  }
  void counter(const store::CounterRow& r) override {
    if (keep(r.pid, r.dispatch_id)) m_to.counter(r);
  }
  void kernel_stat(const store::KernelStatRow& r) override { m_to.kernel_stat(r); }
  void bad_row(const store::BadRow& r) override { m_to.bad_row(r); }
  void end_file(int64_t rows_read) override { m_to.end_file(rows_read); }
  void memory_copy(const store::MemoryCopyRow& r) override { m_to.memory_copy(r); }
  void api_call(const store::ApiCallRow& r) override { m_to.api_call(r); }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    m_to.memory_allocation(r);
  }
  void profiler_version(const std::string& v) override { m_to.profiler_version(v); }
  void file_digest(int64_t size, const std::string& sha) override { m_to.file_digest(size, sha); }

 private:
  bool keep(int64_t pid, int64_t id) const {
    auto it = m_windows.find(pid);
    return it == m_windows.end() ||
           (id >= it->second.first_dispatch_id && id <= it->second.last_dispatch_id);
  }
  store::RowSink& m_to;
  const std::map<int64_t, RegionWindow>& m_windows;
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
    m_progress.set_work(to_run, static_cast<int>(std::max<size_t>(m_options.gpus.size(), 1)));
    estimate_from_earlier_run();
    const store::PassInfo* trace = nullptr;
    for (const auto& p : passes) {
      if (p.kind == PassKind::trace) trace = &p;
    }

    bool trace_ok = trace == nullptr || trace->state == PassState::done;
    if (trace && trace->state == PassState::planned) {
      Job j = job_of(*trace, std::nullopt);
      run_jobs({j}, 1);
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

    if (can_count) {
      std::vector<Job> jobs;
      for (const auto& p : m_db.list_passes(m_run_id)) {
        if (p.kind != PassKind::counters || p.state != PassState::planned) continue;
        jobs.push_back(job_of(p, include_regex));
      }
      const size_t slots = m_options.gpus.empty() ? 1 : m_options.gpus.size();
      run_jobs(std::move(jobs), slots);
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

  // The pass's command, built by the same use case `kprof plan` prints (pass_plan.hpp).
  Job job_of(const store::PassInfo& p, const std::optional<std::string>& include_regex) {
    const PlannedCommand c =
        pass_command(m_rb, m_backend, m_run_id, p.ordinal, p.kind, p.counters, include_regex);
    Job j;
    j.pass_id = p.id;
    j.ordinal = p.ordinal;
    j.kind = p.kind;
    j.counters = p.counters;
    j.request = c.request;
    j.argv = c.argv;
    return j;
  }

  LaunchSpec spec_of(const Job& j, size_t slot) {
    LaunchSpec s;
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

  // Starts an attempt; returns how it ended when the launcher could not start it.
  std::optional<Finished> start(Job j, size_t slot) {
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
                            m_options.gpus.empty() ? -1 : m_options.gpus[slot]);
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

  // A line a POSIX shell runs again as the same command: `cd DIR && K=V ... argv`, all quoted.
  static std::string rerunnable_line(const LaunchSpec& s) {
    std::string line = s.cwd.empty() ? "" : "cd " + shell_quote(s.cwd.string()) + " && ";
    for (const auto& [k, v] : s.env) line += k + "=" + shell_quote(v) + " ";
    return line + shell_join(s.argv);
  }

  void run_jobs(std::vector<Job> jobs, size_t slots) {
    constexpr std::chrono::milliseconds k_poll(200);  // progress ticks and retry backoffs
    std::deque<Job> pending(std::make_move_iterator(jobs.begin()),
                            std::make_move_iterator(jobs.end()));
    std::vector<bool> busy(slots, false);
    bool cancelled = false;
    for (;;) {
      if (const int sig = interrupt_signal(); sig == 0) {
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
      try {
        ingest(j);
        failure = judge_capture(j);
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
        crash_point("commit.pass_done");
        m_progress.pass_finished(j.ordinal, "done", r.duration, "");
        return std::nullopt;
      }
      // Ingested but judged empty: its rows go, so the pass holds nothing it did not measure.
      m_db.clear_pass_rows(j.pass_id);
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

  // A pass whose profiler exited 0 but that holds nothing measured is a failure with a cause, not
  // a success: under --selected-regions that is the signature of a region opened in a process
  // that launched no kernel (vLLM V1 runs the model in its EngineCore process), or of a profiler
  // that ignored the region markers. Retrying the same command gives the same empty capture.
  Failure judge_capture(const Job& j) {
    const auto counts = m_db.row_counts(j.pass_id);
    const bool regions = m_rb.profiler.selected_regions.value;
    if (j.kind == PassKind::trace && counts.dispatches == 0) {
      return {FailureKind::deterministic,
              regions ? "no dispatch recorded inside the selected region: the process that "
                        "launched kernels never called roctxProfilerResume (or the profiler "
                        "ignored it)"
                      : "no dispatch recorded: the workload launched no GPU kernel"};
    }
    if (j.kind == PassKind::counters && counts.counter_values == 0) {
      return {FailureKind::deterministic,
              std::string("no counter row for any kernel of interest") +
                  (regions ? " inside the selected region: the process that launched kernels "
                             "never called roctxProfilerResume, or no kernel of interest ran "
                             "there"
                           : ": no kernel of interest ran, or the kernel filter matched none")};
    }
    return {};
  }

  void ingest(const Job& j) {
    const fs::path dir = pass_dir(m_rb, m_run_id, j.ordinal);
    // rocprofv3 writes a file only for a domain that recorded something (its agent_info.csv only
    // beside another file), so a profiler that exited 0 and wrote nothing recorded nothing: an
    // empty capture, judged by judge_capture(), not an unreadable one.
    if (!holds_a_file(dir)) return;
    ingest::Discovery found = ingest::discover({dir.string()});
    const std::map<int64_t, RegionWindow> windows = region_windows(j, found);
    store::PassLoader loader(m_db, j.pass_id);
    RegionFilter filtered(loader, windows);
    store::RowSink& sink = windows.empty() ? static_cast<store::RowSink&>(loader) : filtered;
    crash_point("ingest.loader_open");
    for (const auto& p : found.passes) ingest::read_pass(p, sink, ingest::ReadOptions{});
    crash_point("ingest.before_commit");
    loader.commit();
    crash_point("commit.rows_committed");
  }

  // A counter pass of a profiler that counts outside --selected-regions (ROCm 7.0): the region's
  // launches, found against the trace pass (region_window.hpp); the rest is left out of the
  // database and said so in the pass log.
  std::map<int64_t, RegionWindow> region_windows(const Job& j, const ingest::Discovery& found) {
    std::map<int64_t, RegionWindow> out;
    if (j.kind != PassKind::counters || !m_backend.counters_count_outside_regions()) return out;
    std::optional<int64_t> trace_id;
    for (const auto& p : m_db.list_passes(m_run_id))
      if (p.kind == PassKind::trace && p.state == PassState::done) trace_id = p.id;
    if (!trace_id) return out;
    LaunchCollector mine;
    for (const auto& p : found.passes) ingest::read_pass(p, mine, ingest::ReadOptions{});
    std::set<std::string> kernels;
    for (auto& [pid, launches] : mine.by_pid) {
      std::sort(launches.begin(), launches.end(),
                [](const Launch& a, const Launch& b) { return a.dispatch_id < b.dispatch_id; });
      for (const auto& l : launches) kernels.insert(l.kernel);
    }
    // The trace's main process (the one with the most launches of these kernels), program order.
    std::map<int64_t, std::vector<Launch>> trace;
    m_db.for_each_dispatch(*trace_id, [&](const store::DispatchRow& r) {
      if (kernels.count(r.kernel_name))
        trace[r.pid].push_back({r.dispatch_id, r.kernel_name, r.grid_x * r.grid_y * r.grid_z,
                                r.wg_x * r.wg_y * r.wg_z});
    });
    const std::vector<Launch>* main = nullptr;
    for (const auto& [pid, launches] : trace)
      if (!main || launches.size() > main->size()) main = &launches;
    if (!main) return out;
    std::ofstream log(pass_log(m_rb, m_run_id, j.ordinal), std::ios::app);
    for (const auto& [pid, launches] : mine.by_pid) {
      const auto w = find_region_window(launches, *main);
      if (!w) continue;
      out[pid] = *w;
      log << "kprof: " << m_backend.version().summary()
          << " counts outside --selected-regions: process " << pid << " left out " << w->left_out
          << " of " << (w->kept + w->left_out)
          << " counted dispatches outside the region matched to the trace (kept Dispatch_Id "
          << w->first_dispatch_id << ".." << w->last_dispatch_id << ", " << w->differences
          << " kernel identities differ" << (w->tie ? "; an equal earlier window existed" : "")
          << ")\n";
    }
    return out;
  }

  static bool holds_a_file(const fs::path& dir) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) return true;
    }
    return false;
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

  std::map<std::string, Running> m_running;  // by the launcher's attempt id
};

// Takes the run's row lock. We hold the file lock, so any other holder recorded there is a kprof
// that died without unlocking.
void lock_run_row(store::CaptureDb& db, int64_t run_id) {
  const auto host = host_name();
  if (auto holder = db.try_lock_run(run_id, ::getpid(), host)) {
    db.break_run_lock(run_id);
    db.try_lock_run(run_id, ::getpid(), host);
  }
}

std::unique_ptr<ProfilerBackend> backend_of(const ExecSeams& seams, const runbook::Runbook& rb,
                                            const BackendChoice& choice) {
  return seams.backend ? seams.backend(rb, choice) : make_profiler_backend(rb, choice);
}

// The database as the user can type it from here: relative when it lies under the working
// directory, else as recorded.
std::string db_for_command(const fs::path& db) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec && db.is_absolute()) {
    const fs::path rel = db.lexically_normal().lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return db.string();
}

void print_summary(std::ostream& os, store::CaptureDb& db, const ExecResult& r, size_t width,
                   const ExecOptions& o) {
  os << "\n" << status_text(db.path(), r.run_id, width);
  os << "database: " << db_for_command(r.db) << "\n";
  const int left = r.passes - r.done;
  if (left == 0) return;
  // The last line is the command that goes on, exactly, so it can be copied as it is.
  std::vector<std::string> argv = {"kprof", "resume", db_for_command(r.db)};
  if (r.status == store::RunStatus::interrupted) {
    os << "interrupted (" << (r.exit_code == 143 ? "SIGTERM" : "SIGINT") << ") with " << left
       << " of " << r.passes << (r.passes == 1 ? " pass" : " passes")
       << " left; done passes are kept. Continue with:\n";
  } else {
    argv.push_back("--retry-failed");
    os << left << " of " << r.passes << (r.passes == 1 ? " pass" : " passes") << " not done ("
       << r.failed << " failed: see the reason column and the pass's log); after fixing the "
       << "cause, continue with:\n";
  }
  if (!o.gpus.empty()) {
    std::string list;
    for (int g : o.gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    argv.insert(argv.end(), {"--gpus", list});
  }
  if (o.force) argv.push_back("--force");
  os << shell_join(argv) << "\n";
}

// `kprof resume`'s first line: what the earlier kprof finished and what this one will run.
std::string resume_header(const store::RunInfo& run, const std::vector<store::PassInfo>& before,
                          bool retry_failed) {
  int counter_passes = 0;
  for (const auto& p : before) counter_passes += p.kind == PassKind::counters;
  int done = 0;
  std::vector<std::string> left, kept_failed;
  for (const auto& p : before) {
    const std::string what = "pass " + std::to_string(p.ordinal) + " (" +
                             pass_label(p.kind == PassKind::trace, p.ordinal, counter_passes) + ")";
    if (p.state == PassState::done)
      ++done;
    else if (p.state == PassState::failed && !retry_failed)
      kept_failed.push_back(what);
    else
      left.push_back(what + " " +
                     (p.state == PassState::running ? std::string("running when its kprof died")
                                                    : std::string(store::to_string(p.state))));
  }
  std::string s = "run " + std::to_string(run.id) + " '" + run.name + "': " + std::to_string(done) +
                  (done == 1 ? " pass" : " passes") + " done, " + std::to_string(left.size()) +
                  " left";
  if (!left.empty()) s += " (" + join(left, ", ") + ")";
  if (!kept_failed.empty())
    s += "; not re-run: " + join(kept_failed, ", ") + " failed (add --retry-failed)";
  return s + "\n";
}

}  // namespace

ExecResult run_runbook(const runbook::Runbook& given, const ExecOptions& options,
                       const ExecSeams& seams) {
  runbook::Runbook rb = given;
  if (options.db) runbook::use_database(rb, *options.db);
  const auto backend = backend_of(seams, rb, {options.simulate, std::nullopt});
  // Planned before the database is touched: a bad runbook or plan leaves no trace. The commands
  // are made again with the run's id once it exists (their paths hold it).
  const RunPlan rp = plan_run(rb, *backend, 0);
  gpu_slot_envs(options.gpus, rb, current_environment());  // refuses a bad --gpus setting early

  const fs::path db_path = rb.database.value;
  install_interrupt_handlers();
  RunLock lock(db_path);
  store::CaptureDb db(db_path);

  store::NewRun nr;
  nr.name = rb.name.value;
  nr.runbook_path = rb.source.string();
  nr.runbook_sha256 = rb.sha256;
  nr.runbook_text = rb.text;
  nr.host = host_name();
  nr.kprof_version = KPROF_VERSION;
  nr.simulated = backend->simulated();
  nr.seed = backend->seed();
  nr.profiler_version = backend->version().text;
  // The run and every planned pass are stored together: a kill -9 while planning leaves no run
  // rather than one that resume would find with passes missing.
  int64_t run_id = 0;
  {
    store::WriteTransaction tx(db);
    run_id = db.create_run(nr);
    crash_point("plan.run_created");
    // A counter pass's include regex from the trace is not known yet; each attempt records the
    // exact command line that ran.
    for (const auto& c : commands_for_run(rp, rb, *backend, run_id)) {
      store::PlannedPass p;
      p.ordinal = c.ordinal;
      p.kind = c.kind;
      p.counters = c.request.counters;
      p.argv = c.argv;
      p.env = c.env;
      p.output_dir = c.output_dir.string();
      p.log_path = c.log_path.string();
      db.add_planned_pass(run_id, p);
      crash_point("plan.pass_added");
    }
    tx.commit();
  }
  lock_run_row(db, run_id);  // its own transaction; the file lock is what guards the run

  LocalLauncher local;
  Driver driver(db, rb, *backend, seams.launcher ? *seams.launcher : local, run_id, options);
  ExecResult r = driver.drive();
  db.unlock_run(run_id, ::getpid(), host_name());
  print_summary(out_of(options), db, r, summary_width(options), options);
  return r;
}

ExecResult resume_run(const fs::path& target, const ExecOptions& options, std::ostream* diff_out,
                      const ExecSeams& seams) {
  const std::string ext = to_lower(target.extension().string());
  std::optional<runbook::Runbook> given;
  fs::path db_path;
  if (ext == ".yaml" || ext == ".yml") {
    given = runbook::load_runbook(target);
    db_path = options.db.value_or(given->database.value);
  } else {
    db_path = target;
  }
  if (!fs::exists(db_path)) {
    throw Error::input("no capture database at '" + db_path.string() + "'",
                       "start one with 'kprof run RUNBOOK'");
  }
  install_interrupt_handlers();
  RunLock lock(db_path);
  store::CaptureDb db(db_path);
  const auto run = db.find_last_run();
  if (!run)
    throw Error::input("database '" + db_path.string() + "' holds no run",
                       "start one with 'kprof run RUNBOOK'");

  // The runbook as it is now: the one given, else the recorded path, else the recorded text.
  runbook::Runbook rb = given ? std::move(*given)
                        : fs::exists(run->runbook_path)
                            ? runbook::load_runbook(run->runbook_path)
                            : runbook::parse_runbook(run->runbook_text, run->runbook_path);
  // Pass folders are where this database's run put them (beside it, when it was given with --db).
  if (fs::absolute(db_path).lexically_normal() != rb.database.value)
    runbook::use_database(rb, db_path);
  if (rb.sha256 != run->runbook_sha256) {
    const std::string diff = line_diff(run->runbook_text, rb.text);
    std::ostream& os = diff_out ? *diff_out : std::cerr;
    os << "runbook " << rb.source.string() << " changed since run " << run->id << " was recorded:\n"
       << diff;
    if (!options.force) {
      throw Error::input(
          "runbook '" + rb.source.string() + "' changed since run " + std::to_string(run->id) +
              " (sha256 " + run->runbook_sha256.substr(0, 12) + " -> " + rb.sha256.substr(0, 12) +
              ")",
          "restore it, start a new run with 'kprof run', or resume anyway with --force");
    }
  }

  // The backend the run was recorded with: a simulated run stays simulated, and the recorded
  // profiler version gives the command lines the run started with.
  std::optional<std::string> recorded_version;
  if (!run->profiler_version.empty()) recorded_version = run->profiler_version;
  const auto backend = backend_of(seams, rb, {run->simulated, recorded_version});
  LocalLauncher local;
  PassLauncher& launcher = seams.launcher ? *seams.launcher : local;
  lock_run_row(db, run->id);
  db.set_run_status(run->id, store::RunStatus::running);

  const std::string host = host_name();
  const auto before = db.list_passes(run->id);
  if (!options.quiet) out_of(options) << resume_header(*run, before, options.retry_failed);
  for (const auto& p : before) {
    bool reset = false;
    if (p.state == PassState::running) {
      if (!p.owner_host.empty() && p.owner_host != host && !options.force) {
        throw Error::runtime("pass " + std::to_string(p.ordinal) +
                                 " is recorded as running on host " + p.owner_host +
                                 " (kprof pid " + std::to_string(p.owner_pid.value_or(0)) + ")",
                             "resume on that host, or with --force once you know it is dead");
      }
      // Its kprof is dead (we hold the lock): the launcher that started the attempt stops what
      // it may have left running.
      if (!p.launcher.empty()) {
        if (p.launcher == launcher.name()) {
          launcher.reap_orphan(p.launch_id);
        } else {
          make_pass_launcher(p.launcher)->reap_orphan(p.launch_id);
        }
      }
      reset = true;
    } else if (p.state == PassState::interrupted) {
      reset = true;
    } else if (p.state == PassState::failed && options.retry_failed) {
      reset = true;
    }
    if (reset) {
      store::PassTransition t;
      t.state = PassState::planned;
      t.reason = "resumed after: " +
                 (p.reason.empty() ? std::string(store::to_string(p.state)) : p.reason);
      db.set_pass_state(p.id, t);
    }
  }

  Driver driver(db, rb, *backend, launcher, run->id, options);
  ExecResult r = driver.drive();
  db.unlock_run(run->id, ::getpid(), host_name());
  print_summary(out_of(options), db, r, summary_width(options), options);
  return r;
}

std::string status_text(const fs::path& db_path, std::optional<int64_t> run_id, size_t width) {
  if (!fs::exists(db_path)) {
    throw Error::input("no capture database at '" + db_path.string() + "'",
                       "give the path of a kprof database");
  }
  store::CaptureDb db(db_path, store::OpenMode::read_only);
  db.check_intact();  // a damaged file is reported as such, not as whatever rows still read
  const auto run = run_id ? db.find_run(*run_id) : db.find_last_run();
  if (!run)
    throw Error::input("database '" + db_path.string() + "' holds no run",
                       "start one with 'kprof run RUNBOOK'");
  std::ostringstream os;
  os << "run " << run->id << " '" << run->name << "': " << store::to_string(run->status)
     << (run->simulated ? " — SIMULATED (rocprofv3-sim" +
                              (run->seed ? ", seed " + std::to_string(*run->seed) : "") +
                              "; figures are not measurements)"
                        : "")
     << "\n";
  os << "runbook " << run->runbook_path << " (sha256 " << run->runbook_sha256.substr(0, 12)
     << ")\n";
  if (auto holder = db.run_lock(run->id)) {
    const bool alive =
        holder->host == host_name() ? process_alive(static_cast<pid_t>(holder->pid)) : true;
    os << "locked by kprof pid " << holder->pid << " on " << holder->host
       << (alive ? "" : " (dead)") << "\n";
  }
  // Every writer (run, resume) holds the file lock while it works (RunLock): when nobody holds
  // it, a pass recorded as running on this host belongs to a kprof that was killed. The pid alone
  // could have been reused.
  std::optional<pid_t> writer;
  if (struct stat st{}; ::stat(db_path.c_str(), &st) == 0)
    writer = flock_holder(st.st_dev, st.st_ino);
  std::vector<std::string> dead_owners;
  Table t;
  t.columns = {"pass",     "what",       "state",          "attempts", "duration",
               "counters", "dispatches", "counter_values", "reason"};
  t.right_aligned = {"duration"};
  int done = 0, total = 0;
  const auto passes = db.list_passes(run->id);
  int counter_passes = 0;
  for (const auto& p : passes) counter_passes += p.kind == PassKind::counters;
  for (const auto& p : passes) {
    ++total;
    if (p.state == PassState::done) ++done;
    Cell dur;
    if (p.started_ms && p.finished_ms)
      dur = format_duration(std::chrono::milliseconds(*p.finished_ms - *p.started_ms));
    std::string state(store::to_string(p.state));
    if (p.state == PassState::running && p.owner_host == host_name() && p.owner_pid &&
        (!writer || *writer != static_cast<pid_t>(*p.owner_pid) ||
         !process_alive(static_cast<pid_t>(*p.owner_pid)))) {
      state += " (owner dead)";
      dead_owners.push_back("pass " + std::to_string(p.ordinal) + " (kprof pid " +
                            std::to_string(*p.owner_pid) + ")");
    }
    Cell dispatches, values;
    if (p.state == PassState::done) {
      const auto counts = db.row_counts(p.id);
      dispatches = counts.dispatches;
      values = counts.counter_values;
    }
    t.rows.push_back({p.ordinal, pass_label(p.kind == PassKind::trace, p.ordinal, counter_passes),
                      state, p.attempts, dur,
                      p.kind == PassKind::trace ? Cell() : Cell(int64_t(p.counters.size())),
                      dispatches, values, p.reason.empty() ? Cell() : Cell(p.reason)});
  }
  render_text(os, t, TextLayout{width, false});
  if (run->simulated) os << "(counts are of simulated captures)\n";
  const auto kernels = db.selected_kernels(run->id);
  os << done << "/" << total << " passes done";
  if (!kernels.empty())
    os << "; " << kernels.size() << " kernels of interest (" << kernels.front().reason << ")";
  os << "\n";
  if (!dead_owners.empty()) {
    os << "the kprof that ran " << join(dead_owners, ", ") << " was killed; `kprof resume "
       << db_path.string() << "` runs it again\n";
  }
  return os.str();
}

}  // namespace kprof::exec
