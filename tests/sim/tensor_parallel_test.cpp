// Tensor parallelism on one node under the double: the real workload script
// (runbooks/workloads/qwen3_generate.py --tensor-parallel 4) against the vLLM stand-in, which runs
// one worker process per rank, and the TP=4 model (configs/sim/qwen3-30b-a3b-mi300x-tp4.yaml).
//   - every rank is a profiled process of its own: its own output files (rocprofv3's default
//     %hostname%/%pid% naming), its own GPU agent, its own region state;
//   - the region opened in the entry process only (the old way) leaves every rank empty;
//   - the skew injected at the collectives (the model's ranks.arrival_delay_ns) is recovered from
//     the raw rows: for the k-th collective of each rank, last start - first start;
//   - a rank killed mid-pass leaves no output; the others complete.
// Truths come from the model file and the hand count in its header, never from kprof.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/sim/format.hpp"
#include "core/sim/model.hpp"
#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

const fs::path k_source(KPROF_SOURCE_DIR);
const fs::path k_script = k_source / "runbooks" / "workloads" / "qwen3_generate.py";
const char* const k_model = "qwen3-30b-a3b-mi300x-tp4";
// The TP=4 model's measured region per rank (its header: 1 + 929 + 63 x 944).
constexpr size_t k_region_rows = 60402;

RunResult tp_script(const fs::path& dir, const std::vector<std::string>& script_args,
                    std::map<std::string, std::string> env) {
  std::vector<std::string> args{"--kernel-trace",
                                "--selected-regions",
                                "-f",
                                "csv",
                                "-d",
                                "out",
                                "--",
                                "python3",
                                k_script.string(),
                                "--tokens",
                                "64",
                                "--tensor-parallel",
                                "4"};
  args.insert(args.end(), script_args.begin(), script_args.end());
  env["ROCPROF_SIM_MODEL"] = k_model;
  env["ROCPROF_SIM_CLOCK_BASE_NS"] = "1000000000";
  return run_sim(dir, args, env);
}

// The kernel-trace files of a run, one per profiled process (out/<hostname>/<pid>_...).
std::vector<fs::path> trace_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& f : files_under(dir / "out"))
    if (f.size() > 17 && f.substr(f.size() - 17) == "_kernel_trace.csv")
      out.push_back(dir / "out" / f);
  return out;
}

// One rank's collectives (start, end), by start.
std::vector<std::pair<uint64_t, uint64_t>> collectives(const Csv& c) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t i = 0; i < c.rows.size(); ++i)
    if (c.at(i, "Kernel_Name").find("cross_device_reduce_") != std::string::npos)
      out.emplace_back(std::stoull(c.at(i, "Start_Timestamp")),
                       std::stoull(c.at(i, "End_Timestamp")));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SimTensorParallel, EveryRankIsAProcessWithItsOwnOutputOnItsOwnGpu) {
  TempDir t;
  const auto r = tp_script(t.path, {}, {});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("generated 64 tokens for a 128-token prompt"), std::string::npos) << r.out;
  const auto files = trace_files(t.path);
  ASSERT_EQ(files.size(), 4u) << r.err;
  std::set<std::string> agents, pids;
  for (const auto& f : files) {
    EXPECT_EQ(f.parent_path().filename().string(), hostname()) << f;
    pids.insert(f.filename().string().substr(0, f.filename().string().find('_')));
    const Csv c = read_csv(f);
    EXPECT_EQ(c.rows.size(), k_region_rows) << f;
    std::set<std::string> own;
    for (size_t i = 0; i < c.rows.size(); ++i) own.insert(c.at(i, "Agent_Id"));
    ASSERT_EQ(own.size(), 1u) << f;  // one process, one GPU
    agents.insert(*own.begin());
  }
  EXPECT_EQ(pids.size(), 4u);
  // Ranks 0-3 on HIP devices 0-3: the first four GPUs, agents 2-5 after the two CPUs.
  EXPECT_EQ(agents, (std::set<std::string>{"Agent 2", "Agent 3", "Agent 4", "Agent 5"}));
}

TEST(SimTensorParallel, TheInProcessEngineStillRunsTheModelInFourWorkers) {
  // VLLM_ENABLE_V1_MULTIPROCESSING=0 keeps only the engine core in the script's process.
  TempDir t;
  const auto r = tp_script(t.path, {}, {{"VLLM_ENABLE_V1_MULTIPROCESSING", "0"}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const auto files = trace_files(t.path);
  ASSERT_EQ(files.size(), 4u) << r.err;
  for (const auto& f : files) EXPECT_EQ(read_csv(f).rows.size(), k_region_rows) << f;
}

TEST(SimTensorParallel, TheRegionOpenedInTheEntryProcessOnlyLeavesEveryRankEmpty) {
  TempDir t;
  const auto r =
      tp_script(t.path, {"--region-in", "entry"}, {{"VLLM_ENABLE_V1_MULTIPROCESSING", "0"}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;  // the application succeeds; the profile is empty
  EXPECT_TRUE(trace_files(t.path).empty());
  // Without --selected-regions every rank's dispatches are there, warm-up included.
  TempDir all;
  const auto a =
      run_sim(all.path,
              {"--kernel-trace", "-f", "csv", "-d", "out", "--", "python3", k_script.string(),
               "--tokens", "64", "--tensor-parallel", "4", "--region-in", "entry"},
              {{"ROCPROF_SIM_MODEL", k_model}, {"VLLM_ENABLE_V1_MULTIPROCESSING", "0"}});
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  const auto files = trace_files(all.path);
  ASSERT_EQ(files.size(), 4u);
  for (const auto& f : files) EXPECT_GT(read_csv(f).rows.size(), k_region_rows) << f;
}

TEST(SimTensorParallel, TheInjectedSkewIsRecoveredFromTheRawRows) {
  TempDir t;
  const auto r = tp_script(t.path, {}, {});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const auto files = trace_files(t.path);
  ASSERT_EQ(files.size(), 4u);
  // Rank order = agent order (rank r on HIP device r).
  std::vector<std::pair<std::string, std::vector<std::pair<uint64_t, uint64_t>>>> ranks;
  for (const auto& f : files) {
    const Csv c = read_csv(f);
    ranks.emplace_back(c.at(0, "Agent_Id"), collectives(c));
  }
  std::sort(ranks.begin(), ranks.end());
  const Model m = load_model_named(k_model);
  ASSERT_EQ(m.ranks.arrival_delay_ns.size(), 4u);
  const auto [lo, hi] =
      std::minmax_element(m.ranks.arrival_delay_ns.begin(), m.ranks.arrival_delay_ns.end());
  const double injected = *hi - *lo;
  ASSERT_GT(injected, 0);
  // 64 steps x (48 layers x 2 + 1 embedding all-reduce), the model header's count.
  const size_t n = ranks[0].second.size();
  ASSERT_EQ(n, 64u * 97u);
  std::vector<double> offset(4, 0.0);  // each rank's mean arrival after the first rank to arrive
  for (size_t k = 0; k < n; ++k) {
    uint64_t first = UINT64_MAX, last = 0;
    std::set<uint64_t> ends;
    for (const auto& [agent, coll] : ranks) {
      ASSERT_EQ(coll.size(), n) << agent;
      first = std::min(first, coll[k].first);
      last = std::max(last, coll[k].first);
      ends.insert(coll[k].second);
    }
    const double skew = static_cast<double>(last - first);
    ASSERT_NEAR(skew, injected, 0.01 * injected) << "collective " << k;
    // Everyone leaves together once the last rank has arrived (rounding: at most 1 ns apart).
    ASSERT_LE(*ends.rbegin() - *ends.begin(), 1u) << "collective " << k;
    for (size_t rk = 0; rk < 4; ++rk)
      offset[rk] += static_cast<double>(ranks[rk].second[k].first - first) / static_cast<double>(n);
  }
  for (size_t rk = 0; rk < 4; ++rk)
    EXPECT_NEAR(offset[rk], m.ranks.arrival_delay_ns[rk] - *lo, 0.01 * injected) << "rank " << rk;
}

TEST(SimTensorParallel, ARankKilledMidPassLeavesNoOutputAndTheOthersComplete) {
  TempDir t;
  const auto r = tp_script(t.path, {}, {{"ROCPROF_SIM_RANK_DIES", "2"}});
  // vLLM's executor notices the dead worker and the script fails (exit 1).
  EXPECT_EQ(r.exit_code(), 1) << r.err;
  EXPECT_NE(r.err.find("Worker proc VllmWorker-2 died unexpectedly"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rocprofv3-sim: rank 2 (pid "), std::string::npos) << r.err;
  const auto files = trace_files(t.path);
  ASSERT_EQ(files.size(), 3u) << r.err;
  std::set<std::string> agents;
  for (const auto& f : files) {
    const Csv c = read_csv(f);
    EXPECT_EQ(c.rows.size(), k_region_rows) << f;
    agents.insert(c.at(0, "Agent_Id"));
  }
  EXPECT_EQ(agents, (std::set<std::string>{"Agent 2", "Agent 3", "Agent 5"}));
}

TEST(SimTensorParallel, FewerVisibleGpusThanRanksFailsLikeVllm) {
  TempDir t;
  const auto r = tp_script(t.path, {}, {{"ROCR_VISIBLE_DEVICES", "0,1,2"}});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(r.err.find("HIP error: invalid device ordinal"), std::string::npos) << r.err;
  EXPECT_TRUE(trace_files(t.path).empty());
}

TEST(SimTensorParallel, WithoutTheStandinsProcessesNMakesNRanks) {
  TempDir t;
  const auto r = run_sim(
      t.path, {"--kernel-trace", "--selected-regions", "-f", "csv", "-d", "out", "--", "true"},
      {{"ROCPROF_SIM_MODEL", k_model}, {"ROCPROF_SIM_PROCESSES", "4"}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const auto files = trace_files(t.path);
  ASSERT_EQ(files.size(), 4u);
  for (const auto& f : files) EXPECT_EQ(read_csv(f).rows.size(), k_region_rows) << f;
  TempDir dies;
  const auto d = run_sim(dies.path, {"--kernel-trace", "-f", "csv", "-d", "out", "--", "true"},
                         {{"ROCPROF_SIM_MODEL", k_model},
                          {"ROCPROF_SIM_PROCESSES", "4"},
                          {"ROCPROF_SIM_RANK_DIES", "0"}});
  ASSERT_EQ(d.exit_code(), 0) << d.err;
  EXPECT_EQ(trace_files(dies.path).size(), 3u);
  TempDir few;
  const auto f = run_sim(few.path, {"--kernel-trace", "-f", "csv", "-d", "out", "--", "true"},
                         {{"ROCPROF_SIM_MODEL", k_model},
                          {"ROCPROF_SIM_PROCESSES", "4"},
                          {"ROCR_VISIBLE_DEVICES", "0,1"}});
  EXPECT_EQ(f.exit_code(), 1);
  EXPECT_NE(f.err.find("ROCPROF_SIM_PROCESSES=4 ranks, but HIP shows 2 GPU(s)"), std::string::npos)
      << f.err;
}

}  // namespace
}  // namespace kprof::sim::testing
