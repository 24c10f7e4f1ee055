// A tensor-parallel run end to end: the real kprof, a rocprofv3 stand-in (a shell script that
// answers --version as ROCm 7.0.2 and writes one kernel trace and one agent_info per worker into
// its -d folder, as rocprofv3 writes one output per process), real SQLite files. Its first pass
// loses worker 2's output, as when a worker is killed before its finalization writes: the pass
// fails naming rank 2 and its GPU, and the command kprof prints reruns it. Helpers:
// executor_e2e.hpp.
#include "tests/exec/executor_e2e.hpp"
#include "tests/exec/tp_profiler.hpp"

namespace kprof::exec {
namespace {

using namespace e2e;  // the fixture's helpers and its using-declarations

TEST(ExecutorRanksE2e, APassMissingARankFailsAndThePrintedCommandRerunsIt) {
  TempDir dir;
  write_script(dir / "rocprofv3", testing::k_tp_profiler);
  write_file(dir / "tp.yaml",
             "schema_version: 1\nname: tp\nworkload:\n  command: [\"true\"]\n  ranks: 4\n"
             "profiler:\n  path: ./rocprofv3\n  output_format: csv\n"
             "passes:\n  trace:\n    stats: false\nretry:\n  attempts: 1\ndatabase: tp.db\n");
  const Kprof run = kprof(
      dir, {"run", (dir / "tp.yaml").string(), "--no-doctor", "--quiet", "--gpus", "4,5,6,7"});
  EXPECT_EQ(run.result.exit_code, 1) << run.output;
  const auto db = dir / "tp.db";
  EXPECT_EQ(pass_field(db, 0, "state"), "failed");
  // Rank 2 is the 3rd GPU agent of 2..5, agent 4, and the slot's 3rd GPU, 6.
  EXPECT_EQ(pass_field(db, 0, "reason"),
            "3 of 4 ranks wrote output (workload.ranks: 4), missing rank 2 (GPU 6, agent 4): a "
            "worker process ended before the profiler's finalization wrote its output; rerun the "
            "pass: kprof resume --retry-failed " +
                shell_quote(db.string()));
  // The attempt's rerunnable line in the pass log: the slot's GPUs, in order.
  EXPECT_NE(read_text(pass_field(db, 0, "log_path")).find("ROCR_VISIBLE_DEVICES=4,5,6,7 "),
            std::string::npos);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM dispatch_rows"), 0);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM pass_processes"), 0);
  // kprof's last line is the command that goes on.
  const std::string last = "kprof resume " + db.string() + " --retry-failed --gpus 4,5,6,7\n";
  EXPECT_NE(run.output.find(last), std::string::npos) << run.output;

  write_file(dir / "all", "");
  const Kprof resume =
      kprof(dir, {"resume", db.string(), "--retry-failed", "--quiet", "--gpus", "4,5,6,7"});
  EXPECT_EQ(resume.result.exit_code, 0) << resume.output;
  EXPECT_EQ(pass_field(db, 0, "state"), "done");
  // 4 ranks: pids 700..703 on agents 2..5, 2 dispatches each.
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM pass_ranks"), 4);
  EXPECT_EQ(scalar(db, "SELECT sum(dispatches) FROM pass_ranks WHERE pid - agent = 698"), 8);
}

}  // namespace
}  // namespace kprof::exec
