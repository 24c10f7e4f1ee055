// `kprof run` and `kprof resume` plan a run once: the executor makes the plan before the database
// is touched and hands it to the driver, which decides replay and rotated passes from it without
// planning again. The plan seam (ExecSeams::plan) counts the calls; the backend and launcher are
// the fakes of executor_unit_fixture.hpp.
#include "tests/exec/executor_unit_fixture.hpp"

namespace kprof::exec {
namespace {

using namespace unit;

// The seams with a plan function that counts its calls and then plans as plan_run does.
ExecSeams counting_seams(const Fixture& f, FakeLauncher& launcher, int& calls) {
  ExecSeams s = f.seams(launcher);
  s.plan = [&calls](const runbook::Runbook& rb, const ProfilerBackend& backend, int64_t run_id,
                    const RunPlanOptions& options) {
    ++calls;
    return plan_run(rb, backend, run_id, options);
  };
  return s;
}

TEST(PlanOnce, RunPlansOnceAndRecordsAndLaunchesItsCommands) {
  Fixture f;
  int calls = 0;
  FakeLauncher launcher([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, counting_seams(f, launcher, calls));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(calls, 1);
  // The runbook's 4 counters fit 2 passes of the fake plan; each recorded argv is the one launched.
  const auto passes = f.passes();
  ASSERT_EQ(passes.size(), 3u);
  ASSERT_EQ(launcher.started.size(), 3u);
  for (const auto& p : passes)
    EXPECT_EQ(p.argv, launcher.started[static_cast<size_t>(p.ordinal)].argv) << p.ordinal;
}

TEST(PlanOnce, ResumePlansOnce) {
  Fixture f;
  int calls = 0;
  FakeLauncher first([](const LaunchSpec& s, int n) {
    FakeAttempt a = works(s);
    if (n == 1) a.on_start = [] { request_interrupt(SIGINT); };
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, counting_seams(f, first, calls));
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(calls, 1);

  clear_interrupt();
  calls = 0;
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, counting_seams(f, again, calls));
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_EQ(calls, 1);
}

// A plan that fails is the runbook's error, before any database exists.
TEST(PlanOnce, APlanErrorLeavesNoDatabase) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec& s, int) { return works(s); });
  ExecSeams s = f.seams(launcher);
  s.plan = [](const runbook::Runbook&, const ProfilerBackend&, int64_t,
              const RunPlanOptions&) -> RunPlan {
    throw Error::input("no plan", "fix the runbook");
  };
  EXPECT_THROW(run_runbook(f.rb, f.options, s), Error);
  EXPECT_FALSE(std::filesystem::exists(f.db()));
  EXPECT_TRUE(launcher.started.empty());
}

}  // namespace
}  // namespace kprof::exec
