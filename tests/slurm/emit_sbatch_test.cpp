// `kprof plan --emit-sbatch`: the batch script of every pass for users who submit by hand, made by
// the real kprof executable; its tasks are run here by bash with SLURM_ARRAY_TASK_ID set, as
// slurmd runs them, and what they write is loaded with `kprof ingest`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "core/exec/node/process_runner.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

using testing::read;

class EmitSbatch : public ::testing::Test {
 protected:
  fs::path runbook(const std::string& kernels) {
    const auto rb = dir / "small.yaml";
    std::ofstream(rb) << "schema_version: 1\nname: small\nworkload:\n  command: [true]\n"
                         "  timeout: 60s\nprofiler:\n  output_format: csv\ntarget:\n  arch: "
                         "gfx942\npasses:\n  trace:\n    "
                         "enabled: true\n  counters:\n    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, "
                         "GRBM_CP_BUSY, SQ_WAVES]\n"
                      << kernels
                      << "launcher:\n  type: slurm\n  partition: debug\n"
                         "database: small.db\nsim:\n  model: vector-ops-8gpu\n  seed: 7\n";
    return rb;
  }
  RunResult kprof(const std::vector<std::string>& args, const std::string& out) {
    LaunchSpec s;
    s.argv = {std::string(KPROF_BIN_DIR) + "/kprof"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.log_path = dir / out;
    s.log_tail_bytes = 1 << 16;
    return run_process(s);
  }
  testing::ScratchDir scratch{"kprof-emit"};
  fs::path dir = scratch.path();
};

TEST_F(EmitSbatch, OneArrayOfEveryPassWhoseTasksWriteWhatIngestLoads) {
  const auto rb = runbook("    kernels:\n      include_regex: \"kernel\"\n");
  auto r = kprof({"plan", rb.string(), "--simulate", "--emit-sbatch", "--gpus-per-task", "2",
                  "--sbatch-arg=--account=proj"},
                 "job.sh");
  ASSERT_TRUE(r.ok()) << r.log_tail;
  const std::string s = read(dir / "job.sh");
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u) << s;
  EXPECT_NE(s.find("\n#SBATCH --array=0-2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\n#SBATCH --gres=gpu:2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\n#SBATCH --partition=debug\n"), std::string::npos) << s;  // the runbook's
  EXPECT_NE(s.find("\n#SBATCH --account=proj\n"), std::string::npos) << s;
  EXPECT_NE(s.find("/small-captures/run-1/slurm/slurm-%A_%a.out"), std::string::npos) << s;
  EXPECT_EQ(s.find("EVERY kernel"), std::string::npos) << s;  // the filter is in the runbook
  for (const char* task : {"0", "1", "2"}) {
    LaunchSpec t;
    t.argv = {"bash", (dir / "job.sh").string()};
    t.env = {{"SLURM_ARRAY_TASK_ID", task}, {"SLURM_ARRAY_JOB_ID", "9"}};
    t.log_path = dir / (std::string("task-") + task + ".out");
    const auto tr = run_process(t);
    ASSERT_TRUE(tr.ok()) << task << ": " << tr.describe() << read(t.log_path);
  }
  EXPECT_NE(read(dir / "small-captures/run-1/logs/pass-1.log").find("kprof: slurm job 9_1"),
            std::string::npos);
  r = kprof({"ingest", (dir / "hand.db").string(), (dir / "small-captures/run-1").string()},
            "ingest.out");
  EXPECT_TRUE(r.ok()) << r.log_tail;
  EXPECT_NE(r.log_tail.find("pass 0 (trace)"), std::string::npos) << r.log_tail;
  EXPECT_NE(r.log_tail.find("pass 2 (counters)"), std::string::npos) << r.log_tail;
}

// Kernels chosen from the trace: the script cannot know them, so its counter passes count what
// the runbook's own filter lets through (here every kernel) and it says so; settings kprof writes
// itself, or Slurm settings without the script, are refused.
TEST_F(EmitSbatch, SaysWhatOnlyRunCanDecideAndRefusesOptionsKprofOwns) {
  const auto rb = runbook("    kernels:\n      from_trace: {top: 2, by: total_duration}\n");
  auto r = kprof({"plan", rb.string(), "--simulate", "--emit-sbatch"}, "job.sh");
  ASSERT_TRUE(r.ok()) << r.log_tail;
  const std::string s = read(dir / "job.sh");
  EXPECT_NE(s.find("# The counter passes here count every kernel (the runbook sets no "
                   "include_regex),\n# not the top 2 kernels of the trace pass by total_duration"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("EVERY kernel"), std::string::npos) << s;
  EXPECT_EQ(s.find("<decided after the trace pass>"), std::string::npos) << s;
  r = kprof({"plan", rb.string(), "--simulate", "--emit-sbatch", "--sbatch-arg=--array=1-3"},
            "refused.out");
  EXPECT_EQ(r.exit_code, 2) << r.log_tail;
  EXPECT_NE(r.log_tail.find("--sbatch-arg --array=1-3: kprof writes that sbatch option itself"),
            std::string::npos)
      << r.log_tail;
  r = kprof({"plan", rb.string(), "--simulate", "--partition", "x"}, "refused2.out");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.log_tail.find("add --emit-sbatch"), std::string::npos) << r.log_tail;
}

// replay: auto decides on the run's trace, which the script has not: it replays one task per
// pass and says so; replay: rotate needs that trace for its interval, repeats and input file, so
// it is refused with the way out.
TEST_F(EmitSbatch, AutoSaysTheScriptReplaysAndRotateIsRefused) {
  auto r = kprof({"plan", runbook("").string(), "--simulate", "--emit-sbatch"}, "auto.sh");
  ASSERT_TRUE(r.ok()) << r.log_tail;
  const std::string s = read(dir / "auto.sh");
  EXPECT_NE(s.find("\n#SBATCH --array=0-2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("# replay: auto chooses between ONE rotated counter run and one run per "
                   "counter pass"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("(3 application runs with the trace)"), std::string::npos) << s;
  r = kprof({"plan", runbook("    replay: rotate\n").string(), "--simulate", "--emit-sbatch"},
            "rotate.out");
  EXPECT_EQ(r.exit_code, 2) << r.log_tail;
  EXPECT_NE(r.log_tail.find("passes.counters.replay: rotate chooses its pmc_group_interval"),
            std::string::npos)
      << r.log_tail;
  EXPECT_NE(r.log_tail.find("`kprof run --slurm`"), std::string::npos) << r.log_tail;
}

}  // namespace
}  // namespace kprof::exec
