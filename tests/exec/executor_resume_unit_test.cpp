// The executor's interrupt and resume driven through fakes (executor_unit_fixture.hpp): running
// attempts cancelled, orphans reaped from their owner records (and the pre-schema-6 pgid file),
// attempts adopted instead of started again. One test starts a real process group as the orphan
// a killed kprof left.
#include "tests/exec/executor_unit_fixture.hpp"

namespace kprof::exec {
namespace {

using namespace unit;  // the fixture's helpers and its using-declarations

// Two GPU slots: counter pass 1 hangs; when counter pass 2 starts, pass 1's owner record is in the
// database, and kprof gets SIGINT. The executor cancels the hanging attempt with SIGINT; the
// finished one is kept. A resume runs only what is not done.
TEST(ExecutorUnit, InterruptCancelsRunningAttemptsAndResumeRunsOnlyTheRest) {
  Fixture f;
  f.options.gpus = {0, 1};
  std::string owner_seen;
  FakeLauncher launcher([&](const LaunchSpec& s, int n) {
    FakeAttempt a = works(s);
    if (n == 1) a.hangs = true;
    if (n == 2) {
      a.on_start = [&] {
        store::CaptureDb db(f.db(), store::OpenMode::read_only);
        const auto p = db.list_passes(db.find_last_run()->id).at(1);
        owner_seen = std::string(store::to_string(p.state)) + " " + p.launcher + " " + p.launch_id;
        request_interrupt(SIGINT);
      };
    }
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(r.status, store::RunStatus::interrupted);
  EXPECT_EQ(owner_seen, "running fake fake-1");
  ASSERT_EQ(launcher.started.size(), 3u);
  EXPECT_EQ(launcher.started[1].gpus, std::vector<int>{0});
  EXPECT_EQ(launcher.started[2].gpus, std::vector<int>{1});
  EXPECT_EQ(launcher.started[1].env.at("ROCR_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(launcher.started[2].env.at("ROCR_VISIBLE_DEVICES"), "1");
  ASSERT_EQ(launcher.cancels.size(), 1u);
  EXPECT_EQ(launcher.cancels[0], (std::pair<std::string, int>{"fake-1", SIGINT}));
  auto passes = f.passes();
  EXPECT_EQ(passes[0].state, PassState::done);
  EXPECT_EQ(passes[1].state, PassState::interrupted);
  EXPECT_EQ(passes[1].reason, "interrupted (SIGINT)");
  EXPECT_EQ(passes[2].state, PassState::done);

  clear_interrupt();
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_EQ(r2.run_id, r.run_id);
  ASSERT_EQ(again.started.size(), 1u);  // only the interrupted pass
  EXPECT_EQ(again.started[0].argv, launcher.started[1].argv);
  passes = f.passes();
  EXPECT_EQ(passes[1].state, PassState::done);
  EXPECT_EQ(passes[1].attempts, 1);  // the attempt the user interrupted is not counted
  EXPECT_EQ(passes[1].reason, "");
}

// What a kill -9 of kprof leaves: a pass recorded as running, with its launcher's id. Resume asks
// that launcher to reap the attempt, runs the pass again, and its rows are not doubled.
TEST(ExecutorUnit, ResumeReapsTheOrphanedAttemptFromItsOwnerRecord) {
  Fixture f;
  FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
  ASSERT_EQ(r.exit_code, 0);
  int64_t values_before = 0;
  {
    store::CaptureDb db(f.db());
    const auto p = db.list_passes(r.run_id).at(2);
    values_before = db.row_counts(p.id).counter_values;
    store::PassTransition t;
    t.state = PassState::running;
    t.attempts = 2;
    t.owner_pid = 999999999;  // no such process: its kprof is dead
    t.owner_host = host_name();
    db.set_pass_state(p.id, t);
    db.set_pass_launch(p.id, "fake", "fake-orphan");
    db.set_run_status(r.run_id, store::RunStatus::running);
  }
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_EQ(again.reaped, std::vector<std::string>{"fake-orphan"});
  ASSERT_EQ(again.started.size(), 1u);
  EXPECT_EQ(again.started[0].argv.at(1), "counters");
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  const auto p = db.list_passes(r.run_id).at(2);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(p.attempts, 3);
  EXPECT_EQ(db.row_counts(p.id).counter_values, values_before);
}

// A running pass recorded by a launcher this kprof does not have is refused with its name.
TEST(ExecutorUnit, ResumeRefusesAnOwnerRecordOfAnUnknownLauncher) {
  Fixture f;
  FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
  {
    store::CaptureDb db(f.db());
    const auto p = db.list_passes(r.run_id).at(1);
    store::PassTransition t;
    t.state = PassState::running;
    t.owner_host = host_name();
    db.set_pass_state(p.id, t);
    db.set_pass_launch(p.id, "lsf", "job 7");
  }
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  try {
    resume_run(f.db(), f.options, nullptr, f.seams(again));
    FAIL() << "resumed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown pass launcher 'lsf'"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(again.started.empty());
}

// A process group standing in for the profiler an older kprof left running: `sleep 60` leading its
// own group, as run_process starts every attempt.
pid_t start_orphan_group() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so the group exists before the test reads it
  return pid;
}

// Whether `pid` (our child) ended by SIGKILL within a few seconds; reaps it either way.
bool killed_within_seconds(pid_t pid) {
  for (int i = 0; i < 300; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    std::this_thread::sleep_for(10ms);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return false;
}

// A database a kprof before schema 6 left after kill -9: the pass is `running` with no launcher
// in its row (the column came with schema 6), and the owner record is "<pgid> <start time>" in
// "<pass log>.pgid". Resume stops that process group before it runs the pass again into the
// same folder, and its rows are not doubled.
TEST(ExecutorUnit, ResumeStopsTheOrphanOfAKprofBeforeSchema6) {
  Fixture f;
  FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
  ASSERT_EQ(r.exit_code, 0);
  const pid_t orphan = start_orphan_group();
  ASSERT_GT(orphan, 0);
  std::optional<unsigned long long> started;
  for (int i = 0; i < 100 && !started; ++i) {
    started = process_start_time(orphan);
    if (!started) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(started);
  int64_t values_before = 0;
  std::filesystem::path log;
  {
    store::CaptureDb db(f.db());
    const auto p = db.list_passes(r.run_id).at(2);
    values_before = db.row_counts(p.id).counter_values;
    log = p.log_path;
    store::PassTransition t;  // a running transition clears launcher and launch_id
    t.state = PassState::running;
    t.attempts = 2;
    t.owner_pid = 999999999;  // no such process: its kprof is dead
    t.owner_host = host_name();
    db.set_pass_state(p.id, t);
    db.set_run_status(r.run_id, store::RunStatus::running);
  }
  ASSERT_FALSE(log.empty());
  write_file(log.string() + ".pgid",
             std::to_string(orphan) + " " + std::to_string(*started) + "\n");

  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_TRUE(killed_within_seconds(orphan));
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_TRUE(again.reaped.empty());  // not the fake's: the old kprof ran it locally
  EXPECT_FALSE(std::filesystem::exists(log.string() + ".pgid"));
  ASSERT_EQ(again.started.size(), 1u);
  EXPECT_EQ(again.started[0].argv.at(1), "counters");
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  const auto p = db.list_passes(r.run_id).at(2);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(db.row_counts(p.id).counter_values, values_before);
}

// The same record on another host (resume --force): its pgid names a process there, so nothing
// here is stopped, even a process that has that pgid and start time.
TEST(ExecutorUnit, ResumeLeavesAPreSchema6OwnerOnAnotherHostAlone) {
  Fixture f;
  FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
  ASSERT_EQ(r.exit_code, 0);
  const pid_t bystander = start_orphan_group();
  ASSERT_GT(bystander, 0);
  std::optional<unsigned long long> started;
  for (int i = 0; i < 100 && !started; ++i) {
    started = process_start_time(bystander);
    if (!started) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(started);
  std::filesystem::path log;
  {
    store::CaptureDb db(f.db());
    const auto p = db.list_passes(r.run_id).at(1);
    log = p.log_path;
    store::PassTransition t;
    t.state = PassState::running;
    t.owner_pid = 4242;
    t.owner_host = "another-host.example";
    db.set_pass_state(p.id, t);
  }
  write_file(log.string() + ".pgid",
             std::to_string(bystander) + " " + std::to_string(*started) + "\n");
  f.options.force = true;
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_EQ(r2.exit_code, 0);
  int status = 0;
  EXPECT_EQ(::waitpid(bystander, &status, WNOHANG), 0) << "the process here was stopped";
  ::kill(bystander, SIGKILL);
  ::waitpid(bystander, nullptr, 0);
}

// resume --force of a pass recorded running on another host asks the launcher of its owner record,
// never this host's about a foreign id: an id that names a process group there (host-local ids)
// is neither adopted nor reaped here (the user is told), one a scheduler knows cluster-wide is
// reaped through it. Either way the pass runs again.
TEST(ExecutorUnit, ResumeForceOfAnotherHostsPassUsesItsOwnerRecordsLauncher) {
  for (const bool host_local : {true, false}) {
    Fixture f;
    FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
    const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
    ASSERT_EQ(r.exit_code, 0);
    {
      store::CaptureDb db(f.db());
      const auto p = db.list_passes(r.run_id).at(2);
      store::PassTransition t;
      t.state = PassState::running;
      t.owner_pid = 4242;
      t.owner_host = "another-host.example";
      db.set_pass_state(p.id, t);
      db.set_pass_launch(p.id, "fake", "fake-7");
      db.set_run_status(r.run_id, store::RunStatus::running);
    }
    f.options.force = true;
    FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
    again.host_local = host_local;
    again.known = {"fake-7"};  // an id this host's launcher would claim to know
    const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
    EXPECT_EQ(r2.exit_code, 0);
    if (host_local) {
      EXPECT_TRUE(again.adopted.empty());
      EXPECT_TRUE(again.reaped.empty());
      ASSERT_EQ(again.started.size(), 1u);
      EXPECT_EQ(again.started[0].argv.at(1), "counters");
    } else {
      EXPECT_EQ(again.adopted.size(), 1u);  // a cluster-wide id is taken over
    }
    store::CaptureDb db(f.db(), store::OpenMode::read_only);
    EXPECT_EQ(db.list_passes(r.run_id).at(2).state, PassState::done);
  }
}

// Resume after kprof was killed: an attempt its launcher still knows is adopted and waited for,
// not reaped and started again; its pass is ingested from what that attempt wrote.
TEST(ExecutorUnit, ResumeWaitsForAnAdoptedAttemptInsteadOfStartingItAgain) {
  Fixture f;
  FakeLauncher first([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(first));
  ASSERT_EQ(r.exit_code, 0);
  int64_t values_before = 0;
  {
    store::CaptureDb db(f.db());
    const auto p = db.list_passes(r.run_id).at(2);
    values_before = db.row_counts(p.id).counter_values;
    store::PassTransition t;
    t.state = PassState::running;
    t.owner_pid = 999999999;  // no such process: its kprof is dead
    t.owner_host = host_name();
    db.set_pass_state(p.id, t);
    db.set_pass_launch(p.id, "fake", "fake-left");
    db.set_run_status(r.run_id, store::RunStatus::running);
  }
  FakeLauncher again([](const LaunchSpec& s, int) { return works(s); });
  again.known = {"fake-left"};
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_EQ(r2.exit_code, 0);
  EXPECT_TRUE(again.started.empty());
  EXPECT_TRUE(again.reaped.empty());
  ASSERT_EQ(again.adopted.size(), 1u);
  EXPECT_EQ(again.adopted[0].first, "fake-left");
  EXPECT_EQ(again.adopted[0].second.ordinal, 2);
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  const auto p = db.list_passes(r.run_id).at(2);
  EXPECT_EQ(p.state, PassState::done);
  EXPECT_EQ(p.attempts, 1);
  EXPECT_EQ(db.row_counts(p.id).counter_values, values_before);
}

}  // namespace
}  // namespace kprof::exec
