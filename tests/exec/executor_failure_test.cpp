// `kprof run` with passes that fail: timeouts, crashes retried, flaky passes, deterministic
// failures (exit 2, error 38), a second kprof on the same database; and the pass log's
// rerunnable attempt line. Real processes and databases (helpers: executor_e2e.hpp).
#include "tests/exec/executor_e2e.hpp"

namespace kprof::exec {
namespace {

using namespace e2e;  // the fixture's helpers and its using-declarations

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
  expect_same_db(reference_dump(), canonical_dump(dir / "small.db"));
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

// The `kprof: attempt N:` line of a pass log is a command a POSIX shell runs again as
// the same profiler command. Arguments with spaces, quotes and `$` survive the round trip.
TEST(Executor, AttemptLineInThePassLogRerunsTheSameCommand) {
  TempDir dir;
  write_script(dir / "work.sh",
               "D=$(dirname \"$0\")\n"
               "{ echo \"argc=$#\"; for a in \"$@\"; do echo \"[$a]\"; done; } >> \"$D/args\"\n");
  const auto rb = dir / "quoting.yaml";
  RunbookYaml y;
  y.name = "quoting";
  y.command = "[\"" + (dir / "work.sh").string() +
              "\", \"a b\", \"it's\", \"$HOME\", \"x;y\", \"\\\"q\\\"\"]";
  y.timeout = "60s";
  write_file(rb, runbook_yaml(y));
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
  Kprof k = kprof(dir, {"run", rb.string(), "--quiet", "--no-doctor"});
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

}  // namespace
}  // namespace kprof::exec
