// A tensor-parallel run end to end: the real kprof, a rocprofv3 stand-in (a shell script that
// answers --version as ROCm 7.0.2 and writes one kernel trace and one agent_info per worker into
// its -d folder, as rocprofv3 writes one output per process), real SQLite files. Its first pass
// loses worker 2's output, as when a worker is killed before its finalization writes: the pass
// fails naming rank 2 and its GPU, and the command kprof prints reruns it. Helpers:
// executor_e2e.hpp.
#include "tests/exec/executor_e2e.hpp"

namespace kprof::exec {
namespace {

using namespace e2e;  // the fixture's helpers and its using-declarations

// Worker r (pid 700 + r) launches 2 dispatches on agent 2 + r; every worker lists agents 0 and 1
// (CPUs) and 2 to 5 (the 4 GPUs of its slot). Without the file `all` beside the script, worker 2
// writes nothing.
constexpr const char* k_profiler = R"(case "$1" in --version)
  echo '         version: 1.0.0'; echo '    rocm_version: 7.0.2'; exit 0 ;; esac
D=""
while [ $# -gt 0 ]; do case "$1" in -d) D="$2"; shift 2 ;; --) shift; break ;; *) shift ;; esac; done
mkdir -p "$D/host"
for r in 0 1 2 3; do
  if [ "$r" = 2 ] && [ ! -e "$(dirname "$0")/all" ]; then continue; fi
  P=$((700 + r)); A=$((2 + r))
  {
    echo 'Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z'
    echo "Agent $A,1,$P,1,1,gemm,1,1000000,1005000,0,0,64,1,1,1024,1,1"
    echo "Agent $A,1,$P,2,1,gemm,2,2000000,2005000,0,0,64,1,1,1024,1,1"
  } > "$D/host/${P}_kernel_trace.csv"
  printf 'Node_Id,Logical_Node_Id,Agent_Type,Name\n0,0,CPU,cpu\n1,1,CPU,cpu\n2,2,GPU,gfx942\n3,3,GPU,gfx942\n4,4,GPU,gfx942\n5,5,GPU,gfx942\n' > "$D/host/${P}_agent_info.csv"
done
"$@"
)";

TEST(ExecutorRanksE2e, APassMissingARankFailsAndThePrintedCommandRerunsIt) {
  TempDir dir;
  write_script(dir / "rocprofv3", k_profiler);
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
