// Helpers of the end-to-end executor tests (executor_test.cpp, executor_resume_test.cpp,
// executor_failure_test.cpp): the real kprof from build/bin run in the foreground or the
// background, the small runbook, and a database compared row for row.
//
// `kprof run/resume/status` end to end: the real kprof and rocprofv3-sim executables from
// build/bin, shell scripts as workloads, real SQLite files. Interruptions are real signals.
//
// "Equal databases" (after a resume vs an uninterrupted run with the same seed) compares every
// table row for row (canonical_dump, tests/common/canonical_dump.hpp, which lists what it leaves
// out; equal runbooks are checked by ChangedRunbookIsRefusedUnlessForced instead).
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
#include "core/exec/node/process_runner.hpp"
#include "tests/common/canonical_dump.hpp"
#include "tests/exec/runbook_yaml.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec::e2e {

using namespace std::chrono_literals;
using test_db::canonical_dump;
using testing::read_text;
using testing::runbook_yaml;
using testing::RunbookYaml;
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
  RunbookYaml y;
  y.command = "[\"" + (dir / "work.sh").string() + "\"]";
  y.timeout = "60s";
  y.stats = true;
  y.counters = "GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES";
  y.top_two_from_trace = true;
  y.retry = "  attempts: 2\n  backoff: 100ms\n";
  y.database = "small.db";
  y.more = "sim:\n  model: doc-vector-ops\n  seed: 7\n" + extra;
  write_file(rb, runbook_yaml(y));
  return rb;
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
    return canonical_dump(ref / "small.db");
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
