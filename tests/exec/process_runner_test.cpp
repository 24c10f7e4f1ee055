// The process runner against real child processes (small shell scripts).
#include "core/exec/node/process_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "core/base/error.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using namespace std::chrono_literals;
using testing::read_text;
using testing::TempDir;
using testing::write_script;

// True while /proc says the process exists and is not a zombie (a zombie has been killed; only its
// parent has yet to reap it).
bool running_not_zombie(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Waits (bounded) for a condition that a correct runner makes true almost at once; the bound only
// keeps a broken runner from hanging the suite.
template <class F>
bool eventually(F f) {
  for (int i = 0; i < 500; ++i) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

pid_t read_pid(const std::filesystem::path& p) {
  pid_t pid = 0;
  eventually([&] { return !read_text(p).empty(); });
  pid = static_cast<pid_t>(std::stol(read_text(p)));
  return pid;
}

TEST(ProcessRunner, RecordsExitCodeAndLog) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {write_script(dir / "w.sh", "echo out-line\necho err-line >&2\nexit 3\n").string()};
  spec.log_path = dir / "logs" / "pass.log";
  RunResult r = run_process(spec);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit 3");
  EXPECT_EQ(r.log_tail, "out-line\nerr-line\n");
  EXPECT_EQ(read_text(spec.log_path), "out-line\nerr-line\n");
  EXPECT_GT(r.pid, 0);
}

TEST(ProcessRunner, AppendsToTheLogAcrossAttempts) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"echo", "attempt"};
  spec.log_path = dir / "pass.log";
  EXPECT_TRUE(run_process(spec).ok());
  EXPECT_TRUE(run_process(spec).ok());
  EXPECT_EQ(read_text(spec.log_path), "attempt\nattempt\n");
}

TEST(ProcessRunner, RecordsTheSignalThatKilledIt) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {write_script(dir / "w.sh", "echo before\nkill -ABRT $$\n").string()};
  spec.log_path = dir / "pass.log";
  RunResult r = run_process(spec);
  EXPECT_EQ(r.signal, SIGABRT);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.describe(), "killed by signal 6 (SIGABRT)");
  EXPECT_EQ(r.log_tail, "before\n");
}

TEST(ProcessRunner, PassesEnvironmentAndWorkingDirectory) {
  TempDir dir;
  std::filesystem::create_directories(dir / "work");
  LaunchSpec spec;
  spec.argv = {
      write_script(dir / "w.sh", "echo \"FOO=$FOO HOME_SET=${HOME:+yes}\"\npwd\n").string()};
  spec.env = {{"FOO", "bar baz"}};
  spec.cwd = dir / "work";
  spec.log_path = dir / "pass.log";
  RunResult r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.describe();
  // HOME comes from kprof's own environment: the runbook's env is added on top, not instead.
  const bool home = std::getenv("HOME") != nullptr;
  EXPECT_EQ(read_text(spec.log_path), std::string("FOO=bar baz HOME_SET=") + (home ? "yes" : "") +
                                          "\n" + std::filesystem::canonical(dir / "work").string() +
                                          "\n");
}

TEST(ProcessRunner, ArgumentsAreNotReinterpretedWithoutShell) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"printf", "%s|", "a b", "$HOME", "*", "'q'"};
  spec.log_path = dir / "pass.log";
  ASSERT_TRUE(run_process(spec).ok());
  EXPECT_EQ(read_text(spec.log_path), "a b|$HOME|*|'q'|");
}

TEST(ProcessRunner, ShellModeRunsThroughBinSh) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"X=5; echo one && echo two$X"};
  spec.shell = true;
  spec.log_path = dir / "pass.log";
  ASSERT_TRUE(run_process(spec).ok());
  EXPECT_EQ(read_text(spec.log_path), "one\ntwo5\n");
}

TEST(ProcessRunner, TimeoutKillsTheWholeGroupIncludingGrandchildren) {
  TempDir dir;
  // The grandchild ignores SIGTERM, so only the SIGKILL after the grace period stops it.
  const auto script = write_script(dir / "hang.sh",
                                   "(trap '' TERM; sleep 1000) &\n"
                                   "echo $! > \"$1\"\n"
                                   "echo started\n"
                                   "sleep 1000\n");
  LaunchSpec spec;
  spec.argv = {script.string(), (dir / "grandchild.pid").string()};
  spec.log_path = dir / "pass.log";
  spec.timeout = 300ms;
  spec.kill_grace = 200ms;
  RunResult r = run_process(spec);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.signal, SIGTERM);
  const pid_t grandchild = read_pid(dir / "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return !running_not_zombie(grandchild); }))
      << "grandchild " << grandchild << " survived the timeout";
  EXPECT_EQ(r.log_tail, "started\n");
  EXPECT_EQ(r.describe().rfind("timed out after ", 0), 0u) << r.describe();
}

TEST(ProcessRunner, LeaderIgnoringTermIsKilledAfterGrace) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {
      write_script(dir / "stubborn.sh", "trap '' TERM\nwhile :; do sleep 1; done\n").string()};
  spec.log_path = dir / "pass.log";
  spec.timeout = 200ms;
  spec.kill_grace = 200ms;
  RunResult r = run_process(spec);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
}

TEST(ProcessRunner, InterruptIsForwardedToTheGroup) {
  TempDir dir;
  clear_interrupt();
  const auto marker = dir / "ready";
  const auto script = write_script(dir / "w.sh",
                                   "trap 'echo got-int; exit 130' INT\n"
                                   "touch \"$1\"\n"
                                   "while :; do sleep 0.05; done\n");
  LaunchSpec spec;
  spec.argv = {script.string(), marker.string()};
  spec.log_path = dir / "pass.log";
  std::thread stopper([&] {
    eventually([&] { return std::filesystem::exists(marker); });
    request_interrupt(SIGINT);
  });
  RunResult r = run_process(spec);
  stopper.join();
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.interrupt_signal, SIGINT);
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(r.describe(), "interrupted (SIGINT)");
  EXPECT_EQ(r.log_tail, "got-int\n");
}

TEST(ProcessRunner, MissingProgramIsAnError) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"kprof-no-such-program-xyz"};
  spec.log_path = dir / "pass.log";
  try {
    run_process(spec);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find("cannot find 'kprof-no-such-program-xyz' on PATH"),
              std::string::npos)
        << e.what();
  }
}

TEST(ProcessRunner, MissingWorkingDirectoryIsAnError) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"true"};
  spec.cwd = dir / "nope";
  EXPECT_THROW(run_process(spec), Error);
}

TEST(ProcessRunner, FileTailStartsAtALine) {
  TempDir dir;
  testing::write_file(dir / "f", "aaaa\nbbbb\ncccc\n");
  EXPECT_EQ(file_tail(dir / "f", 7), "cccc\n");
  EXPECT_EQ(file_tail(dir / "f", 100), "aaaa\nbbbb\ncccc\n");
  EXPECT_EQ(file_tail(dir / "missing", 10), "");
}

TEST(ProcessRunner, ProcessAlive) {
  EXPECT_TRUE(process_alive(::getpid()));
  TempDir dir;
  LaunchSpec spec;
  spec.argv = {"true"};
  RunResult r = run_process(spec);
  // Reaped, so the pid is free (reuse within this test is practically impossible).
  EXPECT_FALSE(process_alive(r.pid));
  EXPECT_FALSE(process_alive(0));
}

}  // namespace
}  // namespace kprof::exec
