// The trace reads `kprof plan` and `run` decide on (analysis_reads.hpp): per-kernel totals with
// each name read once (kernel_name_totals) and the launch sequence as integers
// (for_each_variant_launch), on a real SQLite file with rows written here; each expectation is
// derived from the rows in the comment beside it.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "core/store/analysis_reads.hpp"
#include "loader_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

// testing::dispatch(id, name, pid): kernel_id 10 + id % 3, start 1'000'000 + 100 id, end start +
// 40 + id (a duration of 40 + id), grid 1024x2x3.
void load(CaptureDb& db, int64_t pass, const std::vector<DispatchRow>& rows) {
  PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  for (const auto& d : rows) loader.dispatch(d);
  loader.end_file(static_cast<int64_t>(rows.size()));
  loader.commit();
}

TEST(KernelNameTotals, OneRowPerNameOverEveryVariantOfItInThePassOnly) {
  TempDir dir;
  CaptureDb db(dir / "t.db");
  const int64_t run = testing::make_run(db);
  const int64_t trace = testing::make_pass(db, run, 0);
  const int64_t other = testing::make_pass(db, run, 1, PassKind::counters);
  // gemm in two variants: ids 1 and 4 are kernel 11 with one shape (in processes 9 and 7), id 3
  // is kernel 10 with a wider grid; norm and attn once each.
  DispatchRow wide = testing::dispatch(3, "gemm", 9);
  wide.grid_x = 4096;
  load(db, trace,
       {testing::dispatch(1, "gemm", 9), testing::dispatch(2, "norm", 9), wide,
        testing::dispatch(4, "gemm", 7), testing::dispatch(5, "attn", 7)});
  load(db, other, {testing::dispatch(6, "gemm", 9)});  // another pass: not in trace's totals

  const auto t = kernel_name_totals(db, trace);
  ASSERT_EQ(t.size(), 3u);  // by name: attn, gemm, norm
  EXPECT_EQ(t[0].name, "attn");
  EXPECT_EQ(t[0].calls, 1);
  EXPECT_EQ(t[0].total_ns, 45);  // 40 + 5
  EXPECT_EQ(t[1].name, "gemm");
  EXPECT_EQ(t[1].calls, 3);
  EXPECT_EQ(t[1].total_ns, 41 + 43 + 44);
  EXPECT_EQ(t[2].name, "norm");
  EXPECT_EQ(t[2].calls, 1);
  EXPECT_EQ(t[2].total_ns, 42);

  const auto o = kernel_name_totals(db, other);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].name, "gemm");
  EXPECT_EQ(o[0].calls, 1);
  EXPECT_EQ(o[0].total_ns, 46);

  const int64_t empty = testing::make_pass(db, run, 2, PassKind::counters);
  EXPECT_TRUE(kernel_name_totals(db, empty).empty());
}

TEST(VariantLaunches, TheListedVariantsInPidDispatchOrder) {
  TempDir dir;
  CaptureDb db(dir / "t.db");
  const int64_t run = testing::make_run(db);
  const int64_t pass = testing::make_pass(db, run, 0);
  // Loaded (9, 4), (7, 6), (9, 2), (9, 7): in (pid, Dispatch_Id) order (7, 6), (9, 2), (9, 4),
  // (9, 7). Kernel ids 10 + id % 3: 10 for ids 6, 12 for id 2, 11 for ids 4 and 7.
  load(db, pass,
       {testing::dispatch(4, "gemm", 9), testing::dispatch(6, "norm", 7),
        testing::dispatch(2, "gemm", 9), testing::dispatch(7, "gemm", 9)});
  std::map<int64_t, int64_t> variant_of;  // kernel id -> variant id (one shape each)
  for_each_kernel_variant(db, pass,
                          [&](const KernelVariant& v) { variant_of[v.shape.kernel_id] = v.id; });
  ASSERT_EQ(variant_of.size(), 3u);
  auto launches = [&](std::vector<int64_t> only) {
    std::vector<int64_t> got;
    for_each_variant_launch(db, pass, only, [&](int64_t v) { got.push_back(v); });
    return got;
  };
  EXPECT_EQ(launches({variant_of[10], variant_of[11], variant_of[12]}),
            (std::vector<int64_t>{variant_of[10], variant_of[12], variant_of[11], variant_of[11]}));
  // Only kernel 11's variant: ids 4 and 7 of pid 9.
  EXPECT_EQ(launches({variant_of[11]}), (std::vector<int64_t>{variant_of[11], variant_of[11]}));
  EXPECT_TRUE(launches({}).empty());
}

// The loader writes dispatch rows in multi-row INSERTs of up to 256 rows and the rest at commit:
// 1,000 rows (three full INSERTs and a remainder of 231, or more smaller ones on an SQLite with a
// lower parameter limit), one of them refused (it ends before it starts), are 999 stored rows,
// each with its own values, read back in (pid, Dispatch_Id) order.
TEST(DispatchStreams, ManyRowsAreStoredOnceEachAndCountedPerProcessAndAgent) {
  TempDir dir;
  CaptureDb db(dir / "t.db");
  const int64_t run = testing::make_run(db);
  const int64_t pass = testing::make_pass(db, run, 0);
  // Ids 1..1000; ids 1..600 in pid 9, the rest in pid 7; agent 2, and agent 3 for ids divisible
  // by 10 in pid 7 (610, 620, ..., 1000: 40 of them). Id 500 ends before it starts.
  std::vector<DispatchRow> rows;
  for (int64_t id = 1; id <= 1000; ++id) {
    DispatchRow d = testing::dispatch(id, id % 2 ? "gemm" : "norm", id <= 600 ? 9 : 7);
    if (d.pid == 7 && id % 10 == 0) d.agent = 3;
    if (id == 500) d.end_ns = d.start_ns - 1;
    rows.push_back(d);
  }
  load(db, pass, rows);
  EXPECT_EQ(dispatch_count(db, pass), 999);
  const auto streams = dispatch_streams(db, pass);
  ASSERT_EQ(streams.size(), 3u);  // (7, 2): 400 - 40 = 360; (7, 3): 40; (9, 2): 600 - 1 = 599
  EXPECT_EQ(std::make_tuple(streams[0].pid, streams[0].agent, streams[0].dispatches),
            std::make_tuple(int64_t{7}, int64_t{2}, int64_t{360}));
  EXPECT_EQ(std::make_tuple(streams[1].pid, streams[1].agent, streams[1].dispatches),
            std::make_tuple(int64_t{7}, int64_t{3}, int64_t{40}));
  EXPECT_EQ(std::make_tuple(streams[2].pid, streams[2].agent, streams[2].dispatches),
            std::make_tuple(int64_t{9}, int64_t{2}, int64_t{599}));
  // In (pid, Dispatch_Id) order: pid 7's ids 601..1000, then pid 9's 1..600 without 500, each
  // with the values testing::dispatch gave it.
  std::vector<int64_t> want_ids;
  for (int64_t id = 601; id <= 1000; ++id) want_ids.push_back(id);
  for (int64_t id = 1; id <= 600; ++id)
    if (id != 500) want_ids.push_back(id);
  std::vector<int64_t> got_ids;
  DispatchTimingReader reader(db, pass);
  DispatchTiming t;
  while (reader.next(t)) {
    got_ids.push_back(t.dispatch_id);
    const DispatchRow& d = rows[static_cast<size_t>(t.dispatch_id - 1)];
    EXPECT_EQ(t.pid, d.pid);
    EXPECT_EQ(t.agent, d.agent);
    EXPECT_EQ(t.queue_id, 5);
    EXPECT_EQ(t.start_ns, 1'000'000 + 100 * t.dispatch_id);
    EXPECT_EQ(t.end_ns, t.start_ns + 40 + t.dispatch_id);
  }
  EXPECT_FALSE(reader.next(t));  // stays at its end
  EXPECT_EQ(got_ids, want_ids);
  // Every column of every stored row, through the dispatches view (in the same order).
  const auto back = testing::read_dispatches(db, pass);
  ASSERT_EQ(back.size(), want_ids.size());
  for (size_t k = 0; k < back.size(); ++k) {
    EXPECT_EQ(back[k].dispatch_id, want_ids[k]);
    EXPECT_TRUE(testing::same(back[k], rows[static_cast<size_t>(want_ids[k] - 1)]))
        << "dispatch " << want_ids[k];
  }
}

}  // namespace
}  // namespace kprof::store
