// A tensor-parallel run (workload.ranks: 4) through the executor's fakes
// (executor_unit_fixture.hpp): each pass's attempt writes one kernel trace and one agent_info per
// worker process, as rocprofv3 does (one output per process). A pass missing a rank's output is
// failed with that rank named and nothing of it stored; `kprof resume --retry-failed` runs it
// again. The rows are made up here; every expectation is derived from them in the comments.
#include <SQLiteCpp/Database.h>

#include "core/base/text.hpp"
#include "core/exec/launch/launcher_choice.hpp"
#include "core/store/pass_ranks.hpp"
#include "tests/exec/executor_unit_fixture.hpp"

namespace kprof::exec {
namespace {

using namespace unit;  // the fixture's helpers and its using-declarations

// Every worker sees the slot's 4 GPUs (ROCR_VISIBLE_DEVICES lists them) and 2 CPUs: agents 0 and
// 1 are CPUs, 2 to 5 GPUs, by Logical_Node_Id (what "Agent N" means by default).
constexpr const char* k_agent_info =
    "Node_Id,Logical_Node_Id,Agent_Type,Name\n0,0,CPU,cpu\n1,1,CPU,cpu\n2,2,GPU,gfx942\n"
    "3,3,GPU,gfx942\n4,4,GPU,gfx942\n5,5,GPU,gfx942\n";

// Worker r is pid 500 + r and launches 2 kernels on agent 2 + r. `ranks`: the workers whose
// output was written. Without `agent_info` the workers' agent lists are not written.
void write_workers(const LaunchSpec& s, const std::vector<int>& ranks, bool agent_info = true) {
  for (const int r : ranks) {
    const std::string pid = std::to_string(500 + r);
    std::string csv =
        "Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
        "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,Workgroup_Size_X,"
        "Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n";
    for (int i = 1; i <= 2; ++i)
      csv += "Agent " + std::to_string(2 + r) + ",1," + pid + "," + std::to_string(i) + ",1,gemm," +
             std::to_string(i) + "," + std::to_string(1000000 * i) + "," +
             std::to_string(1000000 * i + 5000) + ",0,0,64,1,1,1024,1,1\n";
    write_file(s.output_dir / "node" / (pid + "_kernel_trace.csv"), csv);
    if (agent_info) write_file(s.output_dir / "node" / (pid + "_agent_info.csv"), k_agent_info);
  }
}

struct TpFixture : Fixture {
  TpFixture() {
    testing::RunbookYaml y;
    y.command = "[\"./app\"]";
    y.ranks = 4;
    y.retry = "  attempts: 2\n  backoff: 0s\n";
    y.database = "small.db";
    write_file(dir / "small.yaml", testing::runbook_yaml(y));
    rb = runbook::load_runbook(dir / "small.yaml");
  }
};

// --gpus 0..7 with ranks 4 is two slots; the trace pass runs on the first, {0,1,2,3}. Both of its
// attempts lose worker 2 (pid 502, agent 4): the pass has ranks on agents 2, 3 and 5, 3 of 4, and
// the agent lists name agent 4 as the 3rd GPU agent (2, 3, 4, 5), rank 2, the slot's GPU 2.
TEST(ExecutorRanks, APassMissingARankFailsNamingItAndResumeRerunsIt) {
  TpFixture f;
  f.options.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 3}); };
    return a;
  });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(launcher.started.size(), 2u);  // retry.attempts: 2, the failure is worth a retry
  EXPECT_EQ(launcher.started[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(launcher.started[0].env.at("ROCR_VISIBLE_DEVICES"), "0,1,2,3");
  auto passes = f.passes();
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].state, PassState::failed);
  EXPECT_EQ(passes[0].reason,
            "3 of 4 ranks wrote output (workload.ranks: 4), missing rank 2 (GPU 2, agent 4): a "
            "worker process ended before the profiler's finalization wrote its output; rerun the "
            "pass: kprof resume --retry-failed " +
                shell_quote(f.db().string()));
  {
    store::CaptureDb db(f.db(), store::OpenMode::read_only);
    EXPECT_EQ(db.row_counts(passes[0].id).dispatches, 0);  // nothing of the failed pass is kept
    EXPECT_TRUE(store::pass_processes(db, passes[0].id).empty());
  }

  // The rerun writes all 4 workers: 4 ranks, pids 500..503 on agents 2..5, 2 dispatches each.
  FakeLauncher again([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 2, 3}); };
    return a;
  });
  f.options.retry_failed = true;
  const ExecResult r2 = resume_run(f.db(), f.options, nullptr, f.seams(again));
  EXPECT_EQ(r2.exit_code, 0);
  ASSERT_EQ(again.started.size(), 1u);
  passes = f.passes();
  EXPECT_EQ(passes[0].state, PassState::done);
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  EXPECT_EQ(store::pass_ranks(db, passes[0].id),
            (std::vector<store::PassRank>{
                {0, 500, 2, 2}, {1, 501, 3, 2}, {2, 502, 4, 2}, {3, 503, 5, 2}}));
}

// A resume without --retry-failed leaves the failed pass failed: the reason's command is the one
// that reruns it.
TEST(ExecutorRanks, ResumeWithoutRetryFailedLeavesTheFailedPass) {
  TpFixture f;
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 3}); };
    return a;
  });
  EXPECT_EQ(run_runbook(f.rb, f.options, f.seams(launcher)).exit_code, 1);
  FakeLauncher again([](const LaunchSpec&, int) { return FakeAttempt{}; });
  EXPECT_EQ(resume_run(f.db(), f.options, nullptr, f.seams(again)).exit_code, 1);
  EXPECT_TRUE(again.started.empty());
  EXPECT_EQ(f.passes()[0].state, PassState::failed);
}

// Without --gpus and without the workers' agent lists the missing rank cannot be named: the
// reason says which agents wrote (2, 3 and 5, from workers 0, 1, 3) and that 1 is missing.
TEST(ExecutorRanks, WithoutAgentListsTheReasonNamesTheAgentsThatWrote) {
  TpFixture f;
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 3}, false); };
    return a;
  });
  EXPECT_EQ(run_runbook(f.rb, f.options, f.seams(launcher)).exit_code, 1);
  const auto passes = f.passes();
  EXPECT_EQ(passes[0].reason.rfind("3 of 4 ranks wrote output (workload.ranks: 4), agents 2, 3, "
                                   "5 wrote output, 1 missing: ",
                                   0),
            0u)
      << passes[0].reason;
}

// More ranks than the runbook says is said, not failed: 4 workers under workload.ranks: 2 make a
// done pass whose reason (and log) count them.
TEST(ExecutorRanks, MoreRanksThanExpectedIsANote) {
  TpFixture f;
  testing::RunbookYaml y;
  y.command = "[\"./app\"]";
  y.ranks = 2;
  y.database = "small.db";
  write_file(f.dir / "small.yaml", testing::runbook_yaml(y));
  f.rb = runbook::load_runbook(f.dir / "small.yaml");
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 2, 3}); };
    return a;
  });
  EXPECT_EQ(run_runbook(f.rb, f.options, f.seams(launcher)).exit_code, 0);
  const auto passes = f.passes();
  EXPECT_EQ(passes[0].state, PassState::done);
  EXPECT_EQ(passes[0].reason,
            "4 ranks (agents 2, 3, 4, 5) where workload.ranks says 2: the views count every rank; "
            "set workload.ranks to what the workload runs");
  EXPECT_NE(testing::read_text(passes[0].log_path).find("kprof: 4 ranks (agents 2, 3, 4, 5)"),
            std::string::npos);
}

// One rank (the default, unwritten) never fails on the count: the same 3 workers make a done pass.
TEST(ExecutorRanks, UnwrittenRanksNeverFail) {
  Fixture base;  // its runbook has no workload.ranks
  testing::RunbookYaml y;
  y.command = "[\"./app\"]";
  y.database = "small.db";
  write_file(base.dir / "small.yaml", testing::runbook_yaml(y));
  base.rb = runbook::load_runbook(base.dir / "small.yaml");
  FakeLauncher launcher([](const LaunchSpec&, int) {
    FakeAttempt a;
    a.write = [](const LaunchSpec& s) { write_workers(s, {0, 1, 3}); };
    return a;
  });
  EXPECT_EQ(run_runbook(base.rb, base.options, base.seams(launcher)).exit_code, 0);
  EXPECT_EQ(base.passes()[0].state, PassState::done);
  EXPECT_EQ(base.passes()[0].reason, "");
}

// Under Slurm a task is one pass: unwritten, it asks for one GPU per rank (workload.ranks: 4 →
// --gres=gpu:4); fewer GPUs than ranks, written or given, is refused; 0 (ask for none) is kept.
TEST(ExecutorRanks, SlurmTasksAskForOneGpuPerRank) {
  const auto rb = [](const std::string& launcher) {
    return runbook::parse_runbook(
        "schema_version: 1\nname: g\nworkload:\n  command: [\"true\"]\n"
        "  ranks: 4\nlauncher:\n  type: slurm\n" +
            launcher,
        "/tmp/g.yaml");
  };
  EXPECT_EQ(sbatch_options(rb(""), {}).gpus_per_task, 4);
  EXPECT_EQ(sbatch_options(rb("  gpus_per_task: 8\n"), {}).gpus_per_task, 8);
  EXPECT_EQ(sbatch_options(rb("  gpus_per_task: 0\n"), {}).gpus_per_task, 0);
  LauncherFlags two;
  two.gpus_per_task = 2;
  try {
    sbatch_options(rb(""), two);
    ADD_FAILURE() << "2 GPUs for 4 ranks were asked";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics().at(0).line(),
              "a Slurm task would get 2 GPUs, but workload.ranks: 4 runs one worker per GPU (drop "
              "--gpus-per-task and launcher.gpus_per_task (the default asks for 4), or give at "
              "least 4)");
  }
}

}  // namespace
}  // namespace kprof::exec
