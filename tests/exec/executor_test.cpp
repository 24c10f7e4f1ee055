// `kprof run` end to end, runs that go through: the real kprof and rocprofv3-sim executables from
// build/bin, shell scripts as workloads, real SQLite files (helpers: executor_e2e.hpp). Interrupted
// runs and resumes: executor_resume_test.cpp; failing passes and refusals:
// executor_failure_test.cpp.
#include "tests/exec/executor_e2e.hpp"

namespace kprof::exec {
namespace {

using namespace e2e;  // the fixture's helpers and its using-declarations

TEST(Executor, SmallSimulatedRunRecordsEveryPass) {
  TempDir dir;
  const auto rb = small_runbook(dir);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const auto db = dir / "small.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes"), 3);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'done'"), 3);
  EXPECT_EQ(scalar(db, "SELECT simulated FROM runs"), 1);
  EXPECT_EQ(scalar(db, "SELECT seed FROM runs"), 7);
  EXPECT_EQ(scalar(db, "SELECT status = 'done' FROM runs"), 1);
  // doc-vector-ops has 4 dispatches; the trace pass holds them all.
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id WHERE "
                   "p.ordinal = 0"),
            4);
  // Top 2 by total duration: addition (52151 ns) and subtract (49780 ns) in the model.
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM selected_kernels"), 2);
  // Counter passes only collect the 2 selected kernels: 2 dispatches per pass, each with its
  // counters.
  EXPECT_EQ(scalar(db,
                   "SELECT count(DISTINCT dispatch_id) FROM counter_values c JOIN passes p ON p.id "
                   "= c.pass_id "
                   "WHERE p.ordinal = 1"),
            2);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM counter_values"), 2 * 4);
  EXPECT_NE(k.output.find("SIMULATED"), std::string::npos) << k.output;
  EXPECT_NE(k.output.find("3/3 passes done"), std::string::npos) << k.output;

  Kprof s = kprof(dir, {"status", db.string()}, "status.out");
  EXPECT_EQ(s.result.exit_code, 0);
  EXPECT_NE(s.output.find("3/3 passes done; 2 kernels of interest (top 2 by total_duration)"),
            std::string::npos)
      << s.output;
}

TEST(Executor, ParallelGpusRunEveryPassOnItsOwnDevice) {
  TempDir dir;
  const auto rb =
      small_runbook(dir, "",
                    "D=$(dirname \"$0\")\n"
                    "echo \"H=$HIP_VISIBLE_DEVICES R=$ROCR_VISIBLE_DEVICES\" >> \"$D/devices\"\n");
  // Two GPUs are asked: the model's node must have them (doc-vector-ops' node has one).
  std::string text = read_text(rb);
  text.replace(text.find("model: doc-vector-ops"), 21, "model: vector-ops-8gpu");
  write_file(rb, text);
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate", "--gpus", "0,1", "--quiet"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  EXPECT_EQ(scalar(dir / "small.db", "SELECT count(*) FROM passes WHERE state = 'done'"), 3);
  // The trace pass and the two counter passes: each got its GPU from ROCR_VISIBLE_DEVICES alone
  // (HIP_VISIBLE_DEVICES would index the one device ROCr leaves; core/exec/node/gpu_select.hpp).
  std::vector<std::string> lines;
  for (const auto& l : split(read_text(dir / "devices"), '\n')) {
    if (!l.empty()) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_TRUE(l == "H= R=0" || l == "H= R=1") << l;
}

TEST(Executor, FullQwen3SimulatedRun) {
  TempDir dir;
  // A copy of the project's runbook, so its database and captures land in the temp folder.
  const auto rb = dir / "qwen3-30b-a3b-sim.yaml";
  write_file(rb, read_text(std::string(KPROF_SOURCE_DIR) + "/runbooks/qwen3-30b-a3b-sim.yaml"));
  Kprof k = kprof(dir, {"run", rb.string(), "--simulate"});
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  const auto db = dir / "qwen3-30b-a3b-sim.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state != 'done'"), 0);
  EXPECT_GE(scalar(db, "SELECT count(*) FROM passes WHERE kind = 'counters'"), 1);
  // The model's measured region (configs/sim/qwen3-30b-a3b-mi300x.yaml); the double may add or
  // drop one lazy-init kernel in a rerun (its `reruns` probabilities), hence the tolerance of 1.
  const int64_t trace =
      scalar(db,
             "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id "
             "WHERE p.ordinal = 0");
  EXPECT_NEAR(static_cast<double>(trace), 54194.0, 1.0);
  // Counter passes collect fused_moe_kernel only (include_regex): 6,144 launches.
  EXPECT_EQ(scalar(db,
                   "SELECT count(DISTINCT c.dispatch_id) FROM counter_values c JOIN passes p ON "
                   "p.id = c.pass_id "
                   "WHERE p.ordinal = 1"),
            6144);
  EXPECT_NE(k.output.find("SIMULATED"), std::string::npos);

  // `kprof query` reads the run's runbook from the database: its family rule folds vLLM's two
  // skinny-GEMM kernels (63 steps x 48 layers x 3 variants + 63 big ones) into one family, and its
  // layers/output_tokens hints are checked against what the data shows.
  Kprof q = kprof(dir, {"query", db.string(), "explain"});
  ASSERT_EQ(q.result.exit_code, 0) << q.output;
  EXPECT_NE(q.output.find("wvSplitK: 9135 = 3024 + 3024 + 3024 (decode, 63 steps × 48 layers × 3 "
                          "variants) + 63 (decode, 63 steps × 1 launch × 1 variant)"),
            std::string::npos)
      << q.output;
  EXPECT_NE(q.output.find("layers: 48 found, as the runbook says"), std::string::npos) << q.output;
  EXPECT_NE(q.output.find("steps: 64 steps (1 prefill + 63 decode) found, as the runbook's "
                          "output_tokens says"),
            std::string::npos)
      << q.output;
}

}  // namespace
}  // namespace kprof::exec
