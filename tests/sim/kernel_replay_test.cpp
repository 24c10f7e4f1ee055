// The double's kernel replay (`--replay-mode kernel --kernel-replay-beta-enabled`, imitated as
// ROCPROF_SIM_VERSION=develop) as ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/
// using-kernel-replay-rocprofv3.rst describes it: each --pmc is a group, every counted dispatch
// runs once per group in the one run, all passes under one dispatch id; CSV rows carry no pass
// column; rocpd keeps the first pass's dispatch row and every pass's counters on it (PR #11422);
// both flags and --pmc are required; older versions do not know the options. Real processes.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>
#include <set>

#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

const std::vector<std::string> k_replay = {
    "--pmc",           "SQ_WAVES",      "GRBM_COUNT", "--pmc",
    "GRBM_GUI_ACTIVE", "--replay-mode", "kernel",     "--kernel-replay-beta-enabled"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(SimKernelReplay, EveryCountedDispatchRunsOncePerGroupUnderOneDispatchId) {
  TempDir t;
  const auto r =
      run_sim(t.path, with(k_replay, {"-f", "csv", "-d", "out", "-o", "c", "--", "true"}),
              {{"ROCPROF_SIM_VERSION", "develop"}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_FALSE(fs::exists(t.path / "out" / "pass_1")) << "all groups are written together";
  const Csv c = read_csv(t.path / "out" / "c_counter_collection.csv");
  EXPECT_EQ(c.col("Replay_Pass"), SIZE_MAX) << "CSV has no pass column";
  std::map<std::string, std::set<std::string>> names;   // dispatch id -> counters
  std::map<std::string, std::set<std::string>> starts;  // dispatch id -> Start_Timestamp
  for (size_t i = 0; i < c.rows.size(); ++i) {
    names[c.at(i, "Dispatch_Id")].insert(c.at(i, "Counter_Name"));
    starts[c.at(i, "Dispatch_Id")].insert(c.at(i, "Start_Timestamp"));
  }
  ASSERT_FALSE(names.empty());
  for (const auto& [id, n] : names) {
    EXPECT_EQ(n, (std::set<std::string>{"GRBM_COUNT", "GRBM_GUI_ACTIVE", "SQ_WAVES"})) << id;
    EXPECT_EQ(starts[id].size(), 2u) << id << ": one execution per group";
  }

  // rocpd: one dispatch row per dispatch (the first pass), every pass's counters on its event.
  TempDir p;
  const auto d = run_sim(p.path, with(k_replay, {"-d", "out", "-o", "c", "--", "true"}),
                         {{"ROCPROF_SIM_VERSION", "develop"}});
  ASSERT_EQ(d.exit_code(), 0) << d.err;
  SQLite::Database db((p.path / "out" / "c_results.db").string(), SQLite::OPEN_READONLY);
  const int dispatches = db.execAndGet("SELECT count(*) FROM rocpd_kernel_dispatch").getInt();
  EXPECT_EQ(dispatches, static_cast<int>(names.size()));
  EXPECT_EQ(db.execAndGet("SELECT count(DISTINCT P.pmc_id) FROM rocpd_pmc_event P").getInt(), 3);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM (SELECT event_id FROM rocpd_pmc_event GROUP BY "
                          "event_id HAVING count(DISTINCT pmc_id) = 3)")
                .getInt(),
            dispatches);
}

TEST(SimKernelReplay, NeedsBothFlagsAndCountersAndANewEnoughTool) {
  TempDir t;
  const auto no_beta = run_sim(
      t.path, {"--pmc", "SQ_WAVES", "--pmc", "GRBM_COUNT", "--replay-mode", "kernel", "--", "true"},
      {{"ROCPROF_SIM_VERSION", "develop"}});
  EXPECT_EQ(no_beta.exit_code(), 1);
  EXPECT_NE(no_beta.err.find("add --kernel-replay-beta-enabled"), std::string::npos) << no_beta.err;
  const auto no_pmc =
      run_sim(t.path, {"--replay-mode", "kernel", "--kernel-replay-beta-enabled", "--", "true"},
              {{"ROCPROF_SIM_VERSION", "develop"}});
  EXPECT_EQ(no_pmc.exit_code(), 1);
  EXPECT_NE(no_pmc.err.find("requires counter collection"), std::string::npos) << no_pmc.err;
  const auto old =
      run_sim(t.path, with(k_replay, {"--", "true"}), {{"ROCPROF_SIM_VERSION", "7.13"}});
  EXPECT_EQ(old.exit_code(), 2);
  EXPECT_NE(old.err.find("unrecognized arguments: --replay-mode kernel "
                         "--kernel-replay-beta-enabled"),
            std::string::npos)
      << old.err;
  // What kprof reads to tell them apart: --help.
  const auto help_new = run_sim(t.path, {"--help"}, {{"ROCPROF_SIM_VERSION", "develop"}});
  EXPECT_NE(help_new.out.find("--kernel-replay-beta-enabled"), std::string::npos);
  const auto help_old = run_sim(t.path, {"--help"}, {{"ROCPROF_SIM_VERSION", "7.13"}});
  EXPECT_EQ(help_old.out.find("--replay-mode"), std::string::npos);
}

}  // namespace
}  // namespace kprof::sim::testing
