// `kprof export --perfetto` of the simulated Qwen3 run (ctest fixture report_sim_runs): the JSON
// parses, has the required fields, one slice per dispatch, nested slices per thread, the steps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/analysis/session.hpp"
#include "tests/report/trace_check.hpp"

namespace kprof::report {
namespace {

namespace fs = std::filesystem;

// The schema check itself: a well-formed document passes, and each required field missing (or of
// the wrong type) is reported, so a writer that dropped one would fail the export tests.
TEST(PerfettoExport, TraceCheckReportsEachMissingRequiredField) {
  const auto good = nlohmann::json::parse(R"({"traceEvents":[
    {"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},
    {"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"q"}},
    {"name":"k","ph":"X","pid":1,"tid":2,"ts":1.5,"dur":2.25,"args":{"family":"f"}},
    {"name":"k","ph":"X","pid":1,"tid":2,"ts":2.0,"dur":1.0,"args":{}}]})");
  const auto ok = test::check_trace(good);
  EXPECT_TRUE(ok.problems.empty()) << nlohmann::json(ok.problems).dump(1);
  EXPECT_EQ(ok.cat.at(""), 2);
  for (const char* field : {"name", "ph", "pid", "tid", "ts", "dur", "args"}) {
    auto bad = good;
    bad["traceEvents"][2].erase(field);
    EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "without " << field;
  }
  auto bad = good;
  bad["traceEvents"][2]["pid"] = "1";
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "a string pid";
  bad = good;
  bad["traceEvents"][3]["ts"] = 3.0;  // starts inside the first and ends after it
  bad["traceEvents"][3]["dur"] = 1.0;
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "overlapping slices of one thread";
  bad = good;
  bad["traceEvents"].erase(1);  // thread 1/2 unnamed
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "an unnamed thread";
}

TEST(PerfettoExport, SimulatedRunHasOneSlicePerDispatchAndEveryStep) {
  const fs::path db = fs::path(KPROF_REPORT_SIM_DIR) / "qwen3-64" / "qwen3-64.db";
  const fs::path dir = fs::temp_directory_path() / ("kprof_perfetto_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "trace.json";
  const std::string cmd = std::string(KPROF_BIN_DIR) + "/kprof export " + db.string() +
                          " --perfetto " + out.string() + " > " + (dir / "out.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  const auto c = test::check_trace(doc);
  EXPECT_TRUE(c.problems.empty()) << nlohmann::json(c.problems).dump(1);

  analysis::QuerySession s = analysis::QuerySession::open(db, {});
  const auto& cap = s.capture();
  EXPECT_EQ(c.cat.at("dispatch"), static_cast<int64_t>(cap.trace.dispatches.size()));
  int64_t counter_dispatches = 0;
  for (const auto& p : cap.counters)
    counter_dispatches += static_cast<int64_t>(p.dispatches.size());
  EXPECT_EQ(c.cat.at("counter pass dispatch"), counter_dispatches);
  // 1 prefill + 63 decode steps, and the phases around them.
  EXPECT_EQ(c.cat.at("step"), 64);
  EXPECT_GE(c.cat.at("phase"), 2);
  EXPECT_TRUE(doc["otherData"]["simulated"].get<bool>());
  // A fused_moe_kernel decode dispatch carries its counters and derived metrics.
  bool found = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") != "dispatch" || e["args"]["family"] != "fused_moe_kernel" ||
        e["args"]["phase"] != "decode")
      continue;
    EXPECT_TRUE(e["args"].contains("counters")) << e.dump();
    EXPECT_TRUE(e["args"].contains("flop_per_byte")) << e.dump();
    EXPECT_TRUE(e["args"]["simulated"].get<bool>());
    EXPECT_TRUE(e["args"].contains("step"));
    found = true;
    break;
  }
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kprof::report
