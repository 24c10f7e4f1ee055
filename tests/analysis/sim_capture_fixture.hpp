// The SimCapture fixture: the rocprofv3 test double (KPROF_BIN_DIR/rocprofv3-sim, default model
// qwen3-30b-a3b-mi300x) runs as a real process for a trace pass and two counter passes, loaded
// through the ingest library into one real capture database per test suite.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {

namespace fs = std::filesystem;

inline std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> agents, rest;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".csv") continue;
    const std::string name = e.path().filename().string();
    if (name.find("agent_info") != std::string::npos)
      agents.push_back(e.path().string());
    else if (name.find("kernel_trace") != std::string::npos ||
             name.find("counter_collection") != std::string::npos)
      rest.push_back(e.path().string());
  }
  agents.insert(agents.end(), rest.begin(), rest.end());  // agents first: readers resolve ids
  return agents;
}

inline void run_sim(const fs::path& out, const std::string& args) {
  const std::string cmd = std::string(KPROF_BIN_DIR) + "/rocprofv3-sim " + args +
                          " --selected-regions -f csv -d " + out.string() + " -o run -- true > " +
                          out.string() + ".log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

class SimCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_db = new test::TempDb("sim");
    const fs::path d = s_db->dir();
    run_sim(d / "trace", "--kernel-trace --stats");
    run_sim(d / "c1",
            "--pmc FETCH_SIZE SQ_INSTS_VALU_MFMA_MOPS_BF16 --kernel-include-regex fused_moe");
    run_sim(d / "c2", "--pmc WRITE_SIZE --kernel-include-regex fused_moe");
    store::CaptureDb db(s_db->path());
    const int64_t run = test::new_run(db, true);
    test::load_pass(db, run, 0, store::PassKind::trace, files_in(d / "trace"));
    test::load_pass(db, run, 1, store::PassKind::counters, files_in(d / "c1"));
    test::load_pass(db, run, 2, store::PassKind::counters, files_in(d / "c2"));
  }
  static void TearDownTestSuite() { delete s_db; }
  inline static test::TempDb* s_db = nullptr;
};

}  // namespace kprof::analysis
