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

namespace kprof::exec {
namespace {

using namespace std::chrono_literals;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

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

Kprof kprof(const TempDir& dir, const std::vector<std::string>& args,
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
std::filesystem::path small_runbook(const TempDir& dir, const std::string& extra = "",
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
std::vector<std::string> dump_db(const std::filesystem::path& db_path) {
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

std::string pass_field(const std::filesystem::path& db_path, int ordinal,
                       const std::string& column) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(
      db, "SELECT " + column + " FROM passes WHERE ordinal = ? ORDER BY run_id DESC LIMIT 1");
  q.bind(1, ordinal);
  if (!q.executeStep()) return "<no pass>";
  return q.getColumn(0).isNull() ? "NULL" : q.getColumn(0).getString();
}

int64_t scalar(const std::filesystem::path& db_path, const std::string& sql) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

// The uninterrupted reference run of small_runbook(), in its own folder.
std::vector<std::string> reference_dump() {
  static const std::vector<std::string> dump = [] {
    TempDir ref;
    const auto rb = small_runbook(ref);
    Kprof k = kprof(ref, {"run", rb.string(), "--simulate", "--quiet"});
    EXPECT_EQ(k.result.exit_code, 0) << k.output;
    return dump_db(ref / "small.db");
  }();
  return dump;
}

void expect_same_db(const std::vector<std::string>& want, const std::vector<std::string>& got) {
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

TEST(Executor, SmallSimulatedRunRecordsEveryPass) {
  TempDir dir;
  const auto rb = small_runbook(dir);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes"), 3);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'done'"), 3);
  EXPECT_EQ(scalar(db, "SELECT simulated FROM runs"), 1);
  EXPECT_EQ(scalar(db, "SELECT seed FROM runs"), 7);
  EXPECT_EQ(scalar(db, "SELECT status = 'done' FROM runs"), 1);
  // doc-vector-ops has 4 dispatches; the trace pass holds them all.
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id WHERE "
                   "p.ordinal = 0"),
            4);
  // Top 2 by total duration: addition (52151 ns) and subtract (49780 ns) in the model.
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM selected_kernels"), 2);
  // Counter passes only collect the 2 selected kernels: 2 dispatches per pass, each with its
  // counters.
  EXPECT_EQ(scalar(db,
                   "SELECT count(DISTINCT dispatch_id) FROM counter_values c JOIN passes p ON p.id "
                   "= c.pass_id "
                   "WHERE p.ordinal = 1"),
            2);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM counter_values"), 2 * 4);
  EXPECT_NE(k.output.find("SIMULATED"), std::string::npos) << k.output;
  EXPECT_NE(k.output.find("3/3 passes done"), std::string::npos) << k.output;

  Kprof s = kprof(dir, {"status", db.string()}, "status.out");
  EXPECT_EQ(s.result.exit_code, 0);
  EXPECT_NE(s.output.find("3/3 passes done; 2 kernels of interest (top 2 by total_duration)"),
            std::string::npos)
      << s.output;
}

TEST(Executor, SigintMidPassThenResumeEqualsUninterrupted) {
  const auto want = reference_dump();
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  BackgroundKprof bg(dir, {"run", rb.string(), "--simulate"}, "run.out");
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(dir / "ready"); }));
  ::kill(bg.pid(), SIGINT);
  const RunResult& r = bg.wait();
  EXPECT_EQ(r.exit_code, 130) << bg.output();
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "done");
  EXPECT_EQ(pass_field(db, 1, "state"), "interrupted");
  EXPECT_EQ(pass_field(db, 2, "state"), "planned");
  EXPECT_EQ(scalar(db, "SELECT status = 'interrupted' FROM runs"), 1);
  // Stopped by the user: not an attempt that failed.
  EXPECT_EQ(pass_field(db, 1, "attempts"), "0");
  // The last line is the command that goes on, exactly.
  std::string out = bg.output();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  EXPECT_EQ(out.substr(out.rfind('\n') + 1), "kprof resume " + db.string()) << out;
  EXPECT_NE(out.find("interrupted (SIGINT) with 2 of 3 passes left"), std::string::npos) << out;

  std::filesystem::remove(dir / "slow");
  Kprof k = kprof(dir, {"resume", db.string()}, "resume.out");
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  EXPECT_EQ(k.output.substr(0, k.output.find('\n')),
            "run 1 'small': 1 pass done, 2 left (pass 1 (counters 1/2) interrupted, pass 2 "
            "(counters 2/2) planned)")
      << k.output;
  EXPECT_EQ(pass_field(db, 1, "attempts"), "1");
  EXPECT_NE(read_text(pass_field(db, 1, "log_path"))
                .find("interrupted (SIGINT): stopped by the user, not counted as an attempt"),
            std::string::npos);
  expect_same_db(want, dump_db(db));
}

TEST(Executor, Kill9MidPassThenResumeEqualsUninterrupted) {
  const auto want = reference_dump();
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  BackgroundKprof bg(dir, {"run", rb.string(), "--simulate"}, "run.out");
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(dir / "ready"); }));
  ::kill(bg.pid(), SIGKILL);
  const RunResult& r = bg.wait();
  EXPECT_EQ(r.signal, SIGKILL);
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 1, "state"), "running");
  Kprof s = kprof(dir, {"status", db.string()}, "status.out");
  EXPECT_NE(s.output.find("running (owner dead)"), std::string::npos) << s.output;

  std::filesystem::remove(dir / "slow");
  Kprof k = kprof(dir, {"resume", db.string()}, "resume.out");
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  expect_same_db(want, dump_db(db));
}

// A pass's rows and its `done` are one transaction: kprof killed after loading the trace pass and
// before that commit (crash point commit.rows_committed) leaves the pass `running` with no row and
// no ingested file (they were committed alone before), and the resume equals an uninterrupted run.
TEST(Executor, Kill9BetweenAPassRowsAndItsDoneStateKeepsNeither) {
  const auto want = reference_dump();
  TempDir dir;
  const auto rb = small_runbook(dir);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"}, "run.out",
                  {{"KPROF_CRASH_AT", "commit.rows_committed:1"}});
  EXPECT_EQ(k.result.signal, SIGKILL) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "running");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM dispatches"), 0);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM ingest_stats"), 0);
  Kprof r = kprof(dir, {"resume", db.string()}, "resume.out");
  ASSERT_EQ(r.result.exit_code, 0) << r.output;
  expect_same_db(want, dump_db(db));
}

// What a terminal shows of `raw`: '\r' returns to the line's start, ESC [ K erases to its end (the
// progress line is redrawn in place and cleared), other escape sequences are dropped.
std::vector<std::string> terminal_lines(const std::string& raw) {
  std::vector<std::string> lines(1);
  size_t col = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string& line = lines.back();
    const char c = raw[i];
    if (c == '\n') {
      lines.emplace_back();
      col = 0;
    } else if (c == '\r') {
      col = 0;
    } else if (c == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      size_t j = i + 2;
      while (j < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[j]))) ++j;
      if (j < raw.size() && raw[j] == 'K') line.erase(std::min(col, line.size()));
      i = j;
    } else {
      if (col < line.size())
        line[col] = c;
      else
        line.push_back(c);
      ++col;
    }
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos)
    lines.pop_back();
  return lines;
}

// Ctrl-C as a user presses it: kprof runs in a pseudo-terminal as its foreground process group,
// and the terminal's line discipline turns the ^C byte into SIGINT for that group (termios(3),
// ISIG). The pass's profiler runs in a process group of its own (ProcessRunner's setpgid), so it
// is kprof that must stop it. What the terminal then shows ends with the exact resume command,
// the live progress line leaves nothing behind, and the resumed run equals an uninterrupted one.
TEST(Executor, CtrlCInATerminalEndsWithTheResumeCommand) {
  const auto want = reference_dump();
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  int master = -1;
  struct winsize ws {};
  ws.ws_row = 40;
  ws.ws_col = 120;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  ASSERT_GE(pid, 0) << std::strerror(errno);
  if (pid == 0) {
    ::setenv("ROCPROF_SIM_CLOCK_BASE_NS", "1000000000", 1);
    ::setenv("COLUMNS", "120", 1);
    if (::chdir(dir.path().c_str()) != 0) ::_exit(126);
    ::execl(k_kprof.c_str(), k_kprof.c_str(), "run", rb.c_str(), "--simulate",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string raw;
  auto drain = [&](int timeout_ms) {  // reads what is there; false at EOF (the child is gone)
    struct pollfd p {
      master, POLLIN, 0
    };
    char buf[4096];
    while (::poll(&p, 1, timeout_ms) > 0) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) return false;  // EIO once the child closed the terminal
      raw.append(buf, static_cast<size_t>(n));
    }
    return true;
  };
  const bool ready = eventually([&] {
    drain(0);
    return std::filesystem::exists(dir / "ready");
  });
  ASSERT_TRUE(ready) << raw;
  const char ctrl_c = '\x03';  // VINTR, the default interrupt character
  ASSERT_EQ(::write(master, &ctrl_c, 1), 1);
  for (int i = 0; i < 600 && drain(100);) ++i;
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(master);
  ASSERT_TRUE(WIFEXITED(status)) << raw;
  EXPECT_EQ(WEXITSTATUS(status), 130) << raw;
  const auto lines = terminal_lines(raw);
  ASSERT_FALSE(lines.empty());
  const auto db = dir / "small.db";
  // The runbook names `database: small.db`, beside it, and kprof runs in that folder: the command
  // is as the user can type it there.
  EXPECT_EQ(lines.back(), "kprof resume small.db") << raw;
  EXPECT_NE(raw.find("interrupted (SIGINT) with 2 of 3 passes left"), std::string::npos) << raw;
  for (const auto& l : lines) EXPECT_LE(l.size(), 120u) << l;
  EXPECT_EQ(pass_field(db, 1, "state"), "interrupted");
  EXPECT_EQ(pass_field(db, 1, "attempts"), "0");

  std::filesystem::remove(dir / "slow");
  Kprof k = kprof(dir, {"resume", db.string()}, "resume.out");
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  expect_same_db(want, dump_db(db));
}

TEST(Executor, SecondKprofOnTheSameDatabaseIsRefused) {
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  BackgroundKprof bg(dir, {"run", rb.string(), "--simulate"}, "run.out");
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(dir / "ready"); }));
  Kprof second = kprof(dir, {"run", rb.string(), "--simulate"}, "second.out");
  EXPECT_EQ(second.result.exit_code, 1);
  EXPECT_NE(second.output.find("is in use by kprof pid " + std::to_string(bg.pid()) + " on host "),
            std::string::npos)
      << second.output;
  Kprof third = kprof(dir, {"resume", (dir / "small.db").string()}, "third.out");
  EXPECT_EQ(third.result.exit_code, 1);
  EXPECT_NE(third.output.find("is in use by kprof pid"), std::string::npos) << third.output;
  ::kill(bg.pid(), SIGTERM);
  EXPECT_EQ(bg.wait().exit_code, 143);
  EXPECT_EQ(scalar(dir / "small.db", "SELECT count(*) FROM runs"), 1);
}

// The lock is the database file's, not its name's: a symlink or a hard link to the database in use
// is refused too (it used to run, and the trace pass held every dispatch twice).
TEST(Executor, SecondKprofThroughAnotherNameOfTheDatabaseIsRefused) {
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  BackgroundKprof bg(dir, {"run", rb.string(), "--simulate"}, "run.out");
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(dir / "ready"); }));
  std::filesystem::create_symlink(dir / "small.db", dir / "link.db");
  std::filesystem::create_hard_link(dir / "small.db", dir / "hard.db");
  for (const char* name : {"link.db", "hard.db"}) {
    Kprof resume = kprof(dir, {"resume", (dir / name).string()}, "resume.out");
    EXPECT_EQ(resume.result.exit_code, 1) << resume.output;
    EXPECT_NE(
        resume.output.find("is in use by kprof pid " + std::to_string(bg.pid()) + " on host "),
        std::string::npos)
        << resume.output;
    Kprof run =
        kprof(dir, {"run", rb.string(), "--simulate", "--db", (dir / name).string()}, "run2.out");
    EXPECT_EQ(run.result.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("is in use by kprof pid " + std::to_string(bg.pid())),
              std::string::npos)
        << run.output;
  }
  ::kill(bg.pid(), SIGTERM);
  EXPECT_EQ(bg.wait().exit_code, 143);
  EXPECT_EQ(scalar(dir / "small.db", "SELECT count(*) FROM runs"), 1);
  Kprof resume = kprof(dir, {"resume", (dir / "link.db").string(), "--quiet"}, "resume.out");
  EXPECT_EQ(resume.result.exit_code, 0) << resume.output;
  expect_same_db(reference_dump(), dump_db(dir / "small.db"));
}

TEST(Executor, HangingWorkloadTimesOut) {
  TempDir dir;
  const auto rb = small_runbook(dir, "", "exec sleep 1000\n");
  std::string text = read_text(rb);
  text.replace(text.find("timeout: 60s"), 12, "timeout: 1s");
  text.replace(text.find("attempts: 2"), 11, "attempts: 1");
  write_file(rb, text);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--quiet"});
  EXPECT_EQ(k.result.exit_code, 1) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "failed");
  EXPECT_EQ(pass_field(db, 0, "reason").rfind("timed out after ", 0), 0u)
      << pass_field(db, 0, "reason");
  // from_trace needs the trace: the counter passes wait for a resume. replay: auto records them
  // once a trace is in (one rotated pass or one per planned pass): none yet.
  EXPECT_EQ(pass_field(db, 1, "state"), "<no pass>");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes"), 1);
}

TEST(Executor, CrashingWorkloadIsRetriedThenFails) {
  TempDir dir;
  const auto rb = small_runbook(dir, "", "kill -SEGV $$\n");
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--quiet"});
  EXPECT_EQ(k.result.exit_code, 1) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "failed");
  EXPECT_EQ(pass_field(db, 0, "attempts"), "2");
  EXPECT_EQ(pass_field(db, 0, "signal"), std::to_string(SIGSEGV));
  EXPECT_EQ(pass_field(db, 0, "reason"), "killed by signal 11 (SIGSEGV)");
}

// Issue #13: the `kprof: attempt N:` line of a pass log is a command a POSIX shell runs again as
// the same profiler command. Arguments with spaces, quotes and `$` survive the round trip.
TEST(Executor, AttemptLineInThePassLogRerunsTheSameCommand) {
  TempDir dir;
  write_script(dir / "work.sh",
               "D=$(dirname \"$0\")\n"
               "{ echo \"argc=$#\"; for a in \"$@\"; do echo \"[$a]\"; done; } >> \"$D/args\"\n");
  const auto rb = dir / "quoting.yaml";
  write_file(rb,
             "schema_version: 1\n"
             "name: quoting\n"
             "workload:\n"
             "  command: [\"" +
                 (dir / "work.sh").string() +
                 "\", \"a b\", \"it's\", \"$HOME\", \"x;y\", \"\\\"q\\\"\"]\n"
                 "  timeout: 60s\n"
                 "profiler:\n"
                 "  output_format: csv\n"
                 "target:\n"
                 "  arch: gfx942\n"
                 "passes:\n"
                 "  trace:\n"
                 "    enabled: true\n");
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--quiet"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const std::string first = read_text(dir / "args");
  EXPECT_EQ(first, "argc=5\n[a b]\n[it's]\n[$HOME]\n[x;y]\n[\"q\"]\n");
  const std::string log = read_text(pass_field(dir / "quoting.db", 0, "log_path"));
  const std::string prefix = "kprof: attempt 1: ";
  const auto at = log.find(prefix);
  ASSERT_NE(at, std::string::npos) << log;
  const std::string line = log.substr(at + prefix.size(), log.find('\n', at) - at - prefix.size());
  LaunchSpec again;
  again.argv = {"/bin/sh", "-c", line};
  again.log_path = dir / "again.out";
  ASSERT_EQ(run_process(again).exit_code, 0) << read_text(dir / "again.out");
  EXPECT_EQ(read_text(dir / "args"), first + first) << line;
}

TEST(Executor, FlakyPassSucceedsOnRetry) {
  TempDir dir;
  // Fails on its first run only.
  const auto rb =
      small_runbook(dir, "",
                    "D=$(dirname \"$0\")\n"
                    "if [ ! -e \"$D/flaked\" ]; then touch \"$D/flaked\"; exit 1; fi\n");
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "done");
  EXPECT_EQ(pass_field(db, 0, "attempts"), "2");
  EXPECT_EQ(pass_field(db, 0, "reason"), "succeeded on attempt 2 after: exit 1");
  EXPECT_EQ(pass_field(db, 1, "attempts"), "1");
  EXPECT_NE(k.output.find("retry"), std::string::npos) << k.output;
}

TEST(Executor, WorkloadExitTwoIsNotRetried) {
  TempDir dir;
  const auto rb = small_runbook(dir, "", "echo 'usage: work.sh' >&2\nexit 2\n");
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--quiet"});
  EXPECT_EQ(k.result.exit_code, 1);
  EXPECT_EQ(pass_field(dir / "small.db", 0, "attempts"), "1");
  EXPECT_EQ(
      pass_field(dir / "small.db", 0, "reason"),
      "exit 2 (usage or input error of the workload or profiler) (not retried: deterministic)");
  EXPECT_NE(pass_field(dir / "small.db", 0, "log_excerpt").find("usage: work.sh"),
            std::string::npos);
}

TEST(Executor, Error38PassIsClassifiedAndNotRetried) {
  TempDir dir;
  // A profiler that behaves as rocprofv3 does on an over-capacity counter set
  // (rocprofiler-sdk-tool/tool.cpp): the trace pass works (it hands over to the real double), a
  // --pmc pass aborts with the error-38 text.
  const auto fake = write_script(
      dir / "fake-rocprofv3",
      "case \" $* \" in *\" --pmc \"*)\n"
      "  echo 'Could not construct profile cfg failed with error code 38: Request exceeds "
      "the capabilities of the hardware to collect' >&2\n"
      "  kill -ABRT $$ ;;\n"
      "esac\n"
      "exec \"" +
          std::string(KPROF_BIN_DIR) + "/rocprofv3-sim\" \"$@\"\n");
  const auto rb = small_runbook(dir);
  std::string text = read_text(rb);
  text.replace(text.find("profiler:\n"), 10, "profiler:\n  path: " + fake.string() + "\n");
  // One run per pass (--pmc), as a tool that cannot rotate would run them (replay: auto would
  // rotate this small plan in one run from an input file).
  text.replace(text.find("    counters: [GRBM_COUNT"), 0, "    replay: application\n");
  write_file(rb, text);
  Kprof k = kprof(dir, {"run", rb.string(), "--quiet"});
  EXPECT_EQ(k.result.exit_code, 1) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "done");
  EXPECT_EQ(pass_field(db, 1, "state"), "failed");
  EXPECT_EQ(pass_field(db, 1, "attempts"), "1");
  EXPECT_EQ(pass_field(db, 1, "signal"), std::to_string(SIGABRT));
  const std::string reason = pass_field(db, 1, "reason");
  EXPECT_EQ(reason.rfind("counters exceed hardware limits (rocprofiler error 38): ", 0), 0u)
      << reason;
  EXPECT_NE(reason.find("GRBM_"), std::string::npos) << reason;
  EXPECT_NE(reason.find("(not retried: deterministic)"), std::string::npos) << reason;
}

TEST(Executor, ChangedRunbookIsRefusedUnlessForced) {
  TempDir dir;
  const auto rb = small_runbook(dir);
  write_file(dir / "slow", "");
  BackgroundKprof bg(dir, {"run", rb.string(), "--simulate"}, "run.out");
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(dir / "ready"); }));
  ::kill(bg.pid(), SIGINT);
  EXPECT_EQ(bg.wait().exit_code, 130);
  std::filesystem::remove(dir / "slow");

  std::string text = read_text(rb);
  text.replace(text.find("top: 2"), 6, "top: 3");
  write_file(rb, text);
  const auto db = dir / "small.db";
  Kprof refused = kprof(dir, {"resume", db.string()}, "refused.out");
  EXPECT_EQ(refused.result.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("-      from_trace: {top: 2, by: total_duration}\n"
                                "+      from_trace: {top: 3, by: total_duration}\n"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("changed since run 1"), std::string::npos) << refused.output;
  EXPECT_EQ(pass_field(db, 1, "state"), "interrupted");

  Kprof forced = kprof(dir, {"resume", db.string(), "--force"}, "forced.out");
  EXPECT_EQ(forced.result.exit_code, 0) << forced.output;
  EXPECT_EQ(pass_field(db, 2, "state"), "done");
}

TEST(Executor, ParallelGpusRunEveryPassOnItsOwnDevice) {
  TempDir dir;
  const auto rb =
      small_runbook(dir, "",
                    "D=$(dirname \"$0\")\n"
                    "echo \"H=$HIP_VISIBLE_DEVICES R=$ROCR_VISIBLE_DEVICES\" >> \"$D/devices\"\n");
  // Two GPUs are asked: the model's node must have them (doc-vector-ops' node has one).
  std::string text = read_text(rb);
  text.replace(text.find("model: doc-vector-ops"), 21, "model: vector-ops-8gpu");
  write_file(rb, text);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--gpus", "0,1", "--quiet"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  EXPECT_EQ(scalar(dir / "small.db", "SELECT count(*) FROM passes WHERE state = 'done'"), 3);
  // The trace pass and the two counter passes: each got its GPU from ROCR_VISIBLE_DEVICES alone
  // (HIP_VISIBLE_DEVICES would index the one device ROCr leaves; core/exec/gpu_select.hpp).
  std::vector<std::string> lines;
  for (const auto& l : split(read_text(dir / "devices"), '\n')) {
    if (!l.empty()) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_TRUE(l == "H= R=0" || l == "H= R=1") << l;
}

TEST(Executor, FullQwen3SimulatedRun) {
  TempDir dir;
  // A copy of the project's runbook, so its database and captures land in the temp folder.
  const auto rb = dir / "qwen3-30b-a3b-sim.yaml";
  write_file(rb, read_text(std::string(KPROF_SOURCE_DIR) + "/runbooks/qwen3-30b-a3b-sim.yaml"));
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const auto db = dir / "qwen3-30b-a3b-sim.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state != 'done'"), 0);
  EXPECT_GE(scalar(db, "SELECT count(*) FROM passes WHERE kind = 'counters'"), 1);
  // The model's measured region (configs/sim/qwen3-30b-a3b-mi300x.yaml); the double may add or
  // drop one lazy-init kernel in a rerun (its `reruns` probabilities), hence the tolerance of 1.
  const int64_t trace =
      scalar(db,
             "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id "
             "WHERE p.ordinal = 0");
  EXPECT_NEAR(static_cast<double>(trace), 54194.0, 1.0);
  // Counter passes collect fused_moe_kernel only (include_regex): 6,144 launches.
  EXPECT_EQ(scalar(db,
                   "SELECT count(DISTINCT c.dispatch_id) FROM counter_values c JOIN passes p ON "
                   "p.id = c.pass_id "
                   "WHERE p.ordinal = 1"),
            6144);
  EXPECT_NE(k.output.find("SIMULATED"), std::string::npos);

  // `kprof query` reads the run's runbook from the database: its family rule folds vLLM's two
  // skinny-GEMM kernels (63 steps x 48 layers x 3 variants + 63 big ones) into one family, and its
  // layers/output_tokens hints are checked against what the data shows.
  Kprof q = kprof(dir, {"query", db.string(), "explain"});
  ASSERT_EQ(q.result.exit_code, 0) << q.output;
  EXPECT_NE(q.output.find("wvSplitK: 9135 = 3024 + 3024 + 3024 (decode, 63 steps × 48 layers × 3 "
                          "variants) + 63 (decode, 63 steps × 1 launch × 1 variant)"),
            std::string::npos)
      << q.output;
  EXPECT_NE(q.output.find("layers: 48 found, as the runbook says"), std::string::npos) << q.output;
  EXPECT_NE(q.output.find("steps: 64 steps (1 prefill + 63 decode) found, as the runbook's "
                          "output_tokens says"),
            std::string::npos)
      << q.output;
}

}  // namespace
}  // namespace kprof::exec
