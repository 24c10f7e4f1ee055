// Helpers of the end-to-end executor tests (executor_test.cpp, executor_resume_test.cpp,
// executor_failure_test.cpp): the real kprof from build/bin run in the foreground or the
// background, the small runbook, and a database compared row for row.
//
// `kprof run/resume/status` end to end: the real kprof and rocprofv3-sim executables from
// build/bin, shell scripts as workloads, real SQLite files. Interruptions are real signals.
//
// "Equal databases" (after a resume vs an uninterrupted run with the same seed) compares every
// table row for row, leaving out only what differs between any two runs by nature:
//   - wall-clock times (*_ms columns), host names, absolute paths (runbook_path, output_dir,
//     log_path, ingest_stats.path) and what embeds them (passes.argv, passes.env);
//   - process and thread ids (pid, tid, owner_pid) and what embeds them (passes.log_excerpt, and
//     ingest_stats.sha256/size_bytes of files whose rows carry Process_Id/Thread_Id);
//   - passes.attempts (a pass whose kprof was killed was started once more) and the run lock
//     table;
//   - runs.runbook_text/runbook_sha256: the two runs' runbooks name workloads in different temp
//     folders (equal runbooks are checked by ChangedRunbookIsRefusedUnlessForced instead).
// The double's timestamps are fixed with ROCPROF_SIM_CLOCK_BASE_NS so start/end_ns are compared.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "core/base/text.hpp"
#include "core/exec/process_runner.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec::e2e {

using namespace std::chrono_literals;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

inline const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

template <class F>
bool eventually(F f, int tries = 3000) {
  for (int i = 0; i < tries; ++i) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

struct Kprof {
  RunResult result;
  std::string output;
};

inline Kprof kprof(const TempDir& dir, const std::vector<std::string>& args,
                   const std::string& log_name = "kprof.out",
                   const std::vector<std::pair<std::string, std::string>>& env = {}) {
  LaunchSpec s;
  s.argv = {k_kprof};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.log_path = dir / log_name;
  s.env = {{"ROCPROF_SIM_CLOCK_BASE_NS", "1000000000"}};
  for (const auto& [k, v] : env) s.env[k] = v;
  s.log_tail_bytes = 1 << 20;
  Kprof k;
  std::filesystem::remove(s.log_path);
  k.result = run_process(s);
  k.output = read_text(s.log_path);
  return k;
}

// kprof started in the background; pid() is known once it runs.
class BackgroundKprof {
 public:
  BackgroundKprof(const TempDir& dir, std::vector<std::string> args, std::string log_name) {
    m_thread = std::thread([this, &dir, args = std::move(args), log_name = std::move(log_name)] {
      LaunchSpec s;
      s.argv = {k_kprof};
      s.argv.insert(s.argv.end(), args.begin(), args.end());
      s.log_path = dir / log_name;
      s.env = {{"ROCPROF_SIM_CLOCK_BASE_NS", "1000000000"}};
      s.log_tail_bytes = 1 << 20;
      s.on_started = [this](pid_t p) { m_pid = p; };
      m_result = run_process(s);
      m_output = read_text(s.log_path);
    });
    eventually([this] { return m_pid.load() != 0; });
  }
  ~BackgroundKprof() {
    if (m_thread.joinable()) m_thread.join();
  }
  pid_t pid() const { return m_pid; }
  const RunResult& wait() {
    m_thread.join();
    return m_result;
  }
  const std::string& output() const { return m_output; }

 private:
  std::atomic<pid_t> m_pid{0};
  RunResult m_result;
  std::string m_output;
  std::thread m_thread;
};

// A runbook for the small doc-vector-ops model: a trace pass and two counter passes (GRBM holds 2
// counters per pass, 3 are asked), kernels of interest = the top 2 of the trace.
// The workload is work.sh in `dir`: it counts its runs in `runs`, and when the file `slow` exists
// it sleeps on its 2nd run (the first counter pass) after touching `ready`.
inline std::filesystem::path small_runbook(const TempDir& dir, const std::string& extra = "",
                                           const std::string& workload_body = "") {
  const std::string body =
      workload_body.empty()
          ? "D=$(dirname \"$0\")\n"
            "echo run >> \"$D/runs\"\n"
            "N=$(wc -l < \"$D/runs\")\n"
            "if [ -e \"$D/slow\" ] && [ \"$N\" -eq 2 ]; then touch \"$D/ready\"; sleep 30; fi\n"
            "exit 0\n"
          : workload_body;
  write_script(dir / "work.sh", body);
  const auto rb = dir / "small.yaml";
  write_file(rb,
             "schema_version: 1\n"
             "name: small\n"
             "workload:\n"
             "  command: [\"" +
                 (dir / "work.sh").string() +
                 "\"]\n"
                 "  timeout: 60s\n"
                 "profiler:\n"
                 "  output_format: csv\n"
                 "target:\n"
                 "  arch: gfx942\n"
                 "passes:\n"
                 "  trace:\n"
                 "    enabled: true\n"
                 "    stats: true\n"
                 "  counters:\n"
                 "    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES]\n"
                 "    kernels:\n"
                 "      from_trace: {top: 2, by: total_duration}\n"
                 "retry:\n"
                 "  attempts: 2\n"
                 "  backoff: 100ms\n"
                 "database: small.db\n"
                 "sim:\n"
                 "  model: doc-vector-ops\n"
                 "  seed: 7\n" +
                 extra);
  return rb;
}

// Every table, row for row, as sorted text lines; see the file comment for what is left out.
inline std::vector<std::string> dump_db(const std::filesystem::path& db_path) {
  static const std::set<std::string> k_skip_columns = {
      "runbook_path", "host",   "output_dir", "log_path",     "path",          "argv",
      "env",          "pid",    "tid",        "owner_pid",    "owner_host",    "attempts",
      "log_excerpt",  "sha256", "size_bytes", "runbook_text", "runbook_sha256"};
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  std::vector<std::string> tables;
  SQLite::Statement t(db,
                      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                      "'sqlite_%' ORDER BY name");
  while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
  std::vector<std::string> lines;
  for (const auto& table : tables) {
    if (table.find("lock") != std::string::npos) continue;
    SQLite::Statement q(db, "SELECT * FROM \"" + table + "\"");
    while (q.executeStep()) {
      std::string line = table + ":";
      for (int c = 0; c < q.getColumnCount(); ++c) {
        const std::string name = q.getColumnName(c);
        if (k_skip_columns.count(name) ||
            (name.size() > 3 && name.substr(name.size() - 3) == "_ms"))
          continue;
        line += " " + name + "=" + (q.getColumn(c).isNull() ? "NULL" : q.getColumn(c).getString());
      }
      lines.push_back(line);
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

inline std::string pass_field(const std::filesystem::path& db_path, int ordinal,
                              const std::string& column) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(
      db, "SELECT " + column + " FROM passes WHERE ordinal = ? ORDER BY run_id DESC LIMIT 1");
  q.bind(1, ordinal);
  if (!q.executeStep()) return "<no pass>";
  return q.getColumn(0).isNull() ? "NULL" : q.getColumn(0).getString();
}

inline int64_t scalar(const std::filesystem::path& db_path, const std::string& sql) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

// The uninterrupted reference run of small_runbook(), in its own folder.
inline std::vector<std::string> reference_dump() {
  static const std::vector<std::string> dump = [] {
    TempDir ref;
    const auto rb = small_runbook(ref);
    Kprof k = kprof(ref, {"run", rb.string(), "--simulate", "--quiet"});
    EXPECT_EQ(k.result.exit_code, 0) << k.output;
    return dump_db(ref / "small.db");
  }();
  return dump;
}

inline void expect_same_db(const std::vector<std::string>& want,
                           const std::vector<std::string>& got) {
  EXPECT_EQ(want.size(), got.size());
  std::vector<std::string> only_want, only_got;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(only_want));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(only_got));
  for (size_t i = 0; i < std::min<size_t>(only_want.size(), 5); ++i)
    ADD_FAILURE() << "only in reference: " << only_want[i];
  for (size_t i = 0; i < std::min<size_t>(only_got.size(), 5); ++i)
    ADD_FAILURE() << "only after resume: " << only_got[i];
}

}  // namespace kprof::exec::e2e
