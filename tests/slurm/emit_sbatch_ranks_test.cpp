// `kprof plan --emit-sbatch` of a tensor-parallel runbook (workload.ranks: 4), its task run by hand
// (bash with SLURM_ARRAY_TASK_ID set, as slurmd runs it) with the rocprofv3 stand-in of
// tests/exec/tp_profiler.hpp, then `kprof ingest DB FOLDER`: the task asks Slurm for 4 GPUs, a
// pass that lost worker 2's output is loaded as failed naming rank 2, and the task run again is
// loaded as done.
#include <gtest/gtest.h>

#include <SQLiteCpp/Database.h>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/tp_profiler.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

using testing::read;
using testing::run_kprof;

std::string pass_column(const fs::path& db, const std::string& column) {
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  return d.execAndGet("SELECT " + column + " FROM passes WHERE ordinal = 0").getString();
}

TEST(EmitSbatchRanks, APassMissingARankIsLoadedAsFailedAndItsRerunAsDone) {
  testing::ScratchDir scratch("kprof-emit-ranks");
  const fs::path dir = scratch.path();
  testing::write_script(dir / "rocprofv3", testing::k_tp_profiler);
  testing::write_file(dir / "tp.yaml",
                      "schema_version: 1\nname: tp\nworkload:\n  command: [\"true\"]\n  ranks: 4\n"
                      "profiler:\n  path: ./rocprofv3\n  output_format: csv\n"
                      "passes:\n  trace:\n    stats: false\nlauncher:\n  type: slurm\n"
                      "database: tp.db\n");
  LaunchSpec s;
  s.argv = {std::string(KPROF_BIN_DIR) + "/kprof", "plan", (dir / "tp.yaml").string(),
            "--emit-sbatch"};
  s.log_path = dir / "job.sh";
  ASSERT_TRUE(run_process(s).ok()) << read(s.log_path);
  // Unwritten, launcher.gpus_per_task is one GPU per rank.
  EXPECT_NE(read(dir / "job.sh").find("#SBATCH --gres=gpu:4\n"), std::string::npos)
      << read(dir / "job.sh");
  const auto task = [&] {
    LaunchSpec t;
    t.argv = {"bash", (dir / "job.sh").string()};
    t.env = {{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_JOB_ID", "9"}};
    t.log_path = dir / "task.out";
    const auto r = run_process(t);
    EXPECT_TRUE(r.ok()) << r.describe() << read(t.log_path);
  };
  const auto db = dir / "tp.db";
  task();
  const auto first = run_kprof(dir, {"ingest", db.string(), (dir / "tp-captures/run-1").string()});
  // The load itself succeeds; the pass is loaded as failed and said so.
  EXPECT_EQ(first.code, 0) << first.text;
  EXPECT_NE(first.text.find("  failed: 3 of 4 ranks wrote output"), std::string::npos)
      << first.text;
  EXPECT_EQ(pass_column(db, "state"), "failed");
  // Without the slot's GPUs (Slurm picks them), rank 2 is named by its agent: the 3rd of the GPU
  // agents 2..5 every worker lists, 4.
  EXPECT_EQ(pass_column(db, "reason"),
            "3 of 4 ranks wrote output (workload.ranks: 4), missing rank 2 (agent 4): a worker "
            "process ended before the profiler's finalization wrote its output; rerun the pass: "
            "run its task again and load its folder with kprof ingest");

  testing::write_file(dir / "all", "");
  task();
  const auto again = run_kprof(dir, {"ingest", db.string(), (dir / "tp-captures/run-1").string()});
  EXPECT_EQ(again.code, 0) << again.text;
  EXPECT_EQ(pass_column(db, "state"), "done");
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(d.execAndGet("SELECT count(*) FROM pass_ranks").getInt(), 4);
  // The reload replaced the failed load's rows: 4 workers x 2 dispatches.
  EXPECT_EQ(d.execAndGet("SELECT sum(dispatches) FROM pass_processes").getInt(), 8);
}

}  // namespace
}  // namespace kprof::exec
