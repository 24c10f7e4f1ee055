#include "core/exec/run/run_status.hpp"

#include <sys/stat.h>

#include "core/base/error.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/progress.hpp"
#include "core/exec/node/run_lock.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;
using store::PassKind;
using store::PassState;

RunStatusModel load_run_status(const fs::path& db_path, std::optional<int64_t> run_id) {
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
  RunStatusModel m;
  m.db = db_path;
  m.run = *run;
  const std::string host = host_name();
  if (auto holder = db.run_lock(run->id)) {
    m.lock = holder;
    m.lock_holder_alive =
        holder->host == host ? process_alive(static_cast<pid_t>(holder->pid)) : true;
  }
  // Every writer (run, resume) holds the file lock while it works (RunLock): when nobody holds
  // it, a pass recorded as running on this host belongs to a kprof that was killed. The pid alone
  // could have been reused.
  std::optional<pid_t> writer;
  if (struct stat st{}; ::stat(db_path.c_str(), &st) == 0)
    writer = flock_holder(st.st_dev, st.st_ino);
  const auto passes = db.list_passes(run->id);
  int counter_passes = 0;
  for (const auto& p : passes) counter_passes += p.kind == PassKind::counters;
  for (const auto& p : passes) {
    PassStatus s;
    s.ordinal = p.ordinal;
    s.kind = p.kind;
    s.label = pass_label(p.kind == PassKind::trace, p.ordinal, counter_passes);
    s.state = p.state;
    s.owner_pid = p.owner_pid;
    s.attempts = p.attempts;
    if (p.started_ms && p.finished_ms)
      s.duration = std::chrono::milliseconds(*p.finished_ms - *p.started_ms);
    s.counters = p.counters.size();
    s.reason = p.reason;
    s.log_path = p.log_path;
    s.log_excerpt = p.log_excerpt;
    s.owner_dead = p.state == PassState::running && p.owner_host == host && p.owner_pid &&
                   (!writer || *writer != static_cast<pid_t>(*p.owner_pid) ||
                    !process_alive(static_cast<pid_t>(*p.owner_pid)));
    if (p.state == PassState::done) {
      ++m.done;
      const auto counts = db.row_counts(p.id);
      s.dispatches = counts.dispatches;
      s.counter_values = counts.counter_values;
    }
    m.passes.push_back(std::move(s));
  }
  m.kernels = db.selected_kernels(run->id);
  return m;
}

}  // namespace kprof::exec
