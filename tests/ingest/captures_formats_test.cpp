// The real captures in tests/data/captures, continued (captures_test.cpp): counter_collection.csv
// in its 19- and 18-column layouts and rocpd's leading Pid, agent_info, kernel_stats and API
// traces, against counts computed independently (independent_csv.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "core/base/error.hpp"
#include "core/ingest/format.hpp"
#include "core/ingest/read_file.hpp"
#include "tests/ingest/captures.hpp"
#include "tests/ingest/independent_csv.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
using test::capture;
using test::independent_totals;
using test::k_component;
using test::k_docs_counters;
using test::k_gemma;
using test::k_pmc;
using test::totals_of;
using test::VectorSink;

struct CounterTotals {
  std::set<int64_t> dispatches;
  std::map<std::string, double> sum;
  size_t rows = 0;
};

CounterTotals independent_counters(const test::SimpleTable& t) {
  CounterTotals c;
  int disp = t.col("Dispatch_Id"), name = t.col("Counter_Name"), value = t.col("Counter_Value");
  for (const auto& r : t.rows) {
    c.dispatches.insert(std::stoll(r[static_cast<size_t>(disp)]));
    c.sum[r[static_cast<size_t>(name)]] += std::stod(r[static_cast<size_t>(value)]);
    ++c.rows;
  }
  return c;
}

void expect_counters_match(const VectorSink& sink, const CounterTotals& theirs) {
  EXPECT_EQ(sink.dispatches.size(), theirs.dispatches.size());
  EXPECT_EQ(sink.counters.size(), theirs.rows);
  std::map<std::string, double> sum;
  for (const auto& c : sink.counters) sum[c.counter] += c.value;
  ASSERT_EQ(sum.size(), theirs.sum.size());
  for (const auto& [k, v] : theirs.sum) EXPECT_DOUBLE_EQ(sum[k], v) << k;
  std::set<int64_t> ids;
  for (const auto& d : sink.dispatches) {
    EXPECT_FALSE(d.dims_known);
    EXPECT_TRUE(ids.insert(d.dispatch_id).second) << "dispatch delivered twice";
  }
}

TEST(Captures, CounterCollection19Columns) {
  for (const std::string& rel : {k_pmc, k_docs_counters}) {
    SCOPED_TRACE(rel);
    VectorSink sink;
    read_file(capture(rel), sink);
    expect_counters_match(sink, independent_counters(test::simple_read(capture(rel))));
  }
  VectorSink sink;
  read_file(capture(k_pmc), sink);
  EXPECT_EQ(sink.counters.size(), 3240u);
  EXPECT_EQ(sink.dispatches[0].pid, 1122884);  // Process_Id column
  EXPECT_EQ(sink.dispatches[0].grid_x, 10240);
  EXPECT_EQ(sink.dispatches[0].wg_x, 256);
  // Every counter row comes after its dispatch.
  std::set<int64_t> delivered;
  size_t di = 0;
  for (const auto& e : sink.events) {
    if (e.rfind("dispatch ", 0) == 0) delivered.insert(sink.dispatches[di++].dispatch_id);
  }
  EXPECT_EQ(delivered.size(), sink.dispatches.size());
}

// Writes `t` back as rocprofv3 would (strings quoted) after `edit` changed header and rows.
std::string write_like_rocprofv3(const test::SimpleTable& t, const std::set<int>& quoted_cols) {
  std::string out;
  auto emit = [&](const std::vector<std::string>& r, bool header) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) out += ',';
      bool q = header || quoted_cols.count(static_cast<int>(i));
      out += q ? "\"" + r[i] + "\"" : r[i];
    }
    out += '\n';
  };
  emit(t.header, true);
  for (const auto& r : t.rows) emit(r, false);
  return out;
}

TEST(Captures, CounterCollection18ColumnsAndLeadingPidVariants) {
  auto t = test::simple_read(capture(k_pmc));
  auto theirs = independent_counters(t);
  auto write_file = [](const std::string& name, const std::string& text) {
    auto p = fs::temp_directory_path() / ("kprof_ingest_" + name);
    std::ofstream(p) << text;
    return p.string();
  };
  // 6.4 layout: no Accum_VGPR_Count.
  {
    auto u = t;
    int agpr = u.col("Accum_VGPR_Count");
    u.header.erase(u.header.begin() + agpr);
    for (auto& r : u.rows) r.erase(r.begin() + agpr);
    ASSERT_EQ(u.header.size(), 18u);
    std::set<int> q{u.col("Agent_Id"), u.col("Kernel_Name"), u.col("Counter_Name")};
    VectorSink sink;
    read_file(write_file("18_counter_collection.csv", write_like_rocprofv3(u, q)), sink);
    expect_counters_match(sink, theirs);
    EXPECT_FALSE(sink.dispatches[0].agpr.has_value());
  }
  // rocpd-converted: leading "Pid", and some releases' case ("Lds_Block_Size", "Vgpr_Count").
  {
    auto u = t;
    u.header.insert(u.header.begin(), "Pid");
    for (auto& h : u.header) {
      if (h == "LDS_Block_Size") h = "Lds_Block_Size";
      if (h == "VGPR_Count") h = "Vgpr_Count";
    }
    int pid = u.col("Process_Id");
    u.header.erase(u.header.begin() + pid);
    for (auto& r : u.rows) {
      r.insert(r.begin(), "777");
      r.erase(r.begin() + pid);
    }
    std::set<int> q{u.col("Agent_Id"), u.col("Kernel_Name"), u.col("Counter_Name")};
    VectorSink sink;
    read_file(write_file("out_counter_collection.csv", write_like_rocprofv3(u, q)), sink);
    expect_counters_match(sink, theirs);
    EXPECT_EQ(sink.dispatches[0].pid, 777);
    EXPECT_EQ(sink.counters[0].pid, 777);
  }
  // rocpd-converted kernel trace: leading "Guid".
  {
    auto k = test::simple_read(capture(k_gemma));
    k.header.insert(k.header.begin(), "Guid");
    for (auto& r : k.rows) r.insert(r.begin(), "00000000-0000-0000-0000-000000000001");
    std::set<int> q{0, k.col("Kind"), k.col("Agent_Id"), k.col("Kernel_Name")};
    VectorSink sink;
    read_file(write_file("out_kernel_trace.csv", write_like_rocprofv3(k, q)), sink);
    auto mine = totals_of(sink.dispatches);
    auto theirs_k = independent_totals(capture(k_gemma));
    EXPECT_EQ(mine.calls, theirs_k.calls);
    EXPECT_EQ(mine.total_ns, theirs_k.total_ns);
  }
}

TEST(Captures, AgentInfoStatsAndApiTraces) {
  VectorSink agents;
  read_file(capture(k_component + "component-m8_agent_info.csv"), agents);
  ASSERT_EQ(agents.agents.size(), 4u);
  EXPECT_EQ(agents.agents[2].name, "gfx1201");
  EXPECT_EQ(agents.agents[2].type, "GPU");
  EXPECT_EQ(agents.agents[2].cu_count, 64);
  EXPECT_EQ(agents.agents[2].wave_front_size, 32);
  EXPECT_EQ(agents.agents[2].max_engine_clk_mhz, 2350);
  EXPECT_EQ(agents.agents[0].product_name, "AMD Ryzen Threadripper PRO 3995WX 64-Cores");

  VectorSink domain;
  auto r = read_file(capture("uLLM-project/2026-07-26/sq8-r9700-attention-phase1-v0.1/decode/"
                             "default-trace/rocprof/sq8-attention-decode-default_domain_stats.csv"),
                     domain);
  EXPECT_EQ(r.kind, "domain_stats");
  ASSERT_FALSE(domain.stats.empty());
  EXPECT_EQ(domain.stats[1].name, "KERNEL_DISPATCH");
  EXPECT_EQ(domain.stats[1].calls, 21824);
  EXPECT_EQ(domain.stats[1].total_ns, 964429009);

  const std::string moe = "uLLM-project/2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/moe_";
  VectorSink hip;
  r = read_file(capture(moe + "hip_api_trace.csv"), hip);
  EXPECT_EQ(r.kind, "hip_api_trace");
  EXPECT_EQ(hip.apis.size(), 140u);
  EXPECT_EQ(hip.apis[0].function, "hipGetDeviceCount");
  EXPECT_EQ(hip.apis[0].pid, 3363673);
  VectorSink copies;
  read_file(capture(moe + "memory_copy_trace.csv"), copies);
  EXPECT_EQ(copies.copies.size(), 31u);
  EXPECT_EQ(copies.copies[0].src_agent, 0);
  EXPECT_EQ(copies.copies[0].dst_agent, 2);
  EXPECT_EQ(copies.copies[0].direction, "MEMORY_COPY_HOST_TO_DEVICE");

  // The one rocprofv3 CSV kind that used to be refused: 12 allocations (4 on the CPU agent 0, 8 on
  // the GPU agent 2) and 11 frees, whose Agent_Id rocprofv3 leaves empty.
  VectorSink allocs;
  r = read_file(capture(moe + "memory_allocation_trace.csv"), allocs);
  EXPECT_EQ(r.kind, "memory_allocation_trace");
  EXPECT_EQ(r.rows_rejected, 0);
  ASSERT_EQ(allocs.allocs.size(), 23u);
  const auto& first = allocs.allocs[0];
  EXPECT_EQ(first.operation, "MEMORY_ALLOCATION_ALLOCATE");
  EXPECT_EQ(first.agent, 0);
  EXPECT_EQ(first.size_bytes, 4194304);
  EXPECT_EQ(first.address, "0x000074a5da000000");
  EXPECT_EQ(first.correlation_id, 1);
  EXPECT_EQ(first.start_ns, 144007985926304);
  EXPECT_EQ(first.end_ns, 144007987763073);
  int frees = 0, on_gpu = 0;
  for (const auto& a : allocs.allocs) {
    if (a.operation == "MEMORY_ALLOCATION_FREE") {
      ++frees;
      EXPECT_FALSE(a.agent);
      EXPECT_EQ(a.size_bytes, 0);
    }
    on_gpu += a.agent == 2;
  }
  EXPECT_EQ(frees, 11);
  EXPECT_EQ(on_gpu, 8);
}

}  // namespace
}  // namespace kprof::ingest
