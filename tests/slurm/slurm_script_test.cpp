// The batch script: what its #SBATCH lines ask for, and that each task runs exactly its pass's
// command, with its env delta, in its folder, never touching the GPU variables. The script is run
// here by bash with SLURM_ARRAY_TASK_ID set, as slurmd runs it (the real Slurm runs it in
// tests/slurm/slurm_cluster_test.cpp).
#include "core/exec/launch/slurm_script.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "core/base/error.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

using testing::read;

struct Dir {
  testing::ScratchDir scratch{"kprof-sbatch"};
  fs::path path = scratch.path();
};

SlurmTask task(int64_t index) {
  SlurmTask t;
  t.index = index;
  t.argv = {"true"};
  return t;
}

TEST(SbatchScript, ArraySpecIsCompact) {
  EXPECT_EQ(array_spec({3, 1, 2, 5, 7, 8, 8}), "1-3,5,7-8");
  EXPECT_EQ(array_spec({4}), "4");
}

TEST(SbatchScript, DirectivesFromTheOptions) {
  SbatchOptions o;
  o.job_name = "kprof-qwen3";
  o.partition = "mi300x";
  o.time_limit = "30:00";
  o.gpus_per_task = 1;
  o.extra_args = {"--account=proj", "--exclusive"};
  o.slurm_log_dir = "/shared/run-1/slurm";
  const auto s = sbatch_script({task(1), task(2), task(4)}, o);
  for (const char* line :
       {"#SBATCH --job-name=kprof-qwen3\n", "#SBATCH --array=1-2,4\n", "#SBATCH --gres=gpu:1\n",
        "#SBATCH --partition=mi300x\n", "#SBATCH --time=30:00\n", "#SBATCH --account=proj\n",
        "#SBATCH --exclusive\n", "#SBATCH --output=/shared/run-1/slurm/slurm-%A_%a.out\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << " in\n" << s;
  // sbatch reads #SBATCH lines only before the first command.
  EXPECT_LT(s.rfind("#SBATCH"), s.find("set -u"));
  // The GPU variables are Slurm's: never assigned (only the HIP-level duplicates are unset).
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    const auto word = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    for (const char* var : {"ROCR_VISIBLE_DEVICES=", "CUDA_VISIBLE_DEVICES=",
                            "HIP_VISIBLE_DEVICES=", "GPU_DEVICE_ORDINAL=", "export "})
      EXPECT_NE(word.rfind(var, 0), 0u) << line;
  }
  EXPECT_EQ(s.find("'ROCR_VISIBLE_DEVICES="), std::string::npos);
}

TEST(SbatchScript, RefusesWhatSbatchWouldMisread) {
  SbatchOptions o;
  o.extra_args = {"account=proj"};
  EXPECT_THROW(sbatch_script({task(1)}, o), Error);
  o.extra_args = {};
  o.partition = "a b";
  EXPECT_THROW(sbatch_script({task(1)}, o), Error);
  EXPECT_THROW(sbatch_script({}, SbatchOptions{}), Error);
}

TEST(SbatchScript, EachTaskRunsItsPassWithItsEnvInAnEmptiedFolderAndKeepsTheGpuVariables) {
  Dir d;
  SlurmTask a;
  a.index = 1;
  a.argv = {"/bin/sh", "-c",
            "pwd; echo "
            "\"$KPROF_X|$ROCR_VISIBLE_DEVICES|${CUDA_VISIBLE_DEVICES-unset}|${GPU_DEVICE_ORDINAL-"
            "unset}\"; ls \"$1\"",
            "-", (d.path / "out-1").string()};
  a.env = {{"KPROF_X", "it's \"quoted\" $HOME"}};
  a.cwd = d.path;
  a.output_dir = d.path / "out-1";
  a.log_path = d.path / "logs" / "pass-1.log";
  SlurmTask b = a;
  b.index = 2;
  b.argv = {"/bin/sh", "-c", "exit 7"};
  b.timeout = std::chrono::milliseconds(0);
  SlurmTask c = a;
  c.index = 3;
  c.argv = {"sleep", "30"};
  c.timeout = std::chrono::seconds(1);
  c.kill_grace = std::chrono::seconds(1);
  fs::create_directories(a.output_dir);
  std::ofstream(a.output_dir / "stale.csv") << "old\n";
  const auto script = d.path / "job.sh";
  std::ofstream(script) << sbatch_script({a, b, c}, SbatchOptions{});
  auto run_task = [&](const std::string& id) {
    LaunchSpec s;
    s.argv = {"bash", script.string()};
    s.env = {{"SLURM_ARRAY_TASK_ID", id},
             {"SLURM_ARRAY_JOB_ID", "5"},
             {"ROCR_VISIBLE_DEVICES", "3"},
             {"CUDA_VISIBLE_DEVICES", "3"},
             {"GPU_DEVICE_ORDINAL", "3"}};
    s.log_path = d.path / ("task-" + id + ".out");
    return run_process(s);
  };
  auto r = run_task("1");
  EXPECT_TRUE(r.ok()) << r.describe();
  const auto log = read(a.log_path);
  EXPECT_NE(log.find("kprof: slurm job 5_1 on "), std::string::npos) << log;
  EXPECT_NE(log.find(d.path.string() + "\n"), std::string::npos) << log;
  // Slurm's GPU kept; its HIP-level duplicates (which would hide that GPU from HIP) gone.
  EXPECT_NE(log.find("it's \"quoted\" $HOME|3|unset|unset\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("stale.csv"), std::string::npos) << log;
  r = run_task("2");
  EXPECT_EQ(r.exit_code, 7);
  r = run_task("3");
  EXPECT_EQ(r.exit_code, 124) << r.describe();  // coreutils timeout(1): the command timed out
  r = run_task("9");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(read(d.path / "task-9.out").find("this job has no pass 9"), std::string::npos);
}

}  // namespace
}  // namespace kprof::exec
