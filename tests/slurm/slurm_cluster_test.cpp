// The Slurm layer against a real Slurm: slurmctld + slurmd on 127.0.0.1 (scripts/slurm-loopback,
// started by the ctest fixture `slurm`, SLURM_CONF set by ctest). The scripts are kprof's own
// (sbatch_script), the states what scontrol reports. Each test waits a bounded time.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "core/exec/launch/slurm_client.hpp"
#include "core/exec/launch/slurm_script.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/store/capture_db.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::read;

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class SlurmCluster : public ::testing::Test {
 protected:
  ~SlurmCluster() override {
    if (job) client.cancel(*job);
  }

  int64_t submit(const std::vector<SlurmTask>& tasks, int gpus = 1) {
    SbatchOptions o;
    o.job_name = "kprof-test";
    o.gpus_per_task = gpus;
    o.slurm_log_dir = dir / "slurm";
    fs::create_directories(o.slurm_log_dir);
    const auto script = dir / "job.sh";
    std::ofstream(script) << sbatch_script(tasks, o);
    job = client.submit(script, dir);
    return *job;
  }

  // Polls until `done` holds for the tasks, at most `limit`.
  template <class F>
  std::map<int64_t, SlurmTaskStatus> until(F done, std::chrono::seconds limit = 40s) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::map<int64_t, SlurmTaskStatus> t;
    while (std::chrono::steady_clock::now() < end) {
      t = client.tasks(*job);
      if (done(t)) return t;
      std::this_thread::sleep_for(250ms);
    }
    ADD_FAILURE() << "Slurm job " << *job << " did not reach the expected states in "
                  << limit.count() << " s";
    return t;
  }

  static bool all_ended(const std::map<int64_t, SlurmTaskStatus>& t, size_t n) {
    if (t.size() != n) return false;
    for (const auto& [id, s] : t)
      if (!slurm_phase_ended(s.phase)) return false;
    return true;
  }

  SlurmTask shell_task(int64_t index, const std::string& body) {
    SlurmTask t;
    t.index = index;
    t.argv = {"/bin/sh", "-c", body};
    t.cwd = dir;
    t.output_dir = dir / ("pass-" + std::to_string(index));
    t.log_path = dir / "logs" / ("pass-" + std::to_string(index) + ".log");
    return t;
  }

  testing::ScratchDir scratch{"kprof-slurm"};
  fs::path dir = scratch.path();
  SlurmClient client{fs::temp_directory_path() / "kprof-slurm-client"};
  std::optional<int64_t> job;
};

// A real run of the double makes the passes (their exact commands, recorded in the database);
// the counter passes then run as one array, each on the GPU Slurm gave its task.
TEST_F(SlurmCluster, CounterPassesOfARealRunRunAsOneArrayEachOnItsOwnGpu) {
  REQUIRE_CLUSTER();
  std::ofstream(dir / "work.sh") << "#!/bin/sh\nD=$(dirname \"$0\")\n"
                                    "echo \"$ROCR_VISIBLE_DEVICES ${SLURM_JOB_GPUS-} "
                                    "${CUDA_VISIBLE_DEVICES-unset}\" > "
                                    "\"$D/gpu-${SLURM_ARRAY_TASK_ID:-local}\"\n";
  fs::permissions(dir / "work.sh", fs::perms::owner_all);
  std::ofstream(dir / "small.yaml")
      << "schema_version: 1\nname: small\nworkload:\n  command: [\"" << (dir / "work.sh").string()
      << "\"]\n  timeout: 60s\nprofiler:\n  output_format: csv\ntarget:\n  arch: gfx942\n"
         "passes:\n  trace:\n    enabled: true\n  counters:\n    counters: [GRBM_COUNT, "
         "GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES]\n    kernels:\n      from_trace: {top: 2, by: "
         "total_duration}\ndatabase: small.db\nsim:\n  model: vector-ops-8gpu\n  seed: 7\n";
  LaunchSpec k;
  k.argv = {std::string(KPROF_BIN_DIR) + "/kprof", "run", (dir / "small.yaml").string(),
            "--simulate", "--quiet"};
  k.log_path = dir / "kprof.out";
  ASSERT_TRUE(run_process(k).ok()) << read(k.log_path);

  std::vector<SlurmTask> tasks;
  {
    store::CaptureDb db(dir / "small.db", store::OpenMode::read_only);
    for (const auto& p : db.list_passes(db.find_last_run()->id)) {
      if (p.kind != store::PassKind::counters) continue;
      SlurmTask t;
      t.index = p.ordinal;
      t.argv = p.argv;
      t.env = p.env;
      t.cwd = dir;
      t.output_dir = dir / ("slurm-pass-" + std::to_string(p.ordinal));
      // The recorded argv writes to the local run's folder: point it at this task's.
      for (size_t i = 0; i + 1 < t.argv.size(); ++i)
        if (t.argv[i] == "-d") t.argv[i + 1] = t.output_dir.string();
      t.log_path = dir / "logs" / ("pass-" + std::to_string(p.ordinal) + ".log");
      t.timeout = 60s;
      tasks.push_back(t);
    }
  }
  ASSERT_EQ(tasks.size(), 2u);
  submit(tasks);
  const auto t = until([](const auto& s) { return all_ended(s, 2); });
  std::set<std::string> gpus;
  for (const auto& task : tasks) {
    ASSERT_EQ(t.count(task.index), 1u);
    EXPECT_EQ(t.at(task.index).state, "COMPLETED") << read(task.log_path);
    EXPECT_FALSE(t.at(task.index).node.empty());
    bool counters = false;
    for (const auto& e : fs::recursive_directory_iterator(task.output_dir))
      counters = counters ||
                 e.path().filename().string().find("counter_collection.csv") != std::string::npos;
    EXPECT_TRUE(counters) << "no counter_collection.csv under " << task.output_dir;
    // Slurm chose the GPU (gres) and kprof's script kept it: ROCR_VISIBLE_DEVICES is the GPU
    // Slurm gave the job (SLURM_JOB_GPUS), and HIP's duplicate of it is gone.
    const auto seen = split_words(read(dir / ("gpu-" + std::to_string(task.index))));
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0], seen[1]);
    EXPECT_EQ(seen[2], "unset");
    gpus.insert(seen[0]);
  }
  EXPECT_EQ(gpus.size(), 2u) << "both tasks ran on one GPU";
}

TEST_F(SlurmCluster, FailedTaskKeepsItsExitCodeAndScancelCancelsOneTask) {
  REQUIRE_CLUSTER();
  const auto started = dir / "started-2";
  submit({shell_task(1, "exit 3"), shell_task(2, "touch '" + started.string() + "'; sleep 60"),
          shell_task(3, "exit 0")},
         0);
  // Slurm says RUNNING once the task has its node, a moment before the script runs: wait for the
  // command itself (the file it writes first), so the cancel kills a process (ExitCode 0:15)
  // rather than a task not started. Both are states, polled under until()'s one deadline (no
  // fixed wait that a loaded machine could outlast); a task that ended instead stops the wait.
  const auto seen = until([&](const auto& s) {
    if (!s.count(2)) return false;
    return slurm_phase_ended(s.at(2).phase) ||
           (s.at(2).phase == SlurmPhase::running && fs::exists(started));
  });
  ASSERT_TRUE(fs::exists(started)) << "task 2: " << (seen.count(2) ? seen.at(2).state : "none");
  client.cancel(*job, 2);
  // slurmctld marks the task CANCELLED at once; its exit status (ExitCode 0:15) comes when
  // slurmstepd reports the killed script, a moment later under load: wait for both states.
  const auto t = until([](const auto& s) {
    return all_ended(s, 3) && (s.at(2).signal != 0 || s.at(2).exit_code != 0);
  });
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.at(1).phase, SlurmPhase::failed);
  EXPECT_EQ(t.at(1).exit_code, 3);
  EXPECT_EQ(t.at(2).phase, SlurmPhase::cancelled);
  // Either ExitCode 0:15 (the shell itself died of SIGTERM) or 143:0 (the shell reaped its killed
  // child and exited 128 + 15 first): proctrack/linuxproc signals the step's processes one by one,
  // deepest descendants first (SchedMD/slurm src/plugins/proctrack/linuxproc/kill_tree.c
  // _get_list prepends children before its parent), so the shell's own SIGTERM can arrive after
  // it has exited. kprof reads the phase (CANCELLED), not the code: both are a cancel.
  EXPECT_TRUE((t.at(2).signal == SIGTERM && t.at(2).exit_code == 0) ||
              (t.at(2).signal == 0 && t.at(2).exit_code == 128 + SIGTERM))
      << "ExitCode " << t.at(2).exit_code << ":" << t.at(2).signal;
  EXPECT_EQ(t.at(3).phase, SlurmPhase::completed);
}

// A node set DOWN while a task runs: Slurm requeues the task (Restarts=1); after its hold
// (cred_expire: 10 s on the loopback cluster) it runs again and completes. The node comes back by
// itself (ReturnToService=2: slurmd still answers).
TEST_F(SlurmCluster, NodeDownRequeuesTheRunningTaskWhichThenCompletes) {
  REQUIRE_CLUSTER();
  const auto mark = dir / "first-run";
  submit({shell_task(1, "if [ -e '" + mark.string() + "' ]; then exit 0; fi; touch '" +
                            mark.string() + "'; sleep 60")},
         0);
  const auto running =
      until([](const auto& s) { return s.count(1) && s.at(1).phase == SlurmPhase::running; });
  ASSERT_FALSE(running.empty());
  const std::string node = running.at(1).node;
  for (int i = 0; i < 100 && !fs::exists(mark); ++i) std::this_thread::sleep_for(100ms);
  LaunchSpec down;
  down.argv = {"scontrol", "update", "nodename=" + node, "state=down", "reason=kprof-test"};
  down.log_path = dir / "down.out";
  ASSERT_TRUE(run_process(down).ok()) << read(down.log_path);
  const auto requeued = until([](const auto& s) {
    return s.count(1) && s.at(1).restarts >= 1 && s.at(1).phase == SlurmPhase::waiting;
  });
  ASSERT_EQ(requeued.count(1), 1u);
  LaunchSpec resume = down;
  resume.argv = {"scontrol", "update", "nodename=" + node, "state=resume"};
  run_process(resume);  // ReturnToService=2 may have resumed it already: then this one fails
  const auto t = until([](const auto& s) { return all_ended(s, 1); });
  ASSERT_EQ(t.count(1), 1u);
  EXPECT_EQ(t.at(1).phase, SlurmPhase::completed)
      << t.at(1).state << " " << t.at(1).reason << " exit " << t.at(1).exit_code << ":"
      << t.at(1).signal << " restarts " << t.at(1).restarts << "\nlog:\n"
      << read(dir / "logs" / "pass-1.log") << "slurm:\n"
      << read(dir / "slurm" / ("slurm-" + std::to_string(*job) + "_1.out"));
  EXPECT_EQ(t.at(1).restarts, 1);
}

}  // namespace
}  // namespace kprof::exec
