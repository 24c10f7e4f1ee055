// The executor's pass state machine driven through its two seams with fakes (tests/exec/fakes.hpp):
// no profiler is spawned. Each attempt writes the profiler's CSV files itself, so ingest, kernel
// selection and the database are the real ones (fixture: executor_unit_fixture.hpp). Here: success,
// crash, timeout and a launch that cannot start; interrupt and resume are in
// executor_resume_unit_test.cpp. The real-process tests (executor_test.cpp, tests/crash) cover the
// local launcher and the real profiler double.
#include "tests/exec/executor_unit_fixture.hpp"

namespace kprof::exec {
namespace {

using namespace unit;  // the fixture's helpers and its using-declarations

TEST(ExecutorUnit, SuccessRunsTraceThenCounterPassesWithTheBackendsCommands) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.status, store::RunStatus::done);
  EXPECT_EQ(r.passes, 3);
  EXPECT_EQ(r.done, 3);
  EXPECT_TRUE(r.simulated);  // the backend says its figures are simulated

  ASSERT_EQ(launcher.started.size(), 3u);
  const LaunchSpec& trace = launcher.started[0];
  EXPECT_EQ(trace.argv.at(0), "fakeprof");
  EXPECT_EQ(trace.argv.at(1), "trace");
  EXPECT_EQ(trace.output_dir, pass_dir(f.rb, r.run_id, 0));
  EXPECT_EQ(trace.log_path, pass_log(f.rb, r.run_id, 0));
  EXPECT_EQ(trace.timeout, 90s);  // the runbook's workload.timeout, enforced by the launcher
  EXPECT_EQ(trace.env.at("FAKEPROF"), "1");
  EXPECT_TRUE(trace.gpus.empty());
  EXPECT_EQ(trace.name, "kprof run " + std::to_string(r.run_id) + " pass 0");
  // The counter passes run after the trace, filtered to its top 2 kernels by total duration.
  for (size_t i = 1; i < 3; ++i) {
    const LaunchSpec& c = launcher.started[i];
    EXPECT_EQ(c.argv.at(1), "counters");
    EXPECT_EQ(c.argv.at(3), "^(?:big|mid)$");
  }

  const auto passes = f.passes();
  ASSERT_EQ(passes.size(), 3u);
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  for (const auto& p : passes) {
    EXPECT_EQ(p.state, PassState::done) << p.ordinal;
    EXPECT_EQ(p.attempts, 1);
    EXPECT_EQ(p.launcher, "");  // a finished attempt has no owner
    EXPECT_EQ(p.argv, launcher.started[static_cast<size_t>(p.ordinal)].argv);
  }
  EXPECT_EQ(db.row_counts(passes[0].id).dispatches, 6);
  EXPECT_EQ(db.row_counts(passes[1].id).counter_values, 10);  // 5 dispatches × 2 counters
  EXPECT_EQ(db.row_counts(passes[2].id).counter_values, 10);
  // The pass log holds the line that reruns the attempt.
  EXPECT_NE(testing::read_text(trace.log_path).find("kprof: attempt 1: cd "), std::string::npos);
}

TEST(ExecutorUnit, ACrashIsRetriedAndTheRetrySaysWhy) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec& s, int n) {
    FakeAttempt a = works(s);
    if (n == 0) {
      a.signal = SIGSEGV;  // the trace pass crashes once, leaving nothing
      a.write = nullptr;
    }
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(launcher.started.size(), 4u);
  const auto p = f.passes().at(0);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(p.attempts, 2);
  EXPECT_EQ(p.reason, "succeeded on attempt 2 after: killed by signal 11 (SIGSEGV)");
}

TEST(ExecutorUnit, ACrashEveryTimeFailsThePassAndLeavesFromTraceCountersPlanned) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.signal = SIGABRT;
    a.log = "terminate called after throwing an instance of 'std::runtime_error'\n";
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.status, store::RunStatus::failed);
  EXPECT_EQ(launcher.started.size(), 2u);  // retry.attempts: 2, then no counter pass
  const auto passes = f.passes();
  EXPECT_EQ(passes[0].state, PassState::failed);
  EXPECT_EQ(passes[0].signal, SIGABRT);
  EXPECT_EQ(passes[0].reason, "killed by signal 6 (SIGABRT)");
  EXPECT_NE(passes[0].log_excerpt.find("std::runtime_error"), std::string::npos);
  EXPECT_EQ(passes[1].state, PassState::planned);
  EXPECT_EQ(passes[2].state, PassState::planned);
}

TEST(ExecutorUnit, ATimeoutIsTransientAndRetried) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec& s, int n) {
    FakeAttempt a = works(s);
    if (n == 1) {  // counter pass 1's first attempt
      a.timed_out = true;
      a.signal = SIGTERM;
      a.write = nullptr;
    }
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 0);
  // Attempt 1 (counter pass 1) timed out and ran again, queued behind counter pass 2.
  ASSERT_EQ(launcher.started.size(), 4u);
  EXPECT_EQ(launcher.started[3].argv, launcher.started[1].argv);  // after pass 2: no backoff
  const auto p = f.passes().at(1);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(p.attempts, 2);
  EXPECT_EQ(p.reason, "succeeded on attempt 2 after: timed out after 1m30s");
}

TEST(ExecutorUnit, ALaunchThatCannotStartFailsWithoutRetry) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.cannot_start = true;
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(launcher.started.size(), 1u);
  const auto p = f.passes().at(0);
  EXPECT_EQ(p.state, PassState::failed);
  EXPECT_EQ(p.reason, "cannot find 'fakeprof' on PATH");
}

// A launcher with a scheduler of its own gets the trace pass alone, then every counter pass in one
// start_all (one Slurm array job), each spec carrying its pass ordinal (the array task id).
TEST(ExecutorUnit, ALauncherThatSchedulesItselfGetsAllCounterPassesInOneSubmission) {
  Fixture f;
  FakeLauncher l([](const LaunchSpec& s, int) { return works(s); });
  l.batch = true;
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(l));
  ASSERT_EQ(r.exit_code, 0);
  ASSERT_EQ(l.submissions.size(), 2u);
  ASSERT_EQ(l.submissions[0].size(), 1u);
  EXPECT_EQ(l.submissions[0][0].ordinal, 0);
  ASSERT_EQ(l.submissions[1].size(), 2u);
  EXPECT_EQ(l.submissions[1][0].ordinal, 1);
  EXPECT_EQ(l.submissions[1][1].ordinal, 2);
  EXPECT_EQ(r.done, 3);
}

}  // namespace
}  // namespace kprof::exec
