// `kprof run --slurm` and `kprof resume --slurm` end to end on a real Slurm (the loopback cluster
// of the ctest fixture `slurm`): the kprof executable, the rocprofv3 test double as the profiler,
// real SQLite files. The passes run as Slurm array tasks on the "node" (127.0.0.1); kprof polls
// scontrol and ingests each pass as its task ends.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "core/exec/launch/slurm_client.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::read;

struct Out {
  RunResult result;
  std::string text;
};

class SlurmRun : public ::testing::Test {
 protected:
  // The double's 8-GPU model; the workload records the GPU variables it saw and runs `body`
  // ($T is the pass ordinal: the array task id).
  fs::path runbook(const std::string& body, const std::string& extra = "") {
    std::ofstream(dir / "work.sh")
        << "#!/bin/sh\nD=$(dirname \"$0\")\nT=${SLURM_ARRAY_TASK_ID:-local}\n"
           "echo \"${ROCR_VISIBLE_DEVICES-} ${SLURM_JOB_GPUS-} "
           "${CUDA_VISIBLE_DEVICES-unset}\" > \"$D/gpu-$T\"\n"
        << body << "\nexit 0\n";
    fs::permissions(dir / "work.sh", fs::perms::owner_all);
    const auto rb = dir / "small.yaml";
    std::ofstream(rb)
        << "schema_version: 1\nname: small\nworkload:\n  command: [\"" << (dir / "work.sh").string()
        << "\"]\n  timeout: 60s\nprofiler:\n  output_format: csv\ntarget:\n  arch: "
           "gfx942\npasses:\n  trace:\n    enabled: true\n  counters:\n    counters: "
           "[GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES]\n    kernels:\n      "
           "from_trace: {top: 2, by: total_duration}\nretry:\n  backoff: 100ms\n"
           "launcher:\n  type: slurm\n  gpus_per_task: 1\n"
           "database: small.db\nsim:\n  model: vector-ops-8gpu\n  seed: 7\n"
        << extra;
    return rb;
  }

  Out kprof(const std::vector<std::string>& args, std::function<void(pid_t)> started = {}) {
    LaunchSpec s;
    s.argv = {std::string(KPROF_BIN_DIR) + "/kprof"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.log_path = dir / "kprof.out";
    s.env = {{"ROCPROF_SIM_CLOCK_BASE_NS", "1000000000"}};
    s.log_tail_bytes = 1 << 20;
    s.on_started = std::move(started);
    std::error_code ec;
    fs::remove(s.log_path, ec);
    Out o;
    o.result = run_process(s);
    o.text = read(s.log_path);
    return o;
  }

  // The batch scripts kprof submitted, oldest first.
  std::vector<std::string> scripts() {
    std::vector<fs::path> files;
    const auto d = dir / "small-captures" / "run-1" / "slurm";
    if (fs::exists(d))
      for (const auto& e : fs::directory_iterator(d))
        if (e.path().extension() == ".sh") files.push_back(e.path());
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
      return fs::last_write_time(a) < fs::last_write_time(b);
    });
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(read(f));
    return out;
  }

  static std::string array_line(const std::string& script) {
    const auto at = script.find("#SBATCH --array=");
    return at == std::string::npos ? "" : script.substr(at + 16, script.find('\n', at) - at - 16);
  }

  std::string pass_field(int ordinal, const std::string& column) {
    SQLite::Database db((dir / "small.db").string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT " + column + " FROM passes WHERE ordinal = ?");
    q.bind(1, ordinal);
    if (!q.executeStep()) return "<no pass>";
    return q.getColumn(0).isNull() ? "NULL" : q.getColumn(0).getString();
  }

  // What the run's rows hold, independent of pids, agents and interned ids.
  static std::vector<std::string> content(const fs::path& db_path) {
    SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
    std::vector<std::string> lines;
    SQLite::Statement d(db,
                        "SELECT p.ordinal, d.dispatch_id, s.value, d.start_ns, d.end_ns FROM "
                        "dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings s ON s.id = "
                        "d.kernel_name_id");
    while (d.executeStep()) {
      std::string l = "d";
      for (int i = 0; i < 5; ++i) l += " " + d.getColumn(i).getString();
      lines.push_back(l);
    }
    SQLite::Statement c(db,
                        "SELECT p.ordinal, c.dispatch_id, s.value, c.value FROM counter_values c "
                        "JOIN passes p ON p.id = c.pass_id JOIN strings s ON s.id = c.counter_id");
    while (c.executeStep()) {
      std::string l = "c";
      for (int i = 0; i < 4; ++i) l += " " + c.getColumn(i).getString();
      lines.push_back(l);
    }
    SQLite::Statement p(db, "SELECT ordinal, state, kind, counters FROM passes");
    while (p.executeStep())
      lines.push_back("p " + p.getColumn(0).getString() + " " + p.getColumn(1).getString() + " " +
                      p.getColumn(2).getString() + " " + p.getColumn(3).getString());
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  testing::ScratchDir scratch{"kprof-slurmrun"};
  fs::path dir = scratch.path();
};

// The trace pass first (one task), then both counter passes as ONE array job, each on the GPU
// Slurm gave it; the database holds what a local run of the same runbook holds.
TEST_F(SlurmRun, CounterPassesRunAsOneArrayAndTheCaptureEqualsALocalRuns) {
  REQUIRE_CLUSTER();
  const auto rb = runbook("");
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet", "--slurm"});
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  const auto s = scripts();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(array_line(s[0]), "0");
  EXPECT_EQ(array_line(s[1]), "1-2");
  EXPECT_NE(s[1].find("#SBATCH --gres=gpu:1\n"), std::string::npos);
  for (const char* task : {"1", "2"}) {
    std::istringstream seen(read(dir / (std::string("gpu-") + task)));
    std::string rocr, slurm_gpus, cuda;
    seen >> rocr >> slurm_gpus >> cuda;
    EXPECT_FALSE(rocr.empty()) << "task " << task << " saw no ROCR_VISIBLE_DEVICES";
    EXPECT_EQ(rocr, slurm_gpus) << "task " << task;  // Slurm's choice, kept
    EXPECT_EQ(cuda, "unset") << "task " << task;
  }
  EXPECT_EQ(pass_field(1, "state"), "done");
  EXPECT_EQ(pass_field(2, "attempts"), "1");
  r = kprof({"run", rb.string(), "--simulate", "--quiet", "--db", (dir / "local.db").string(),
             "--launcher", "local"});
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  EXPECT_EQ(content(dir / "small.db"), content(dir / "local.db"));
}

// A task that fails stays failed with its exit code; `kprof resume --retry-failed` submits that
// pass alone (--array=2) and the run completes.
TEST_F(SlurmRun, FailedTaskIsResubmittedAloneByResume) {
  REQUIRE_CLUSTER();
  std::ofstream(dir / "fail-2") << "";
  const auto rb = runbook("if [ \"$T\" = 2 ] && [ -e \"$D/fail-2\" ]; then exit 5; fi");
  {
    // One attempt per pass, so the failure is recorded rather than retried.
    std::string text = read(rb);
    const std::string from = "retry:\n  backoff: 100ms\n";
    text.replace(text.find(from), from.size(), "retry:\n  attempts: 1\n");
    std::ofstream(rb) << text;
  }
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet"});
  EXPECT_EQ(r.result.exit_code, 1) << r.text;
  EXPECT_EQ(pass_field(2, "state"), "failed");
  EXPECT_EQ(pass_field(1, "state"), "done");
  fs::remove(dir / "fail-2");
  r = kprof({"resume", (dir / "small.db").string(), "--retry-failed", "--quiet"});
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  const auto s = scripts();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(array_line(s[2]), "2");
  EXPECT_EQ(pass_field(2, "state"), "done");
}

// scancel of a running task from outside: the attempt ends as cancelled (SIGTERM), the pass is
// retried and done on its second attempt.
TEST_F(SlurmRun, ScancelledTaskIsRetried) {
  REQUIRE_CLUSTER();
  const auto rb = runbook(
      "if [ \"$T\" = 1 ] && [ ! -e \"$D/cancelled-once\" ]; then touch \"$D/running-1\"; sleep 60; "
      "fi");
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    for (int i = 0; i < 600 && !done; ++i) {
      if (fs::exists(dir / "running-1")) {
        std::ofstream(dir / "cancelled-once") << "";
        const std::string id = pass_field(1, "launch_id");
        LaunchSpec s;
        s.argv = {"scancel", id};
        s.log_path = dir / "scancel.out";
        run_process(s);
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet"});
  done = true;
  canceller.join();
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  EXPECT_EQ(pass_field(1, "state"), "done");
  EXPECT_EQ(pass_field(1, "attempts"), "2");
  EXPECT_NE(pass_field(1, "reason").find("succeeded on attempt 2"), std::string::npos)
      << pass_field(1, "reason");
}

// kprof killed (SIGKILL) while its array runs: `kprof resume` finds the tasks in Slurm and waits
// for them instead of cancelling and submitting again.
TEST_F(SlurmRun, ResumeAfterKill9AdoptsTheRunningTasks) {
  REQUIRE_CLUSTER();
  const auto rb = runbook(
      "if [ \"$T\" != local ] && [ \"$T\" != 0 ]; then touch \"$D/running-$T\"; sleep 3; fi");
  std::atomic<pid_t> pid{0};
  std::thread killer([&] {
    for (int i = 0; i < 600; ++i) {
      if (pid && fs::exists(dir / "running-1") && fs::exists(dir / "running-2")) {
        ::kill(pid.load(), SIGKILL);
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
  });
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet"}, [&](pid_t p) { pid = p; });
  killer.join();
  ASSERT_EQ(r.result.signal, SIGKILL) << r.text;
  EXPECT_EQ(pass_field(1, "state"), "running");
  r = kprof({"resume", (dir / "small.db").string(), "--quiet"});
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  EXPECT_EQ(scripts().size(), 2u) << "resume submitted again";
  EXPECT_EQ(pass_field(1, "state"), "done");
  EXPECT_EQ(pass_field(2, "state"), "done");
  EXPECT_EQ(pass_field(1, "attempts"), "1");
}

// The same with a run started by `kprof run --slurm` (no `launcher:` in the runbook): a plain
// `kprof resume DB` takes the launcher the running attempts were recorded with and adopts the
// tasks, instead of cancelling them and running the passes locally.
TEST_F(SlurmRun, PlainResumeOfARunStartedWithTheSlurmFlagAdoptsItsTasks) {
  REQUIRE_CLUSTER();
  const auto rb = runbook(
      "if [ \"$T\" != local ] && [ \"$T\" != 0 ]; then touch \"$D/running-$T\"; sleep 3; fi");
  std::string text = read(rb);
  const std::string section = "launcher:\n  type: slurm\n  gpus_per_task: 1\n";
  ASSERT_NE(text.find(section), std::string::npos);
  text.erase(text.find(section), section.size());
  std::ofstream(rb) << text;
  std::atomic<pid_t> pid{0};
  std::thread killer([&] {
    for (int i = 0; i < 600; ++i) {
      if (pid && fs::exists(dir / "running-1") && fs::exists(dir / "running-2")) {
        ::kill(pid.load(), SIGKILL);
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
  });
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet", "--slurm", "--gpus-per-task", "1"},
                 [&](pid_t p) { pid = p; });
  killer.join();
  ASSERT_EQ(r.result.signal, SIGKILL) << r.text;
  EXPECT_EQ(pass_field(1, "state"), "running");
  EXPECT_EQ(pass_field(1, "launcher"), "slurm");
  r = kprof({"resume", (dir / "small.db").string(), "--quiet"});
  ASSERT_EQ(r.result.exit_code, 0) << r.text;
  EXPECT_EQ(scripts().size(), 2u) << "resume submitted again";
  EXPECT_FALSE(fs::exists(dir / "gpu-local")) << "a pass ran locally";
  for (int ordinal : {1, 2}) {
    EXPECT_EQ(pass_field(ordinal, "state"), "done");
    EXPECT_EQ(pass_field(ordinal, "attempts"), "1");
  }
}

// The node set DOWN while a counter task runs: Slurm requeues the task (PENDING, Restarts=1) and
// starts it again after its hold (cred_expire, 10 s on the loopback cluster); kprof treats the
// requeue as the same attempt going on, and the run completes with one attempt per pass.
TEST_F(SlurmRun, NodeDownMidRunRequeuesTheTaskAndTheRunCompletes) {
  REQUIRE_CLUSTER();
  const auto rb = runbook(
      "if [ \"$T\" = 1 ] && [ ! -e \"$D/requeued\" ]; then touch \"$D/running-1\"; sleep 60; fi");
  std::atomic<bool> done{false};
  std::string node;
  std::thread downer([&] {
    for (int i = 0; i < 600 && !done; ++i) {
      if (fs::exists(dir / "running-1")) {
        std::ofstream(dir / "requeued") << "";
        // The node the task runs on, as Slurm names it.
        LaunchSpec q;
        q.argv = {"squeue", "-h", "-o", "%N", "-j", pass_field(1, "launch_id")};
        q.log_path = dir / "squeue.out";
        run_process(q);
        std::istringstream in(read(q.log_path));
        in >> node;
        LaunchSpec s;
        s.argv = {"scontrol", "update", "nodename=" + node, "state=down", "reason=kprof-test"};
        s.log_path = dir / "down.out";
        run_process(s);
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  auto r = kprof({"run", rb.string(), "--simulate", "--quiet"});
  done = true;
  downer.join();
  if (!node.empty()) {
    // ReturnToService=2 brings it back once slurmd registers; make sure before the next test.
    LaunchSpec s;
    s.argv = {"scontrol", "update", "nodename=" + node, "state=resume"};
    s.log_path = dir / "resume.out";
    run_process(s);
  }
  ASSERT_FALSE(node.empty()) << "the task never ran\n" << r.text;
  ASSERT_EQ(r.result.exit_code, 0) << r.text << read(dir / "down.out");
  EXPECT_EQ(pass_field(1, "state"), "done");
  EXPECT_EQ(pass_field(1, "attempts"), "1");
  EXPECT_EQ(pass_field(2, "state"), "done");
  EXPECT_EQ(scripts().size(), 2u) << "kprof submitted again instead of waiting for the requeue";
}

}  // namespace
}  // namespace kprof::exec
