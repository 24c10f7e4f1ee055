// Failure behaviour of rocprofv3-sim, each through a real subprocess: the error-38 abort, unknown
// counters, the app's exit status and signals, signal forwarding, and every fault switch.
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

TEST(SimFaults, OversubscribedCountersAbortWithError38AtTheFirstCountedDispatch) {
  TempDir t;
  // FETCH_SIZE (3 TCC events) + WRITE_SIZE (2) > 4 TCC counters on gfx942 (ROCm/aqlprofile
  // gfxip/gfx9/gfx9_block_table.h).
  const auto r = run_sim(
      t.path, {"--kernel-trace", "--pmc", "FETCH_SIZE", "WRITE_SIZE", "--kernel-include-regex",
               "multiply", "-f", "csv", "-d", ".", "-o", "x", "--", "sleep", "30"});
  EXPECT_EQ(r.signal(), SIGABRT) << r.err;
  EXPECT_NE(r.err.find("]  :: [tool.cpp:1006]\n\trocprofiler_create_counter_config( agent_id, "
                       "counters_v.data(), "
                       "counters_v.size(), &profile_v)\n\nCould not construct profile cfg failed "
                       "with error code 38: "
                       "Request exceeds the capabilities of the hardware to collect\n*** Check "
                       "failure stack trace: ***\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[rocprofv3_error_signal_handler] rocprofv3 caught signal 6..."),
            std::string::npos);
  EXPECT_NE(r.err.find("rocprofv3 finalizing after signal 6..."), std::string::npos);
  // Partial output: the two dispatches before the first counted one (multiply is the third).
  const Csv kt = read_csv(t.path / "x_kernel_trace.csv");
  ASSERT_EQ(kt.rows.size(), 2u);
  EXPECT_EQ(kt.at(1, "Dispatch_Id"), "2");
  EXPECT_FALSE(fs::exists(t.path / "x_counter_collection.csv"));
}

TEST(SimFaults, FittingCountersDoNotAbort) {
  TempDir t;
  const auto r = run_sim(t.path, {"--pmc", "FETCH_SIZE", "SQ_WAVES", "-f", "csv", "-d", ".", "-o",
                                  "ok", "--", "true"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  const Csv cc = read_csv(t.path / "ok_counter_collection.csv");
  ASSERT_EQ(cc.rows.size(), 8u);
  // add kernel: reads 2 x 4 MiB -> FETCH_SIZE ~ 8192 KB through the catalog's own expression.
  EXPECT_EQ(cc.at(0, "Counter_Name"), "FETCH_SIZE");
  EXPECT_NEAR(std::stod(cc.at(0, "Counter_Value")), 8192.0, 8192.0 * 0.02);
}

TEST(SimFaults, UnknownCountersWarnAndAreSkipped) {
  TempDir t;
  const auto r = run_sim(t.path, {"--pmc", "SQ_WAVES", "BOGUS_COUNTER", "-f", "csv", "-d", ".",
                                  "-o", "u", "--", "true"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(
      r.err.find(
          "Unable to find all counters for agent 1 (gpu-0, gfx942) in [BOGUS_COUNTER, SQ_WAVES]. "
          "Found: [SQ_WAVES]. Missing: [BOGUS_COUNTER]"),
      std::string::npos)
      << r.err;
  const Csv cc = read_csv(t.path / "u_counter_collection.csv");
  ASSERT_EQ(cc.rows.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(cc.at(i, "Counter_Name"), "SQ_WAVES");
  TempDir t2;
  EXPECT_EQ(run_sim(t2.path, {"--pmc", "BOGUS_COUNTER", "-f", "csv", "-d", ".", "--", "true"})
                .exit_code(),
            0);
  EXPECT_TRUE(files_under(t2.path).empty());  // no data in any domain: no file at all
}

TEST(SimFaults, TheApplicationsExitStatusPropagates) {
  TempDir t;
  const auto r = run_sim(
      t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "e", "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(r.exit_code(), 7);
  EXPECT_TRUE(fs::exists(t.path / "e_kernel_trace.csv"));  // written at exit as usual
  TempDir t2;
  const auto s = run_sim(t2.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "s", "--", "sh",
                                   "-c", "kill -SEGV $$"});
  EXPECT_EQ(s.signal(), SIGSEGV);
  EXPECT_TRUE(files_under(t2.path).empty());  // SIGSEGV is not a handled signal: nothing written
}

TEST(SimFaults, SigtermIsForwardedToTheAppAndOutputIsFinalized) {
  TempDir t;
  const pid_t pid = start_sim(
      t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "term", "--", "sleep", "60"},
      {{"ROCPROF_SIM_MODEL", (configs() / "sim/doc-vector-ops.yaml").string()}});
  wait_for_text(t.path / ".stderr", "tool initialization");
  kill(pid, SIGTERM);
  const auto r = finish_sim(t.path, pid);
  EXPECT_EQ(r.signal(), SIGTERM) << r.err;
  EXPECT_NE(r.err.find("rocprofv3 caught signal 15..."), std::string::npos);
  if (fs::exists(t.path / "term_kernel_trace.csv")) {
    const Csv kt = read_csv(t.path / "term_kernel_trace.csv");
    ASSERT_FALSE(kt.rows.empty());
    EXPECT_LE(kt.rows.size(), 4u);
    // The app (whose pid names the thread) got the signal and is gone.
    EXPECT_EQ(kill(std::stoi(kt.at(0, "Thread_Id")), 0), -1);
  }
}

TEST(SimFaults, CrashAfterNDispatches) {
  TempDir t;
  const auto segv =
      run_sim(t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "c", "--", "sleep", "30"},
              {{"ROCPROF_SIM_CRASH_AFTER", "2"}});
  EXPECT_EQ(segv.signal(), SIGSEGV);
  EXPECT_TRUE(files_under(t.path).empty());
  TempDir t2;
  const auto abrt =
      run_sim(t2.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "c", "--", "true"},
              {{"ROCPROF_SIM_CRASH_AFTER", "2"}, {"ROCPROF_SIM_CRASH_SIGNAL", "ABRT"}});
  EXPECT_EQ(abrt.signal(), SIGABRT);
  EXPECT_EQ(read_csv(t2.path / "c_kernel_trace.csv").rows.size(), 2u);
}

TEST(SimFaults, HangUntilTerminatedKeepsTheDispatchesBeforeTheHang) {
  TempDir t;
  const pid_t pid =
      start_sim(t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "h", "--", "true"},
                {{"ROCPROF_SIM_MODEL", (configs() / "sim/doc-vector-ops.yaml").string()},
                 {"ROCPROF_SIM_HANG_AFTER", "3"}});
  wait_for_text(t.path / ".stderr", "tool initialization");
  kill(pid, SIGTERM);
  const auto r = finish_sim(t.path, pid);
  EXPECT_EQ(r.signal(), SIGTERM);
  EXPECT_EQ(read_csv(t.path / "h_kernel_trace.csv").rows.size(), 3u);
}

TEST(SimFaults, TruncatedCsvEndsMidRow) {
  TempDir t;
  const auto r =
      run_sim(t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "tr", "--", "true"},
              {{"ROCPROF_SIM_TRUNCATE", "1"}});
  EXPECT_EQ(r.exit_code(), 0);
  const std::string s = read_file(t.path / "tr_kernel_trace.csv");
  ASSERT_FALSE(s.empty());
  EXPECT_NE(s.back(), '\n');
  const auto last = s.substr(s.rfind('\n') + 1);
  EXPECT_LT(split_row(last).size(), 22u);
  EXPECT_FALSE(last.empty());
}

TEST(SimFaults, ExitCodeOverrideAndWriteNothing) {
  TempDir t;
  const auto r =
      run_sim(t.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "x", "--", "true"},
              {{"ROCPROF_SIM_EXIT_CODE", "3"}});
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_TRUE(fs::exists(t.path / "x_kernel_trace.csv"));
  TempDir t2;
  const auto n =
      run_sim(t2.path, {"--kernel-trace", "-f", "csv", "-d", ".", "-o", "x", "--", "true"},
              {{"ROCPROF_SIM_WRITE_NOTHING", "1"}});
  EXPECT_EQ(n.exit_code(), 0);
  EXPECT_TRUE(files_under(t2.path).empty());
}

TEST(SimFaults, AFailingPassStopsAMultiPassRun) {
  TempDir t;
  std::ofstream(t.path / "jobs.json")
      << R"({"jobs": [{"pmc": ["FETCH_SIZE", "WRITE_SIZE"]}, {"pmc": ["SQ_WAVES"]}]})";
  const auto r =
      run_sim(t.path, {"-i", "jobs.json", "-f", "csv", "-d", "out", "-o", "m", "--", "true"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(r.err.find("Fatal error: Command '['true']' died with <Signals.SIGABRT: 6>."),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(t.path / "out/pass_2"));
}

TEST(SimWorkloadScript, ExitsTwoWithAClearMessageWithoutVllmOrAGpu) {
  TempDir t;
  const std::string script =
      (fs::path(KPROF_SOURCE_DIR) / "runbooks/workloads/qwen3_generate.py").string();
  const std::string cmd = "VLLM_ENABLE_V1_MULTIPROCESSING=0 python3 " + script + " --tokens 64 > " +
                          (t.path / "o").string() + " 2> " + (t.path / "e").string();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = read_file(t.path / "e");
  EXPECT_EQ(err.rfind("qwen3_generate.py: ", 0), 0u) << err;
  EXPECT_TRUE(err.find("not installed") != std::string::npos ||
              err.find("no GPU") != std::string::npos || err.find("roctx") != std::string::npos)
      << err;
}

}  // namespace
}  // namespace kprof::sim::testing
