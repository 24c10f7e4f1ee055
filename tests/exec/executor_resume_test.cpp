// `kprof run` interrupted (SIGINT, kill -9, Ctrl-C in a terminal) and `kprof resume`: the resumed
// database equals an uninterrupted run, row for row (what "equal" leaves out: executor_e2e.hpp).
// A changed runbook is refused unless forced.
#include "tests/exec/executor_e2e.hpp"

namespace kprof::exec {
namespace {

using namespace e2e;  // the fixture's helpers and its using-declarations

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
  expect_same_db(want, canonical_dump(db));
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
  expect_same_db(want, canonical_dump(db));
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
  expect_same_db(want, canonical_dump(db));
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
  expect_same_db(want, canonical_dump(db));
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

}  // namespace
}  // namespace kprof::exec
