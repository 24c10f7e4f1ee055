// Every rocprofv3 CSV among the real captures in ../shared/captures (SOURCES.md there lists repo,
// path and commit of each) ingests without a rejected row, and what the readers deliver matches
// counts computed independently (independent_csv.hpp) and rocprofv3's own kernel_stats.csv.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "core/base/error.hpp"
#include "core/ingest/format.hpp"
#include "core/ingest/read_file.hpp"
#include "tests/ingest/independent_csv.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
using test::VectorSink;

const fs::path k_captures = fs::path(KPROF_SHARED_DIR) / "captures";

std::string capture(const std::string& rel) { return (k_captures / rel).string(); }

const std::string k_aq4 =
    "uLLM-project/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
    "aq4-p3-diagnostic-rocprof-capture-v8/aq4-p3-diagnostic_kernel_trace.csv";
const std::string k_gemma =
    "uLLM-project/2026-07-28/gemma4-reader-attribution-v0.1/raw/rocprof-n128/"
    "homelab1-WRX80-Creator/4108606_kernel_trace.csv";
const std::string k_flydsl = "flydsl-kernel-profiling/pa_mqa_logits_fp4/compute_viewer/discover";
const std::string k_docs_trace = "rocprofiler-sdk-docs/kernel_trace.csv";
const std::string k_docs_counters = "rocprofiler-sdk-docs/counter_collection.csv";
const std::string k_pmc =
    "uLLM-project/2026-07-26/sq8-r9700-attention-phase1-v0.1/decode/pmc/rocprof/"
    "sq8-attention-decode-pmc_counter_collection.csv";
const std::string k_component = "uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler/";

struct KernelTotals {
  std::map<std::string, int64_t> calls, total_ns;
};

KernelTotals totals_of(const std::vector<store::DispatchRow>& rows) {
  KernelTotals t;
  for (const auto& d : rows) {
    ++t.calls[d.kernel_name];
    t.total_ns[d.kernel_name] += d.end_ns - d.start_ns;
  }
  return t;
}

KernelTotals independent_totals(const std::string& path) {
  auto t = test::simple_read(path);
  EXPECT_FALSE(t.has_embedded_quote) << path;
  int name = t.col("Kernel_Name"), start = t.col("Start_Timestamp"), end = t.col("End_Timestamp");
  KernelTotals k;
  for (const auto& r : t.rows) {
    ++k.calls[r[static_cast<size_t>(name)]];
    k.total_ns[r[static_cast<size_t>(name)]] +=
        std::stoll(r[static_cast<size_t>(end)]) - std::stoll(r[static_cast<size_t>(start)]);
  }
  return k;
}

TEST(Captures, EveryRocprofv3CsvIngestsWithoutRejects) {
  ASSERT_TRUE(fs::is_directory(k_captures)) << k_captures;
  int files = 0;
  std::set<Format> seen;
  for (const auto& e : fs::recursive_directory_iterator(k_captures)) {
    if (!e.is_regular_file() || e.path().extension() != ".csv") continue;
    auto format = format_from_name(e.path().string());
    if (!format) continue;  // omniperf's rocprofv2 files
    SCOPED_TRACE(e.path().string());
    VectorSink sink;
    FileResult r = read_file(e.path().string(), sink);
    auto t = test::simple_read(e.path().string());
    EXPECT_EQ(r.rows_read, static_cast<int64_t>(t.rows.size()));
    EXPECT_EQ(r.rows_rejected, 0);
    EXPECT_TRUE(sink.bad.empty());
    ASSERT_EQ(sink.ends.size(), 1u);
    EXPECT_EQ(sink.ends[0], r.rows_read);
    seen.insert(*format);
    ++files;
  }
  EXPECT_GE(files, 60);
  EXPECT_EQ(seen.size(), 7u);  // every CSV format kprof reads occurs among the captures
}

TEST(Captures, KernelTrace7xMatchesIndependentCountsAndRocprofStats) {
  for (const std::string& rel : {k_aq4, k_gemma, k_flydsl + "_kernel_trace.csv"}) {
    SCOPED_TRACE(rel);
    VectorSink sink;
    read_file(capture(rel), sink);
    auto mine = totals_of(sink.dispatches);
    auto theirs = independent_totals(capture(rel));
    EXPECT_EQ(mine.calls, theirs.calls);
    EXPECT_EQ(mine.total_ns, theirs.total_ns);
    for (const auto& d : sink.dispatches) {
      EXPECT_TRUE(d.dims_known);
      EXPECT_TRUE(d.vgpr && d.agpr && d.sgpr);
      EXPECT_EQ(d.agent, 2);  // "Agent 2" in all three captures
    }
  }
  // Exact figures, pinned: 12,263 dispatches in the Qwen3.5 AQ4 capture, 24,349 in the Gemma-4
  // one (counted in the capture files themselves; see shared/captures/SOURCES.md for their origin).
  VectorSink aq4, gemma;
  read_file(capture(k_aq4), aq4);
  read_file(capture(k_gemma), gemma);
  EXPECT_EQ(aq4.dispatches.size(), 12263u);
  EXPECT_EQ(gemma.dispatches.size(), 24349u);
  EXPECT_EQ(gemma.dispatches[0].pid, 4108606);  // from the %pid% file prefix
  EXPECT_EQ(aq4.dispatches[0].pid, 0);          // "-o" prefix: no pid known

  // rocprofv3's own kernel_stats.csv of the same run agrees on calls and total per kernel.
  for (const std::string& prefix :
       {k_flydsl, k_component + "component-m8", k_component + "component-m8-evicted"}) {
    SCOPED_TRACE(prefix);
    VectorSink trace, stats;
    read_file(capture(prefix + "_kernel_trace.csv"), trace);
    read_file(capture(prefix + "_kernel_stats.csv"), stats);
    auto mine = totals_of(trace.dispatches);
    ASSERT_EQ(stats.stats.size(), mine.calls.size());
    for (const auto& s : stats.stats) {
      EXPECT_EQ(mine.calls[s.name], s.calls) << s.name;
      EXPECT_EQ(mine.total_ns[s.name], s.total_ns) << s.name;
    }
  }
}

TEST(Captures, KernelTraceEarlyLayoutWithBareAgents) {
  // rocprofiler-sdk source/docs/data/kernel_trace.csv: Private/Group_Segment_Size, no GPR columns.
  VectorSink sink;
  read_file(capture(k_docs_trace), sink);
  ASSERT_EQ(sink.dispatches.size(), 8u);
  auto mine = totals_of(sink.dispatches);
  auto theirs = independent_totals(capture(k_docs_trace));
  EXPECT_EQ(mine.calls, theirs.calls);
  EXPECT_EQ(mine.total_ns, theirs.total_ns);
  const auto& d = sink.dispatches[0];
  EXPECT_EQ(d.agent, 2);
  EXPECT_EQ(d.kernel_name,
            "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(d.start_ns, 2414192765353337);
  EXPECT_EQ(d.grid_x, 1024);
  EXPECT_EQ(d.grid_y, 1024);
  EXPECT_EQ(d.wg_x, 64);
  EXPECT_FALSE(d.vgpr.has_value());
  EXPECT_EQ(sink.dispatches[4].stream_id, 2);
}

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

// The same file in random chunk sizes (seeded) — and pipelined on a second thread — gives
// identical rows.
// The provenance hash is taken from the bytes the reader reads (one pass over the file), whatever
// the chunk size and whether parsing runs on a second thread. Expected values: the sha256 prefixes
// ../shared/captures/SOURCES.md lists for these files (computed there from the upstream blobs).
TEST(Captures, DigestOfTheBytesReadMatchesTheSourcesList) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {k_gemma, "8f2e677fa1775f3a"}, {k_aq4, "a9833a65cffd6cbc"}, {k_pmc, "c5a4ad60ea48251c"}};
  for (const auto& [rel, prefix] : files) {
    for (size_t chunk : {size_t{1} << 20, size_t{4097}}) {
      for (bool pipelined : {false, true}) {
        VectorSink sink;
        ReadOptions o;
        o.chunk_bytes = chunk;
        o.pipelined = pipelined;
        read_file(capture(rel), sink, o);
        ASSERT_EQ(sink.digests.size(), 1u) << rel;
        EXPECT_EQ(sink.digests[0].first, static_cast<int64_t>(fs::file_size(capture(rel))));
        EXPECT_EQ(sink.digests[0].second.substr(0, 16), prefix) << rel << " chunk " << chunk;
        EXPECT_EQ(sink.digests[0].second.size(), 64u);
      }
    }
  }
}

TEST(Captures, RandomChunkSizesAndPipeliningGiveIdenticalRows) {
  for (const std::string& rel : {k_flydsl + "_kernel_trace.csv", k_pmc, k_docs_trace}) {
    SCOPED_TRACE(rel);
    std::ifstream in(capture(rel), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto format = *format_from_name(rel);
    VectorSink whole;
    read_csv_chunks(format, "f.csv", "k", {text}, whole, {});
    std::mt19937 rng(20261202);
    for (int trial = 0; trial < 20; ++trial) {
      std::uniform_int_distribution<size_t> size(1, trial < 10 ? 64 : 8192);
      std::vector<std::string_view> chunks;
      for (size_t i = 0; i < text.size();) {
        size_t n = std::min(size(rng), text.size() - i);
        chunks.push_back(std::string_view(text).substr(i, n));
        i += n;
      }
      VectorSink s;
      read_csv_chunks(format, "f.csv", "k", chunks, s, {});
      ASSERT_EQ(s.events, whole.events) << "trial " << trial;
    }
    for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}}) {
      ReadOptions o;
      o.chunk_bytes = chunk;
      o.pipelined = true;
      o.pid = 0;
      VectorSink s;
      read_file(capture(rel), format, s, o);
      ASSERT_EQ(s.events.size(), whole.events.size());
      // Same rows; only the file name in begin differs.
      for (size_t i = 1; i < s.events.size(); ++i) ASSERT_EQ(s.events[i], whole.events[i]);
    }
  }
}

}  // namespace
}  // namespace kprof::ingest
