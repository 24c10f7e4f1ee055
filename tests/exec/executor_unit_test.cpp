// The executor's pass state machine driven through its two seams with fakes (tests/exec/fakes.hpp):
// no profiler is spawned (one test starts a real process group as the orphan a killed kprof left).
// Each attempt writes the profiler's CSV files itself, so ingest, kernel
// selection and the database are the real ones. The real-process tests (executor_test.cpp,
// tests/crash) cover the local launcher and the real profiler double.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include "core/exec/executor.hpp"
#include "core/exec/pass_plan.hpp"
#include "core/exec/process_runner.hpp"
#include "core/exec/run_lock.hpp"
#include "core/runbook/runbook.hpp"
#include "tests/exec/fakes.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using namespace std::chrono_literals;
using store::PassKind;
using store::PassState;
using testing::FakeAttempt;
using testing::FakeBackend;
using testing::FakeLauncher;
using testing::TempDir;
using testing::write_file;

// Three kernels: big (3 launches, 30 µs each), mid (2 × 20 µs), small (1 × 1 µs). The top 2 by
// total duration are big and mid.
void write_trace(const LaunchSpec& s) {
  std::string csv =
      "Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
      "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,Workgroup_Size_X,"
      "Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n";
  const char* names[] = {"big", "mid", "big", "mid", "big", "small"};
  const int durations_us[] = {30, 20, 30, 20, 30, 1};
  int64_t t = 1000000;
  for (int i = 0; i < 6; ++i) {
    csv += "Agent 1,1,7," + std::to_string(i + 1) + "," + std::to_string(i + 1) + "," + names[i] +
           "," + std::to_string(i + 1) + "," + std::to_string(t) + "," +
           std::to_string(t + durations_us[i] * 1000) + ",0,0,64,1,1,1024,1,1\n";
    t += 100000;
  }
  write_file(s.output_dir / "node" / "4242_kernel_trace.csv", csv);
}

// One row per (dispatch, counter) of this pass's counters, for big and mid.
void write_counters(const LaunchSpec& s) {
  std::string csv =
      "Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,"
      "Workgroup_Size,LDS_Block_Size,Scratch_Size,Counter_Name,Counter_Value\n";
  const std::string counters = s.argv.at(2);  // FakeBackend: fakeprof counters A,B FILTER DIR
  const char* names[] = {"big", "mid", "big", "mid", "big"};
  for (int i = 0; i < 5; ++i) {
    std::stringstream ss(counters);
    for (std::string c; std::getline(ss, c, ',');) {
      csv += std::to_string(i + 1) + "," + std::to_string(i + 1) + ",Agent 1,1,7,1024," +
             std::to_string(i + 1) + "," + names[i] + ",64,0,0," + c + "," +
             std::to_string(100 * (i + 1)) + "\n";
    }
  }
  write_file(s.output_dir / "node" / "4242_counter_collection.csv", csv);
}

bool is_trace(const LaunchSpec& s) { return s.argv.at(1) == "trace"; }

// A profiler that always succeeds.
FakeAttempt works(const LaunchSpec& s) {
  FakeAttempt a;
  a.write = is_trace(s) ? write_trace : write_counters;
  return a;
}

struct Fixture {
  TempDir dir;
  runbook::Runbook rb;
  ExecOptions options;
  std::ostringstream out;

  explicit Fixture(const std::string& retry = "  attempts: 2\n  backoff: 0s\n") {
    write_file(dir / "small.yaml",
               "schema_version: 1\n"
               "name: small\n"
               "workload:\n"
               "  command: [\"./app\", \"--tokens\", \"8\"]\n"
               "  timeout: 90s\n"
               "profiler:\n"
               "  output_format: csv\n"
               "target:\n"
               "  arch: gfx942\n"
               "passes:\n"
               "  trace:\n"
               "    enabled: true\n"
               "  counters:\n"
               "    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES]\n"
               "    kernels:\n"
               "      from_trace: {top: 2, by: total_duration}\n"
               "retry:\n" +
                   retry + "database: small.db\n");
    rb = runbook::load_runbook(dir / "small.yaml");
    options.out = &out;
    options.tty = false;
    options.quiet = true;
    clear_interrupt();
  }
  ~Fixture() { clear_interrupt(); }

  ExecSeams seams(FakeLauncher& launcher) const {
    ExecSeams s;
    s.launcher = &launcher;
    s.backend = [](const runbook::Runbook&, const BackendChoice&) {
      return std::make_unique<FakeBackend>();
    };
    return s;
  }
  std::filesystem::path db() const { return dir / "small.db"; }
  std::vector<store::PassInfo> passes() const {
    store::CaptureDb db(this->db(), store::OpenMode::read_only);
    return db.list_passes(db.find_last_run()->id);
  }
};

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
  EXPECT_FALSE(trace.gpu);
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
  EXPECT_EQ(launcher.started[1].gpu, 0);
  EXPECT_EQ(launcher.started[2].gpu, 1);
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
