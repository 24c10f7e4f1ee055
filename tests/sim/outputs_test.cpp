// rocprofv3-sim's files, run as a real subprocess: names, columns, quoting and number formats
// against rocprofiler-sdk (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp) and against real captures in
// tests/data/captures/ (byte for byte for the documentation sample).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/sim/format.hpp"
#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

const std::string k_doc_clock = "3200098838430081";
const fs::path k_captures = fs::path(KPROF_TEST_DATA) / "captures";
const fs::path k_ullm =
    k_captures / "uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

std::string header_line(const fs::path& p) {
  const std::string s = read_file(p);
  return s.substr(0, s.find('\n'));
}

TEST(SimOutputs, CounterCollectionReproducesTheDocumentationSampleByteForByte) {
  TempDir t;
  const auto r =
      run_sim(t.path, {"--pmc", "SQ_WAVES", "-f", "csv", "-d", "out", "-o", "doc", "--", "true"},
              {{"ROCPROF_SIM_CLOCK_BASE_NS", k_doc_clock}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(files_under(t.path / "out"),
            (std::vector<std::string>{"doc_agent_info.csv", "doc_counter_collection.csv"}));
  const Csv ours = read_csv(t.path / "out/doc_counter_collection.csv");
  ASSERT_EQ(ours.rows.size(), 4u);
  const std::string pid = ours.at(0, "Process_Id");
  // The sample's process was 15606; everything else must be identical.
  const std::string golden =
      replace_all(read_file(k_captures / "rocprofiler-sdk-docs/counter_collection.csv"),
                  ",15606,15606,", "," + pid + "," + pid + ",");
  EXPECT_EQ(read_file(t.path / "out/doc_counter_collection.csv"), golden);
  // The CPU row equals the documentation's agent_info sample row
  // (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/data/agent_info.csv).
  const std::string agents = read_file(t.path / "out/doc_agent_info.csv");
  EXPECT_NE(
      agents.find(
          "\n0,0,\"CPU\",24,0,0,0,0,0,0,0,0,1,24,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3800,0,0,0,0,0,0,"
          "23,"
          "0,0,0,0,0,0,0,0,0,0,0,\"AMD Ryzen 9 3900X 12-Core Processor\",\"CPU\",\"AMD Ryzen 9 "
          "3900X 12-Core Processor\",\"\"\n"),
      std::string::npos);
  EXPECT_NE(agents.find("\"gfx942\",\"AMD\",\"AMD Instinct MI300X (simulated)\""),
            std::string::npos);
}

TEST(SimOutputs, TraceAndStatsFilesHaveTheFactsColumnsAndTheRealCapturesStyle) {
  TempDir t;
  const auto r = run_sim(
      t.path, {"--kernel-trace", "--stats", "-f", "csv", "-d", "out", "-o", "run", "--", "true"},
      {{"ROCPROF_SIM_CLOCK_BASE_NS", k_doc_clock}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(files_under(t.path / "out"),
            (std::vector<std::string>{"run_agent_info.csv", "run_domain_stats.csv",
                                      "run_kernel_stats.csv", "run_kernel_trace.csv"}));
  // Headers: exactly generateCSV.cpp's, and the same bytes as real 7.x captures.
  const std::string trace_header =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_"
      "Id\",\"Kernel_Name\","
      "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_"
      "Size\",\"VGPR_Count\","
      "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_"
      "Size_Z\","
      "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"";
  EXPECT_EQ(header_line(t.path / "out/run_kernel_trace.csv"), trace_header);
  EXPECT_EQ(header_line(k_ullm / "component-m8_kernel_trace.csv"), trace_header);
  const std::string stats_header =
      "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
      "\"StdDev\"";
  EXPECT_EQ(header_line(t.path / "out/run_kernel_stats.csv"), stats_header);
  EXPECT_EQ(header_line(t.path / "out/run_domain_stats.csv"), stats_header);
  EXPECT_EQ(header_line(t.path / "out/run_agent_info.csv"),
            header_line(k_ullm / "component-m8_agent_info.csv"));

  // Row style (which fields are quoted, integers, fixed or scientific) equals the real capture's.
  const Csv trace = read_csv(t.path / "out/run_kernel_trace.csv");
  const Csv real_trace = read_csv(k_ullm / "component-m8_kernel_trace.csv");
  ASSERT_EQ(trace.rows.size(), 4u);
  for (const auto& row : trace.rows) EXPECT_EQ(row_style(row), row_style(real_trace.rows[0]));
  const Csv stats = read_csv(t.path / "out/run_kernel_stats.csv");
  const Csv real_stats = read_csv(k_ullm / "component-m8_kernel_stats.csv");
  size_t single_call = SIZE_MAX;  // a real row with one call, as each of ours has
  for (size_t i = 0; i < real_stats.rows.size() && single_call == SIZE_MAX; ++i)
    if (real_stats.at(i, "Calls") == "1") single_call = i;
  ASSERT_NE(single_call, SIZE_MAX);
  ASSERT_EQ(stats.rows.size(), 4u);
  for (const auto& row : stats.rows)
    EXPECT_EQ(row_style(row), row_style(real_stats.rows[single_call]));
  const Csv domain = read_csv(t.path / "out/run_domain_stats.csv");
  const Csv real_domain = read_csv(k_ullm / "component-m8_domain_stats.csv");
  ASSERT_EQ(domain.rows.size(), 1u);
  EXPECT_EQ(row_style(domain.rows[0]), row_style(real_domain.rows[1]));  // the KERNEL_DISPATCH row
  const Csv agents = read_csv(t.path / "out/run_agent_info.csv");
  const Csv real_agents = read_csv(k_ullm / "component-m8_agent_info.csv");
  ASSERT_EQ(agents.rows.size(), 2u);
  EXPECT_EQ(row_style(agents.rows[0]), row_style(real_agents.rows[0]));  // CPU
  EXPECT_EQ(row_style(agents.rows[1]), row_style(real_agents.rows[1]));  // GPU

  // Values: the model's durations, "Agent 1" (one CPU node first), ids from 1, kernel stats sorted
  // by total duration, domain total = sum of durations.
  const uint64_t durations[] = {52151, 49780, 46818, 48151};
  uint64_t total = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(trace.at(i, "Agent_Id"), "Agent 1");
    EXPECT_EQ(trace.at(i, "Dispatch_Id"), std::to_string(i + 1));
    EXPECT_EQ(
        std::stoull(trace.at(i, "End_Timestamp")) - std::stoull(trace.at(i, "Start_Timestamp")),
        durations[i]);
    total += durations[i];
  }
  EXPECT_EQ(trace.at(0, "Start_Timestamp"), "3200098838431081");
  EXPECT_EQ(stats.at(0, "Name"),
            "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(stats.at(3, "Name"), "multiply_kernel(float*, float const*, float const*, int, int)");
  EXPECT_EQ(domain.at(0, "Name"), "KERNEL_DISPATCH");
  EXPECT_EQ(domain.at(0, "Calls"), "4");
  EXPECT_EQ(domain.at(0, "TotalDurationNs"), std::to_string(total));
  EXPECT_EQ(domain.at(0, "Percentage"), "100.00");
}

TEST(SimOutputs, DefaultNamesUseHostnameAndThePidOfTheApplication) {
  TempDir t;
  const auto r = run_sim(t.path, {"--kernel-trace", "-f", "csv", "--", "true"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const auto files = files_under(t.path);
  ASSERT_EQ(files.size(), 2u);
  const fs::path trace = t.path / files[1];
  EXPECT_EQ(fs::path(files[1]).parent_path().string(), hostname());
  const Csv c = read_csv(trace);
  ASSERT_FALSE(c.rows.empty());
  EXPECT_EQ(trace.filename().string(), c.at(0, "Thread_Id") + "_kernel_trace.csv");
  // -d defaults to the working directory, which the tool logs as an absolute path.
  EXPECT_NE(r.err.find("Opened result file: " + t.path.string() + "/" + hostname() + "/" +
                       c.at(0, "Thread_Id") + "_kernel_trace.csv"),
            std::string::npos);
}

TEST(SimOutputs, AgentIndexModesNameTheGpu) {
  for (const auto& [mode, want] : std::vector<std::pair<std::string, std::string>>{
           {"absolute", "Agent 1"}, {"relative", "Agent 1"}, {"type-relative", "GPU 0"}}) {
    TempDir t;
    ASSERT_EQ(run_sim(t.path, {"--kernel-trace", "-A", mode, "-f", "csv", "-d", ".", "-o", "r",
                               "--", "true"})
                  .exit_code(),
              0);
    EXPECT_EQ(read_csv(t.path / "r_kernel_trace.csv").at(0, "Agent_Id"), want) << mode;
  }
}

TEST(SimOutputs, RegexFiltersThinOnlyTheCounterCollection) {
  TempDir t;
  const auto r = run_sim(t.path, {"--kernel-trace", "--pmc", "SQ_WAVES", "--kernel-include-regex",
                                  "multiply|divide", "--kernel-exclude-regex", "divide", "-f",
                                  "csv", "-d", ".", "-o", "f", "--", "true"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(read_csv(t.path / "f_kernel_trace.csv").rows.size(), 4u);
  const Csv cc = read_csv(t.path / "f_counter_collection.csv");
  ASSERT_EQ(cc.rows.size(), 1u);
  EXPECT_EQ(cc.at(0, "Kernel_Name"),
            "multiply_kernel(float*, float const*, float const*, int, int)");
}

TEST(SimOutputs, TruncateKernelsShortensNames) {
  TempDir t;
  ASSERT_EQ(
      run_sim(t.path, {"--kernel-trace", "-T", "-f", "csv", "-d", ".", "-o", "t", "--", "true"})
          .exit_code(),
      0);
  EXPECT_EQ(read_csv(t.path / "t_kernel_trace.csv").at(0, "Kernel_Name"), "addition_kernel");
}

TEST(SimOutputs, Layout6WritesEighteenColumnsWithIntegerAgents) {
  TempDir t;
  const auto r =
      run_sim(t.path, {"--kernel-trace", "--pmc", "SQ_WAVES", "-d", ".", "-o", "six", "--", "true"},
              {{"ROCPROF_SIM_LAYOUT", "6"}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  const Csv kt = read_csv(t.path / "six_kernel_trace.csv");
  EXPECT_EQ(kt.header, (std::vector<std::string>{
                           "Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
                           "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp",
                           "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
                           "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y",
                           "Grid_Size_Z"}));
  ASSERT_EQ(kt.rows.size(), 4u);
  EXPECT_EQ(kt.rows[0].size(), 18u);
  EXPECT_EQ(kt.at(0, "Agent_Id"), "1");
  EXPECT_FALSE(kt.rows[0][kt.col("Agent_Id")].quoted);
  const Csv cc = read_csv(t.path / "six_counter_collection.csv");
  EXPECT_EQ(cc.header.size(), 18u);
  EXPECT_EQ(cc.col("Accum_VGPR_Count"), SIZE_MAX);
  EXPECT_EQ(cc.at(0, "Agent_Id"), "1");
  EXPECT_EQ(cc.at(0, "Counter_Value"), "16384.000000");
  EXPECT_FALSE(fs::exists(t.path / "six_results.db"));  // 6.x had no rocpd
}

TEST(SimOutputs, RocpdDatabaseIsTheDefaultAndReadableThroughItsViews) {
  TempDir t;
  const auto r =
      run_sim(t.path, {"--kernel-trace", "--pmc", "SQ_WAVES", "-d", ".", "-o", "db", "--", "true"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(files_under(t.path), (std::vector<std::string>{"db_results.db"}));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((t.path / "db_results.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  const auto query = [&](const std::string& sql) {
    std::vector<std::vector<std::string>> rows;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sql << sqlite3_errmsg(db);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const auto* txt = sqlite3_column_text(st, i);
        row.emplace_back(txt ? reinterpret_cast<const char*>(txt) : "");
      }
      rows.push_back(row);
    }
    sqlite3_finalize(st);
    return rows;
  };
  const auto uuid = query("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'");
  ASSERT_EQ(uuid.size(), 1u);
  EXPECT_EQ(query("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")[0][0], "3");
  for (const char* table :
       {"rocpd_metadata", "rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol",
        "rocpd_kernel_dispatch", "rocpd_info_pmc", "rocpd_pmc_event"}) {
    EXPECT_EQ(query("SELECT type FROM sqlite_master WHERE name = '" + std::string(table) + "_" +
                    uuid[0][0] + "'"),
              (std::vector<std::vector<std::string>>{{"table"}}))
        << table;
    EXPECT_EQ(
        query("SELECT type FROM sqlite_master WHERE name = '" + std::string(table) + "'")[0][0],
        "view");
  }
  const auto kernels = query(
      "SELECT name, dispatch_id, duration, agent_abs_index, agent_type FROM kernels ORDER BY "
      "dispatch_id");
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[1][0], "subtract_kernel(float*, float const*, float const*, int, int)");
  EXPECT_EQ(kernels[0][3], "1");
  EXPECT_EQ(kernels[0][4], "GPU");
  const auto counters = query(
      "SELECT dispatch_id, counter_name, value FROM counters_collection ORDER BY dispatch_id");
  ASSERT_EQ(counters.size(), 4u);
  for (const auto& c : counters) {
    EXPECT_EQ(c[1], "SQ_WAVES");
    EXPECT_DOUBLE_EQ(std::stod(c[2]), 16384.0);  // summed over the per-XCD rows
  }
  EXPECT_GT(std::stoi(query("SELECT COUNT(*) FROM rocpd_pmc_event")[0][0]), 4);
  EXPECT_EQ(query("SELECT product_name FROM rocpd_info_agent WHERE type = 'GPU'")[0][0],
            "AMD Instinct MI300X (simulated)");
  sqlite3_close(db);
}

TEST(SimOutputs, InputFileJobsRunAsPassesInPassDirectories) {
  TempDir t;
  std::ofstream(t.path / "input.yaml")
      << "jobs:\n  - pmc: [SQ_WAVES]\n"
         "  - pmc: [GRBM_GUI_ACTIVE]\n    kernel_include_regex: multiply\n";
  const auto r =
      run_sim(t.path, {"-i", "input.yaml", "-f", "csv", "-d", "out", "-o", "p", "--", "true"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(
      files_under(t.path / "out"),
      (std::vector<std::string>{"pass_1/p_agent_info.csv", "pass_1/p_counter_collection.csv",
                                "pass_2/p_agent_info.csv", "pass_2/p_counter_collection.csv"}));
  const Csv p1 = read_csv(t.path / "out/pass_1/p_counter_collection.csv");
  const Csv p2 = read_csv(t.path / "out/pass_2/p_counter_collection.csv");
  ASSERT_EQ(p1.rows.size(), 4u);
  ASSERT_EQ(p2.rows.size(), 1u);
  EXPECT_EQ(p2.at(0, "Counter_Name"), "GRBM_GUI_ACTIVE");
  // Every pass is a new application process, numbering dispatches from 1 again.
  EXPECT_NE(p1.at(0, "Process_Id"), p2.at(0, "Process_Id"));
  EXPECT_EQ(p2.at(0, "Dispatch_Id"), "3");
}

TEST(SimOutputs, ListAvailPrintsTheCatalogInRocprofv3AvailFormat) {
  TempDir t;
  const auto r = run_sim(t.path, {"-L"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("GPU:0\nName:gfx942\n"), std::string::npos);
  EXPECT_NE(r.out.find("Counter_Name        :\tSQ_WAVES\n"), std::string::npos);
  EXPECT_NE(r.out.find("Block               :\tSQ\n"), std::string::npos);
  EXPECT_NE(r.out.find("Counter_Name        :\tFETCH_SIZE\nDescription         :\t"),
            std::string::npos);
  EXPECT_NE(r.out.find("Expression          :\t(TCC_BUBBLE_sum*128"), std::string::npos);
  EXPECT_NE(r.out.find("   Method              :\thost_trap\n"), std::string::npos);
}

TEST(SimOutputs, VersionAndUsageErrors) {
  TempDir t;
  // The default is the newest behaviour the double models (core/sim/version.hpp); each release
  // answers --version as it would, and before ROCm 7.0 there is no --version at all.
  const auto v = run_sim(t.path, {"--version"});
  EXPECT_EQ(v.exit_code(), 0);
  EXPECT_EQ(v.out.rfind("             version: 1.3.0\n", 0), 0u) << v.out;
  EXPECT_NE(v.out.find("    rocm_version: 7.13.0\n"), std::string::npos) << v.out;
  const auto v70 = run_sim(t.path, {"--version"}, {{"ROCPROF_SIM_VERSION", "7.0"}});
  EXPECT_EQ(v70.exit_code(), 0);
  EXPECT_EQ(v70.out.rfind("             version: 1.0.0\n", 0), 0u) << v70.out;
  EXPECT_NE(v70.out.find("    rocm_version: 7.0.0\n"), std::string::npos) << v70.out;
  const auto v64 = run_sim(t.path, {"--version"}, {{"ROCPROF_SIM_VERSION", "6.4"}});
  EXPECT_EQ(v64.exit_code(), 2);
  EXPECT_NE(v64.err.find("rocprofv3: error: unrecognized arguments: --version"), std::string::npos)
      << v64.err;
  const auto unknown = run_sim(t.path, {"--version"}, {{"ROCPROF_SIM_VERSION", "5.7"}});
  EXPECT_EQ(unknown.exit_code(), 1);
  EXPECT_NE(unknown.err.find("ROCPROF_SIM_VERSION='5.7' is not a ROCm release"), std::string::npos)
      << unknown.err;
  const auto bad = run_sim(t.path, {"--kernel-trace", "--bogus", "--", "true"});
  EXPECT_EQ(bad.exit_code(), 2);
  EXPECT_NE(bad.err.find("rocprofv3: error: unrecognized arguments: --bogus"), std::string::npos);
  const auto no_app = run_sim(t.path, {"--kernel-trace"});
  EXPECT_EQ(no_app.exit_code(), 1);
  EXPECT_EQ(no_app.err, "Fatal error: No application provided\n");
  const auto stats = run_sim(t.path, {"--stats", "--", "true"});
  EXPECT_EQ(stats.exit_code(), 1);
  EXPECT_NE(stats.err.find("No tracing options were enabled for --stats option."),
            std::string::npos);
  const auto ext = run_sim(t.path, {"-i", "jobs.toml", "--", "true"});
  EXPECT_EQ(ext.exit_code(), 1);
  EXPECT_NE(ext.err.find("does not have a recognized extension (.txt, .json, .yaml, .yml)"),
            std::string::npos);
}

}  // namespace
}  // namespace kprof::sim::testing
