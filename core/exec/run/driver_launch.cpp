// The driver's scheduling (driver_loop.hpp): GPU slots, each attempt recorded as running before
// the launcher starts it, the owner record after, and the loop that polls the launcher, cancels
// on SIGINT/SIGTERM and re-queues retries after their backoff.
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/base/crash_point.hpp"
#include "core/base/text.hpp"
#include "core/exec/profiler/rocprofv3_backend.hpp"
#include "core/exec/run/driver_loop.hpp"

namespace kprof::exec::driver_detail {

namespace fs = std::filesystem;
using store::PassKind;
using store::PassState;

int Driver::work_width(int ready) const {
  return m_launcher.schedules_itself() ? ready
                                       : static_cast<int>(std::max<size_t>(m_slots.size(), 1));
}

size_t Driver::slot_count(size_t ready) const {
  return m_launcher.schedules_itself() ? std::max<size_t>(1, ready)
         : m_slots.empty()             ? 1
                                       : m_slots.size();
}

LaunchSpec Driver::spec_of(const Job& j, size_t slot) {
  LaunchSpec s;
  s.ordinal = j.ordinal;
  s.argv = j.argv;
  write_counter_input_file(j.argv, j.counters);  // ROCm 6.2: counters only through -i
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
  if (slot < m_slots.size()) s.gpus = m_slots[slot];
  s.profiler_release = m_backend.version().release_key();
  s.profiler_release_text = m_backend.version().summary();
  return s;
}

// Starts attempts together (launcher.start_all: one submission); returns those that could not
// be started, each as it ended.
std::vector<Finished> Driver::start_batch(std::vector<std::pair<Job, size_t>> batch) {
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
std::optional<Finished> Driver::start(Job j, size_t slot) {
  LaunchSpec spec = prepare(j, slot);
  // The owner record: a resume after kill -9 of kprof asks this launcher to stop the attempt
  // before it re-runs the pass into the same folder. The local launcher calls it before the
  // profiler can run (the child waits), so no profiler ever runs that the database does not name.
  bool recorded = false;
  spec.on_id = [&](const std::string& id) {
    crash_point("launch.forked");
    m_db.set_pass_launch(j.pass_id, std::string(m_launcher.name()), id);
    recorded = true;
    crash_point("launch.recorded");
  };
  std::string id;
  try {
    id = m_launcher.start(spec);
    if (!recorded) spec.on_id(id);  // a launcher that cannot hold the command
  } catch (const std::exception& e) {
    Finished f;
    f.slot = slot;
    f.job = std::move(j);
    f.launch_error = e.what();
    return f;
  }
  crash_point("launch.spawned");
  m_running.emplace(id, Running{std::move(j), slot});
  return std::nullopt;
}

// Records the new attempt (running, its command), empties its folder and says so; the spec to
// launch.
LaunchSpec Driver::prepare(Job& j, size_t slot) {
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
                          slot < m_slots.size() ? m_slots[slot] : std::vector<int>{});
  return spec;
}

// A line a POSIX shell runs again as the same command: `cd DIR && K=V ... argv`, all quoted.
std::string Driver::rerunnable_line(const LaunchSpec& s) {
  std::string line = s.cwd.empty() ? "" : "cd " + shell_quote(s.cwd.string()) + " && ";
  for (const auto& [k, v] : s.env) line += k + "=" + shell_quote(v) + " ";
  return line + shell_join(s.argv);
}

void Driver::run_jobs(std::vector<Job> jobs, size_t slots,
                      std::vector<std::pair<Job, std::string>> adopted) {
  constexpr std::chrono::milliseconds k_poll(200);  // progress ticks and retry backoffs
  std::deque<Job> pending(std::make_move_iterator(jobs.begin()),
                          std::make_move_iterator(jobs.end()));
  std::vector<bool> busy(slots, false);
  for (size_t i = 0; i < adopted.size(); ++i) {
    const size_t slot = std::min(i, slots - 1);
    busy[slot] = true;
    m_running.emplace(adopted[i].second, Running{std::move(adopted[i].first), slot});
  }
  // The first pending job whose backoff is over at `now`.
  auto next_ready = [&](Clock::time_point now) -> std::optional<Job> {
    auto it = std::find_if(pending.begin(), pending.end(),
                           [&](const Job& j) { return j.not_before <= now; });
    if (it == pending.end()) return std::nullopt;
    Job j = std::move(*it);
    pending.erase(it);
    return j;
  };
  bool cancelled = false;
  for (;;) {
    if (const int sig = interrupt_signal(); sig == 0 && m_launcher.schedules_itself()) {
      // Every ready pass in one submission (one Slurm array job).
      const auto now = Clock::now();
      std::vector<std::pair<Job, size_t>> batch;
      for (size_t s = 0; s < slots; ++s) {
        if (busy[s]) continue;
        auto j = next_ready(now);
        if (!j) break;
        batch.emplace_back(std::move(*j), s);
        busy[s] = true;
      }
      for (auto& failed : start_batch(std::move(batch))) {
        busy[failed.slot] = false;
        handle(failed);
      }
    } else if (sig == 0) {
      const auto now = Clock::now();
      for (size_t s = 0; s < slots; ++s) {
        if (busy[s]) continue;
        auto j = next_ready(now);
        if (!j) break;
        busy[s] = true;
        if (auto failed = start(std::move(*j), s)) {
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

}  // namespace kprof::exec::driver_detail
