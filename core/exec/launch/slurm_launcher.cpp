#include "core/exec/launch/slurm_launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <thread>

#include "core/base/error.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

std::optional<std::pair<int64_t, int64_t>> parse_slurm_attempt_id(const std::string& id) {
  const auto us = id.find('_');
  if (us == std::string::npos) return std::nullopt;
  int64_t job = 0, task = 0;
  const char* b = id.data();
  const char* e = b + id.size();
  if (std::from_chars(b, b + us, job).ptr != b + us) return std::nullopt;
  if (std::from_chars(b + us + 1, e, task).ptr != e) return std::nullopt;
  return std::make_pair(job, task);
}

SlurmLauncher::SlurmLauncher(SbatchOptions options, std::chrono::milliseconds poll)
    : m_options(std::move(options)), m_poll(poll) {}

SlurmLauncher::~SlurmLauncher() {
  std::error_code ec;
  if (m_client) fs::remove_all(m_scratch, ec);
}

SlurmClient& SlurmLauncher::client() {
  if (!m_client) {
    // One folder per launcher: two launchers of one kprof (resume reaping with another) apart.
    static int instances = 0;
    m_scratch = fs::temp_directory_path() /
                ("kprof-slurm-" + std::to_string(::getpid()) + "-" + std::to_string(++instances));
    m_client = std::make_unique<SlurmClient>(m_scratch);
  }
  return *m_client;
}

std::string SlurmLauncher::start(const LaunchSpec& spec) { return start_all({spec}).front(); }

std::vector<std::string> SlurmLauncher::start_all(const std::vector<LaunchSpec>& specs) {
  if (specs.empty()) return {};
  std::vector<SlurmTask> tasks;
  for (const auto& s : specs) {
    if (!s.ordinal) throw Error::runtime("a Slurm attempt needs its pass ordinal", "a kprof bug");
    SlurmTask t;
    t.index = *s.ordinal;
    t.argv = s.argv;
    for (const auto& [k, v] : s.env) t.env.emplace_back(k, v);
    t.cwd = s.cwd;
    t.output_dir = s.output_dir;
    t.log_path = s.log_path;
    t.timeout = s.timeout;
    t.kill_grace = s.kill_grace;
    t.release = s.profiler_release;
    t.release_text = s.profiler_release_text;
    tasks.push_back(std::move(t));
  }
  // <captures>/run-R/slurm/: the scripts and Slurm's own per-task output, beside logs/.
  const fs::path dir = specs.front().log_path.parent_path().parent_path() / "slurm";
  fs::create_directories(dir);
  SbatchOptions o = m_options;
  o.slurm_log_dir = dir;
  const fs::path script =
      dir / ("job-" + std::to_string(::getpid()) + "-" + std::to_string(++m_submissions) + ".sh");
  {
    std::ofstream out(script);
    out << sbatch_script(tasks, o);
    if (!out) throw Error::runtime("cannot write " + script.string(), "is the folder writable?");
  }
  const int64_t job = client().submit(script, specs.front().cwd.empty() ? dir : specs.front().cwd);
  std::vector<std::string> ids;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string id = std::to_string(job) + "_" + std::to_string(tasks[i].index);
    m_live[id] = Task{job, tasks[i].index, specs[i], clock_type::now(), 0, 0, 0};
    ids.push_back(id);
  }
  return ids;
}

bool SlurmLauncher::adopt(const std::string& id, const LaunchSpec& spec) {
  const auto parsed = parse_slurm_attempt_id(id);
  if (!parsed) return false;
  const auto tasks = client().tasks(parsed->first);
  const auto it = tasks.find(parsed->second);
  if (it == tasks.end()) return false;
  // Pending, running or ended: Slurm still has it, and wait() reports how it ends or ended.
  m_live[id] =
      Task{parsed->first, parsed->second, spec, clock_type::now(), 0, it->second.restarts, 0};
  return true;
}

AttemptEnd SlurmLauncher::end_of(const std::string& id, Task& t, const SlurmTaskStatus& s) {
  AttemptEnd e;
  e.id = id;
  RunResult& r = e.result;
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t.started);
  r.log_tail = file_tail(t.spec.log_path, t.spec.log_tail_bytes);
  const std::string where = s.node.empty() ? "" : " on node " + s.node;
  switch (s.phase) {
    case SlurmPhase::completed:
      r.exit_code = 0;
      break;
    case SlurmPhase::failed:
      if (s.signal != 0) {
        r.signal = s.signal;
      } else {
        r.exit_code = s.exit_code;
        // The script runs the command under timeout(1), which exits 124 when the limit struck.
        r.timed_out = s.exit_code == 124 && t.spec.timeout.count() > 0;
      }
      break;
    case SlurmPhase::timeout:
      r.timed_out = true;
      r.log_tail += "\nkprof: Slurm ended task " + id + where + " at its time limit (TIMEOUT)\n";
      break;
    case SlurmPhase::cancelled:
      if (t.cancel_signal) {
        r.interrupted = true;
        r.interrupt_signal = t.cancel_signal;
      } else {
        r.signal = SIGTERM;
        r.log_tail += "\nkprof: task " + id + " was cancelled outside kprof (scancel)\n";
      }
      break;
    case SlurmPhase::lost:
      r.signal = SIGKILL;
      r.log_tail += "\nkprof: Slurm ended task " + id + where + " as " + s.state +
                    " (the node or the scheduler took it away)\n";
      break;
    case SlurmPhase::waiting:
    case SlurmPhase::running:
      break;
  }
  return e;
}

void SlurmLauncher::poll(std::vector<AttemptEnd>& ended) {
  std::map<int64_t, std::map<int64_t, SlurmTaskStatus>> jobs;
  for (const auto& [id, t] : m_live)
    if (!jobs.count(t.job)) jobs[t.job] = client().tasks(t.job);
  for (auto it = m_live.begin(); it != m_live.end();) {
    Task& t = it->second;
    const auto& tasks = jobs[t.job];
    const auto s = tasks.find(t.index);
    if (s == tasks.end()) {
      // scancel of a pending task removes it without a record; a job purged from a cluster
      // without accounting has none either. Two polls in a row, so a record in transit is not
      // taken for a loss.
      if (++t.missing_polls < 2) {
        ++it;
        continue;
      }
      AttemptEnd e;
      e.id = it->first;
      if (t.cancel_signal) {
        e.result.interrupted = true;
        e.result.interrupt_signal = t.cancel_signal;
      } else {
        e.launch_error = "Slurm has no record of task " + it->first +
                         " (cancelled while pending, or purged after MinJobAge on a cluster "
                         "without accounting)";
      }
      ended.push_back(std::move(e));
      it = m_live.erase(it);
      continue;
    }
    t.missing_polls = 0;
    // A requeued task (its node went DOWN) is PENDING again with Restarts=N: the attempt goes on
    // and Slurm starts it after its hold (slurm_client.hpp says why kprof does not release it).
    t.restarts = s->second.restarts;
    if (!slurm_phase_ended(s->second.phase)) {
      ++it;
      continue;
    }
    ended.push_back(end_of(it->first, t, s->second));
    it = m_live.erase(it);
  }
}

std::vector<AttemptEnd> SlurmLauncher::wait(std::chrono::milliseconds max_wait) {
  std::vector<AttemptEnd> ended;
  const auto deadline = clock_type::now() + max_wait;
  while (!m_live.empty()) {
    const auto now = clock_type::now();
    if (now - m_last_poll >= m_poll) {
      m_last_poll = now;
      poll(ended);
      if (!ended.empty()) break;
    }
    if (now >= deadline) break;
    const auto next = std::min(deadline, m_last_poll + m_poll);
    std::this_thread::sleep_for(
        std::min<clock_type::duration>(next - clock_type::now(), std::chrono::milliseconds(50)));
  }
  return ended;
}

void SlurmLauncher::cancel(const std::string& id, int sig) {
  auto it = m_live.find(id);
  if (it == m_live.end()) return;
  it->second.cancel_signal = sig;
  client().cancel(it->second.job, it->second.index);
}

void SlurmLauncher::reap_orphan(const std::string& id) {
  const auto parsed = parse_slurm_attempt_id(id);
  if (!parsed) return;
  client().cancel(parsed->first, parsed->second);
  // Bounded: until Slurm reports the task ended (or has no record of it).
  const auto end = clock_type::now() + std::chrono::seconds(30);
  while (clock_type::now() < end) {
    const auto tasks = client().tasks(parsed->first);
    const auto it = tasks.find(parsed->second);
    if (it == tasks.end() || slurm_phase_ended(it->second.phase)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// Registered in launchers.def as `slurm`: the cluster's defaults, enough to reap or adopt a
// recorded task; a run's own settings come from launcher_choice.cpp.
std::unique_ptr<PassLauncher> make_slurm_launcher() {
  return std::make_unique<SlurmLauncher>(SbatchOptions{});
}

}  // namespace kprof::exec
