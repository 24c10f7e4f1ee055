// `kprof plan --emit-sbatch`, its tasks run by hand (bash with SLURM_ARRAY_TASK_ID set, as slurmd
// runs them), then `kprof ingest DB FOLDER`: one run whose passes and join equal a `kprof run`
// of the same runbook, in CSV and in rocpd output, with the region cut the release needs at
// ingest (7.0: counters cut against the trace; 6.4: every pass cut at its markers). All on the
// rocprofv3 test double (every figure simulated).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/region_ops_model.hpp"
#include "tests/slurm/slurm_test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;

using testing::read;
using testing::run_kprof;

class EmitSbatchIngest : public ::testing::Test {
 protected:
  fs::path runbook(const std::string& format) {
    const auto rb = dir / "small.yaml";
    std::ofstream(rb) << "schema_version: 1\nname: small\nworkload:\n  command: [\"true\"]\n"
                         "  timeout: 60s\nprofiler:\n  output_format: "
                      << format
                      << "\n  selected_regions: true\ntarget:\n  arch: gfx942\npasses:\n  trace:\n"
                         "    enabled: true\n  counters:\n    counters: [GRBM_COUNT, "
                         "GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES, TCC_HIT_sum, TCC_MISS_sum]\n"
                         "    replay: application\n    kernels:\n      include_regex: "
                         "\"add|mul\"\nlauncher:\n  type: slurm\ndatabase: small.db\nsim:\n  "
                         "model: "
                      << testing::write_region_ops_model(dir) << "\n  seed: 7\n";
    return rb;
  }

  // `kprof query DB VIEW` as CSV.
  std::string query(const fs::path& db, const std::string& view) {
    const auto r = run_kprof(dir, {"query", db.string(), view, "--format", "csv"});
    EXPECT_EQ(r.code, 0) << r.text;
    return r.text;
  }

  // The script of `kprof plan --emit-sbatch` for database `db`, each of its tasks run by bash.
  // Returns the number of tasks.
  int run_script_by_hand(const fs::path& rb, const fs::path& db,
                         const std::map<std::string, std::string>& env) {
    LaunchSpec s;
    s.argv = {std::string(KPROF_BIN_DIR) + "/kprof",
              "plan",
              rb.string(),
              "--simulate",
              "--emit-sbatch",
              "--db",
              db.string()};
    s.env = env;
    s.log_path = dir / "job.sh";
    const auto r = run_process(s);
    EXPECT_TRUE(r.ok()) << read(s.log_path);
    const std::string script = read(dir / "job.sh");
    int tasks = 0;
    for (int task = 0; script.find("\n  " + std::to_string(task) + ")\n") != std::string::npos;
         ++task, ++tasks) {
      LaunchSpec t;
      t.argv = {"bash", (dir / "job.sh").string()};
      t.env = env;
      t.env["SLURM_ARRAY_TASK_ID"] = std::to_string(task);
      t.env["SLURM_ARRAY_JOB_ID"] = "9";
      t.log_path = dir / ("task-" + std::to_string(task) + ".out");
      const auto tr = run_process(t);
      EXPECT_TRUE(tr.ok()) << task << ": " << tr.describe() << read(t.log_path);
    }
    return tasks;
  }

  void same_as_kprof_run(const std::string& format, const std::string& release) {
    const auto rb = runbook(format);
    const std::map<std::string, std::string> env = {{"ROCPROF_SIM_VERSION", release}};
    const auto ran = run_kprof(dir,
                               {"run", rb.string(), "--simulate", "--launcher", "local", "--db",
                                (dir / "run.db").string()},
                               env);
    ASSERT_EQ(ran.code, 0) << ran.text;
    ASSERT_EQ(run_script_by_hand(rb, dir / "hand.db", env), 3);
    const auto in = run_kprof(
        dir, {"ingest", (dir / "hand.db").string(), (dir / "hand-captures/run-1").string()});
    ASSERT_EQ(in.code, 0) << in.text;
    EXPECT_NE(in.text.find("run 1 'small'"), std::string::npos) << in.text;
    EXPECT_EQ(in.text.find("run 2"), std::string::npos) << in.text;
    const std::string passes = query(dir / "run.db", "passes");
    EXPECT_NE(passes.find("2,counters,done"), std::string::npos) << passes;
    EXPECT_EQ(query(dir / "hand.db", "passes"), passes);
    const std::string counters = query(dir / "run.db", "counters");
    EXPECT_NE(counters.find("GRBM_CP_BUSY"), std::string::npos) << counters;
    EXPECT_EQ(query(dir / "hand.db", "counters"), counters);
    EXPECT_EQ(query(dir / "hand.db", "top"), query(dir / "run.db", "top"));
  }

  testing::ScratchDir scratch{"kprof-emit-ingest"};
  fs::path dir = scratch.path();
};

TEST_F(EmitSbatchIngest, RocpdOn70IsOneRunLikeKprofRun) { same_as_kprof_run("rocpd", "7.0"); }

TEST_F(EmitSbatchIngest, CsvOn70IsOneRunLikeKprofRun) { same_as_kprof_run("csv", "7.0"); }

TEST_F(EmitSbatchIngest, CsvOn64CutAtMarkersIsOneRunLikeKprofRun) {
  same_as_kprof_run("csv", "6.4");
}

// The release is read where kprof plans; each task checks its own node's first, writes what it
// found to pass-K/kprof-release.txt, and on another release exits 2 naming both before the
// workload starts.
class EmitSbatchRelease : public EmitSbatchIngest {
 protected:
  // Task `task` of the script planned at release `planned`, run where the tool is `found`.
  RunResult task(const std::string& planned, const std::string& found, int task) {
    const auto rb = runbook("csv");
    LaunchSpec s;
    s.argv = {std::string(KPROF_BIN_DIR) + "/kprof", "plan", rb.string(), "--simulate",
              "--emit-sbatch"};
    s.env = {{"ROCPROF_SIM_VERSION", planned}};
    s.log_path = dir / "job.sh";
    EXPECT_TRUE(run_process(s).ok()) << read(s.log_path);
    LaunchSpec t;
    t.argv = {"bash", (dir / "job.sh").string()};
    t.env = {{"ROCPROF_SIM_VERSION", found}, {"SLURM_ARRAY_TASK_ID", std::to_string(task)}};
    t.log_path = dir / "task.out";
    return run_process(t);
  }
  std::string pass_file(int task, const std::string& name) {
    return read(dir / "small-captures/run-1" / ("pass-" + std::to_string(task)) / name);
  }
};

TEST_F(EmitSbatchRelease, ANewerToolOnTheNodeStopsTheTaskNamingBoth) {
  const auto r = task("7.0", "7.13", 1);
  EXPECT_EQ(r.exit_code, 2) << r.describe() << read(dir / "task.out");
  EXPECT_EQ(pass_file(1, "kprof-release.txt"), "version=1.3.0 rocm=7.13.0\n");
  const std::string log = read(dir / "small-captures/run-1/logs/pass-1.log");
  EXPECT_NE(log.find("says version=1.3.0 rocm=7.13.0, but the commands were built for "
                     "version=1.0.0 rocm=7.0.0 (rocprofiler-sdk 1.0.0"),
            std::string::npos)
      << log;
  EXPECT_NE(read(dir / "task.out")
                .find("plan (or kprof run --slurm) with the rocprofv3 the "
                      "compute nodes have"),
            std::string::npos);
  // Nothing was profiled: the pass folder holds only what the task itself wrote.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "small-captures/run-1/pass-1"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kprof-pass.json", "kprof-release.txt"}));
}

TEST_F(EmitSbatchRelease, APre70PlanMeetingA70ToolStopsAndTheSameReleaseRuns) {
  auto r = task("6.4", "7.0", 0);
  EXPECT_EQ(r.exit_code, 2) << read(dir / "task.out");
  EXPECT_EQ(pass_file(0, "kprof-release.txt"), "version=1.0.0 rocm=7.0.0\n");
  EXPECT_NE(read(dir / "task.out").find("but the commands were built for version=none rocm=none"),
            std::string::npos)
      << read(dir / "task.out");
  r = task("6.4", "6.4", 0);
  EXPECT_TRUE(r.ok()) << r.describe() << read(dir / "task.out");
  EXPECT_EQ(pass_file(0, "kprof-release.txt"), "version=none rocm=none\n");
}

}  // namespace
}  // namespace kprof::exec
