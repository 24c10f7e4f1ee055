#include "core/exec/usecases/status_view.hpp"

#include "core/exec/profiler/failure.hpp"

#include <regex>
#include <sstream>

#include "core/base/duration.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/progress.hpp"
#include "core/exec/usecases/executor.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;
using store::PassKind;
using store::PassState;

namespace {

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

// rocprofv3's own log lines, "E20261205 22:11:52.407744 28495 output_stream.cpp:111] ...": glog's
// line prefix "Lyyyymmdd hh:mm:ss.uuuuuu threadid file:line]" (github.com/google/glog, README
// "Log line prefix format"), which rocprofiler-sdk logs through. They follow the workload's last
// words: the tool finalizes after the application exits.
bool profiler_log_line(std::string_view l) {
  static const std::regex glog(R"(^[IWEF]\d{8} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [^ ]+:\d+\] )");
  return std::regex_search(l.begin(), l.end(), glog);
}

// The last `n` non-blank lines of `text` that are not rocprofv3's own log lines, or the last `n`
// lines when every line is one.
std::vector<std::string> last_lines(const std::string& text, size_t n) {
  std::vector<std::string> all, own;
  for (const auto& l : split(text, '\n')) {
    if (trim(l).empty()) continue;
    all.push_back(l);
    if (!profiler_log_line(l)) own.push_back(l);
  }
  auto& lines = own.empty() ? all : own;
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<ptrdiff_t>(n));
  return lines;
}

// Where each failed pass's output is, and its last lines as stored: the cause is usually there
// (a missing file, a traceback), and the log may be on another node or gone. rocprofv3's own
// lines are left out when there are others.
void failed_logs(std::ostream& os, const RunStatusModel& m) {
  constexpr size_t k_lines = 5;
  for (const auto& p : m.passes) {
    if (p.state != PassState::failed) continue;
    os << "pass " << p.ordinal << " (" << p.label
       << ") failed; log: " << (p.log_path.empty() ? std::string("(none recorded)") : p.log_path)
       << "\n";
    const auto lines = last_lines(p.log_excerpt, k_lines);
    if (lines.empty()) os << "  (its log was empty)\n";
    for (const auto& l : lines) os << "  | " << l << "\n";
  }
}

}  // namespace

std::string render_status(const RunStatusModel& m, size_t width) {
  const store::RunInfo& run = m.run;
  std::ostringstream os;
  os << "run " << run.id << " '" << run.name << "': " << store::to_string(run.status)
     << (run.simulated ? " — SIMULATED (rocprofv3-sim" +
                             (run.seed ? ", seed " + std::to_string(*run.seed) : "") +
                             "; figures are not measurements)"
                       : "")
     << "\n";
  os << "runbook " << run.runbook_path << " (sha256 " << run.runbook_sha256.substr(0, 12) << ")\n";
  if (m.lock) {
    os << "locked by kprof pid " << m.lock->pid << " on " << m.lock->host
       << (m.lock_holder_alive ? "" : " (dead)") << "\n";
  }
  std::vector<std::string> dead_owners;
  Table t;
  t.columns = {"pass",     "what",       "state",          "attempts", "duration",
               "counters", "dispatches", "counter_values", "reason"};
  t.right_aligned = {"duration"};
  for (const auto& p : m.passes) {
    Cell dur;
    if (p.duration) dur = format_duration(*p.duration);
    std::string state(p.state == PassState::planned && p.reason.starts_with(k_blocked_prefix)
                          ? "blocked"
                          : store::to_string(p.state));
    if (p.owner_dead) {
      state += " (owner dead)";
      dead_owners.push_back("pass " + std::to_string(p.ordinal) + " (kprof pid " +
                            std::to_string(p.owner_pid.value_or(0)) + ")");
    }
    Cell dispatches, values;
    if (p.dispatches) dispatches = *p.dispatches;
    if (p.counter_values) values = *p.counter_values;
    t.rows.push_back({p.ordinal, p.label, state, p.attempts, dur,
                      p.kind == PassKind::trace ? Cell() : Cell(int64_t(p.counters)), dispatches,
                      values, p.reason.empty() ? Cell() : Cell(p.reason)});
  }
  render_text(os, t, TextLayout{width, false});
  if (run.simulated) os << "(counts are of simulated captures)\n";
  os << m.done << "/" << m.passes.size() << " passes done";
  if (!m.kernels.empty())
    os << "; " << m.kernels.size() << " kernels of interest (" << m.kernels.front().reason << ")";
  os << "\n";
  failed_logs(os, m);
  if (!dead_owners.empty()) {
    os << "the kprof that ran " << join(dead_owners, ", ") << " was killed; `kprof resume "
       << m.db.string() << "` runs it again\n";
  }
  return os.str();
}

std::string status_text(const fs::path& db, std::optional<int64_t> run_id, size_t width) {
  return render_status(load_run_status(db, run_id), width);
}

std::string run_summary_text(const RunStatusModel& m, const ExecResult& r,
                             const std::vector<int>& gpus, bool force, size_t width,
                             const std::vector<std::string>& launcher_args) {
  std::ostringstream os;
  os << "\n" << render_status(m, width);
  os << "database: " << db_for_command(r.db) << "\n";
  const int left = r.passes - r.done;
  if (left == 0) return os.str();
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
  if (!gpus.empty()) {
    std::string list;
    for (int g : gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    argv.insert(argv.end(), {"--gpus", list});
  }
  argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
  if (force) argv.push_back("--force");
  os << shell_join(argv) << "\n";
  return os.str();
}

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

}  // namespace kprof::exec
