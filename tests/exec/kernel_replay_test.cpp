// `replay: kernel` end to end on the rocprofv3 test double imitating the development tree's
// rocprofv3 (ROCPROF_SIM_VERSION=develop, the first with `--replay-mode kernel
// --kernel-replay-beta-enabled`; every figure SIMULATED): kprof asks the tool's --help whether it
// offers kernel replay, checks the workload against its limits before anything runs (one process;
// HIP graph launches are not replayed), and collects every counter group in ONE counter run in
// which each counted dispatch is run once per group under its one dispatch id. Unlike rotation,
// every launch then carries every counter.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/base/text.hpp"
#include "tests/exec/replay_test_util.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using namespace replay_testing;

// Sets ROCPROF_SIM_VERSION for the kprof processes a test starts (they pass it on to the double).
class SimVersion {
 public:
  explicit SimVersion(const char* v) { ::setenv("ROCPROF_SIM_VERSION", v, 1); }
  ~SimVersion() { ::unsetenv("ROCPROF_SIM_VERSION"); }
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(KernelReplayRun, EveryLaunchCarriesEveryGroupInTwoRunsAndAgreesWithApplicationReplay) {
  const SimVersion develop("develop");
  TempDir dir;
  const std::string model = write_model(dir);
  write_file(dir / "app.yaml", runbook("app", model, "    replay: application\n", ""));
  write_file(dir / "kr.yaml", runbook("kr", model, "    replay: kernel\n", ""));
  const Ran plan = kprof(dir, {"plan", (dir / "kr.yaml").string(), "--simulate"}, "plan.out");
  ASSERT_EQ(plan.result.exit_code, 0) << plan.output;
  EXPECT_NE(
      plan.output.find("replay: kernel, 2 groups replayed on every counted dispatch in one "
                       "run (rocprofv3 kernel replay, beta): 2 application runs instead of 3"),
      std::string::npos)
      << plan.output;
  EXPECT_NE(plan.output.find("pass 1 (counters, kernel replay: 2 groups"), std::string::npos)
      << plan.output;
  const Ran a = kprof(dir, {"run", (dir / "app.yaml").string(), "--simulate", "--quiet"}, "a.out");
  ASSERT_EQ(a.result.exit_code, 0) << a.output;
  const Ran k = kprof(dir, {"run", (dir / "kr.yaml").string(), "--simulate", "--quiet"}, "k.out");
  ASSERT_EQ(k.result.exit_code, 0) << k.output;
  EXPECT_EQ(passes_of_run(dir, "app.db"), 3u);
  EXPECT_EQ(passes_of_run(dir, "kr.db"), 2u);
  // One counter run: a --pmc per group and both kernel-replay flags.
  const std::string log = read_text(dir / "kr-captures" / "run-1" / "logs" / "pass-1.log");
  EXPECT_EQ(count(log, " --pmc "), 2u) << log;
  EXPECT_NE(log.find(" --replay-mode kernel --kernel-replay-beta-enabled "), std::string::npos)
      << log;

  const auto app = samples(dir, "app.db");
  const auto kr = samples(dir, "kr.db");
  ASSERT_FALSE(app.empty());
  // Every launch is counted with every group: as many samples as application replay's.
  expect_agrees_with_application_replay(app, kr, true);
}

// Refused before anything runs, at the runbook position, with what to do: a rocprofv3 whose
// --help offers no kernel replay (here the double imitating ROCm 7.13), a vLLM workload that
// runs the model in a second process, a tensor-parallel one, and one that launches HIP graphs.
TEST(KernelReplayRun, RefusedWhereTheProfilerOrTheWorkloadCannot) {
  TempDir dir;
  const std::string model = write_model(dir);
  const auto rb = [&](const std::string& name, const std::string& workload) {
    write_file(dir / (name + ".yaml"),
               "schema_version: 1\nname: " + name + "\nworkload:\n  command: [python3, " +
                   std::string(KPROF_SOURCE_DIR) + "/runbooks/workloads/qwen3_generate.py" +
                   workload +
                   "passes:\n  counters:\n    counters: [TCC_HIT_sum, TCC_MISS_sum, "
                   "TCC_EA0_RDREQ_sum, TCC_EA0_WRREQ_sum, TCC_EA0_RDREQ_32B_sum]\n"
                   "    replay: kernel\nsim:\n  model: " +
                   model + "\n");
    return kprof(dir, {"plan", (dir / (name + ".yaml")).string(), "--simulate"}, name + ".out");
  };
  const std::string in_process = "]\n  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}\n";
  const Ran old = rb("old", in_process);
  EXPECT_EQ(old.result.exit_code, 2) << old.output;
  EXPECT_NE(old.output.find("passes.counters.replay: kernel needs rocprofv3's kernel replay"),
            std::string::npos)
      << old.output;
  EXPECT_NE(old.output.find("--help' lists no --replay-mode"), std::string::npos) << old.output;
  EXPECT_NE(old.output.find("write replay: auto"), std::string::npos) << old.output;

  const SimVersion develop("develop");
  const Ran mp = rb("mp", "]\n");
  EXPECT_EQ(mp.result.exit_code, 2) << mp.output;
  EXPECT_NE(mp.output.find("replays one process only, and vLLM runs the model in its EngineCore "
                           "process unless VLLM_ENABLE_V1_MULTIPROCESSING=0 (here unset"),
            std::string::npos)
      << mp.output;
  const Ran graphs = rb("graphs", ", --graph-mode, vllm-default" + in_process);
  EXPECT_EQ(graphs.result.exit_code, 2) << graphs.output;
  EXPECT_NE(graphs.output.find("runs HIP graph launches once, unreplayed"), std::string::npos)
      << graphs.output;
  EXPECT_NE(graphs.output.find("use --graph-mode none"), std::string::npos) << graphs.output;
  // Tensor parallelism: one worker process per GPU, and kernel replay follows one process.
  const Ran tp = rb("tp", "]\n  ranks: 2" + in_process.substr(1));
  EXPECT_EQ(tp.result.exit_code, 2) << tp.output;
  EXPECT_NE(tp.output.find(":5:10: passes.counters.replay: kernel replays one process only, but "
                           "workload.ranks: 2 runs 2 worker processes"),
            std::string::npos)
      << tp.output;
  EXPECT_EQ(rb("fine", ", --gpu-memory-utilization, \"0.05\"" + in_process).result.exit_code, 0);
}

// Allowed, but the plan says what each replay's snapshot costs where vLLM holds the device: its
// default 0.9 of an MI300X's 192 GB is 172.8 GB; a small --gpu-memory-utilization says nothing.
TEST(KernelReplayRun, WarnsWithTheFigureWhereVllmHoldsTheDevice) {
  TempDir dir;
  const std::string model = write_model(dir);
  const SimVersion develop("develop");
  const auto plan = [&](const std::string& name, const std::string& args) {
    write_file(dir / (name + ".yaml"),
               "schema_version: 1\nname: " + name + "\nworkload:\n  command: [python3, " +
                   std::string(KPROF_SOURCE_DIR) + "/runbooks/workloads/qwen3_generate.py" + args +
                   "]\n  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}\npasses:\n  counters:\n"
                   "    counters: [TCC_HIT_sum, TCC_MISS_sum, TCC_EA0_RDREQ_sum, "
                   "TCC_EA0_WRREQ_sum, TCC_EA0_RDREQ_32B_sum]\n    replay: kernel\nsim:\n  "
                   "model: " +
                   model + "\n");
    return kprof(dir, {"plan", (dir / (name + ".yaml")).string(), "--simulate"}, name + ".out");
  };
  const Ran held = plan("held", "");
  EXPECT_EQ(held.result.exit_code, 0) << held.output;
  EXPECT_NE(held.output.find("WARNING: kernel replay snapshots the device memory vLLM holds "
                             "(vLLM's default gpu_memory_utilization 0.9 of an MI300X's 192 GB = "
                             "172.8 GB)"),
            std::string::npos)
      << held.output;
  EXPECT_NE(held.output.find("Lower --gpu-memory-utilization"), std::string::npos) << held.output;
  const Ran small = plan("small", ", --gpu-memory-utilization, \"0.05\"");
  EXPECT_EQ(small.result.exit_code, 0) << small.output;
  EXPECT_EQ(small.output.find("WARNING"), std::string::npos) << small.output;
}

}  // namespace
}  // namespace kprof::exec
