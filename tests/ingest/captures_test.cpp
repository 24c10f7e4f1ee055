// Every rocprofv3 CSV among the real captures in tests/data/captures (tests/data/SOURCES.md lists
// repo, path and commit of each) ingests without a rejected row, and what the readers deliver
// matches counts computed independently (independent_csv.hpp) and rocprofv3's own kernel_stats.csv.
// (Counter collection, agent info, stats and API traces: captures_formats_test.cpp.)
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
using test::k_aq4;
using test::k_captures;
using test::k_component;
using test::k_docs_trace;
using test::k_flydsl;
using test::k_gemma;
using test::k_pmc;
using test::totals_of;
using test::VectorSink;

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
  // one (counted in the capture files themselves; see tests/data/SOURCES.md for their origin).
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

// The same file in random chunk sizes (seeded) — and pipelined on a second thread — gives
// identical rows.
// The provenance hash is taken from the bytes the reader reads (one pass over the file), whatever
// the chunk size and whether parsing runs on a second thread. Expected values: the sha256 prefixes
// tests/data/SOURCES.md lists for these files (computed there from the upstream blobs).
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
