// The analysis' reads and stored results through the store (analysis_reads.hpp,
// analysis_results.hpp): what is written is read back field for field, streamed in the order
// promised, and a writer never waits for another connection's write lock. The rows are made up
// here; each expectation is derived from them in the comment beside it.
#include <gtest/gtest.h>

#include "core/store/analysis_reads.hpp"
#include "core/store/analysis_results.hpp"
#include "loader_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

// Two processes (pid 9 and 7), three dispatches, two kernels; the third has no register counts.
int64_t load_small_trace(CaptureDb& db, int64_t run) {
  const int64_t pass = testing::make_pass(db, run, 0);
  PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  loader.dispatch(testing::dispatch(5, "gemm", 9));
  loader.dispatch(testing::dispatch(2, "gemm", 9));
  DispatchRow bare = testing::dispatch(3, "norm", 7);
  bare.vgpr = bare.agpr = bare.sgpr = std::nullopt;
  loader.dispatch(bare);
  loader.end_file(3);
  loader.commit();
  return pass;
}

TEST(AnalysisReads, VariantsTimingsAndCountsOfAPass) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t pass = load_small_trace(db, testing::make_run(db));

  // testing::dispatch gives kernel_id 10 + id % 3: ids 5 and 2 are both kernel 12 "gemm" with
  // the same shape (one variant), id 3 is kernel 10 "norm" without registers (a second one).
  std::vector<KernelVariant> variants;
  for_each_kernel_variant(db, pass, [&](const KernelVariant& v) { variants.push_back(v); });
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_LT(variants[0].id, variants[1].id);
  EXPECT_EQ(variants[0].shape.kernel_name, "gemm");
  EXPECT_EQ(variants[0].shape.kernel_id, 12);
  EXPECT_EQ(variants[0].shape.vgpr, std::optional<int64_t>(128));
  EXPECT_EQ(variants[1].shape.kernel_name, "norm");
  EXPECT_FALSE(variants[1].shape.vgpr.has_value());
  EXPECT_FALSE(variants[1].shape.sgpr.has_value());

  // (pid, Dispatch_Id) order: (7, 3), (9, 2), (9, 5); start 1'000'000 + 100 id, end start + 40 +
  // id.
  DispatchTimingReader rows(db, pass);
  std::vector<DispatchTiming> got;
  for (DispatchTiming r; rows.next(r);) got.push_back(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].pid, 7);
  EXPECT_EQ(got[0].dispatch_id, 3);
  EXPECT_EQ(got[0].variant_id, variants[1].id);
  EXPECT_EQ(got[1].dispatch_id, 2);
  EXPECT_EQ(got[2].dispatch_id, 5);
  EXPECT_EQ(got[2].variant_id, variants[0].id);
  EXPECT_EQ(got[2].start_ns, 1'000'500);
  EXPECT_EQ(got[2].end_ns, 1'000'545);
  EXPECT_EQ(got[2].agent, 2);
  EXPECT_EQ(got[2].queue_id, 5);

  EXPECT_EQ(dispatch_count(db, pass), 3);
  const auto streams = dispatch_streams(db, pass);  // both processes on agent 2
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].pid, 7);
  EXPECT_EQ(streams[0].dispatches, 1);
  EXPECT_EQ(streams[1].pid, 9);
  EXPECT_EQ(streams[1].dispatches, 2);
  int64_t total = 0;  // durations 40 + id: 45 + 42 + 43
  for_each_variant_duration(db, pass, [&](int64_t, int64_t ns) { total += ns; });
  EXPECT_EQ(total, 130);
}

StoredJoin a_join(int64_t counter, int64_t trace) {
  StoredJoin j;
  j.counter_pass_id = counter;
  j.trace_pass_id = trace;
  j.counter_dispatches = 2;
  j.trace_dispatches = 3;
  j.trace_considered = 2;
  j.matched = 1;
  j.matched_share = 0.5;
  j.filtered = true;
  j.streams = 1;
  JoinProof p;
  p.method = JoinMethod::offset;
  p.reliable = false;
  p.jumps = 2;
  p.id_offset = -4;
  j.proof = p;
  return j;
}

TEST(AnalysisResults, AJoinIsReadBackAndReplaced) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t run = testing::make_run(db);
  const int64_t trace = load_small_trace(db, run);
  const int64_t counter = testing::make_pass(db, run, 1, PassKind::counters);
  EXPECT_FALSE(read_join(db, counter).has_value());
  {
    WriteTransaction tx(db);
    JoinWriter w(db, counter);
    w.pair({9, 1}, trace, {9, 5});
    w.unmatched_counter({9, 2});
    w.unmatched_trace({7, 3});
    w.unmatched_trace({9, 2});
    w.finish(a_join(counter, trace), {{counter, "c files\n"}, {trace, "t files\n"}});
    tx.commit();
  }
  const auto j = read_join(db, counter);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->trace_pass_id, trace);
  EXPECT_EQ(j->matched_share, 0.5);
  EXPECT_TRUE(j->filtered);
  EXPECT_EQ(j->unmatched_counter, 1);
  EXPECT_EQ(j->unmatched_trace, 2);
  ASSERT_TRUE(j->proof.has_value());
  EXPECT_EQ(j->proof->method, JoinMethod::offset);
  EXPECT_FALSE(j->proof->reliable);
  EXPECT_EQ(j->proof->id_offset, -4);
  EXPECT_EQ(join_files(db, counter, trace), std::optional<std::string>("t files\n"));
  EXPECT_FALSE(join_files(db, counter, counter + 100).has_value());
  int pairs = 0;
  for_each_join_pair(db, counter, trace, [&](DispatchKey c, DispatchKey t) {
    ++pairs;
    EXPECT_EQ(c.dispatch_id, 1);
    EXPECT_EQ(t.dispatch_id, 5);
  });
  EXPECT_EQ(pairs, 1);
  // A second writer of the same pass replaces every row.
  EXPECT_TRUE(try_write_now(db, [&] {
    JoinWriter w(db, counter);
    w.finish(a_join(counter, trace), {});
    return true;
  }));
  EXPECT_EQ(read_join(db, counter)->unmatched_trace, 0);
  EXPECT_FALSE(join_files(db, counter, trace).has_value());
  pairs = 0;
  for_each_join_pair(db, counter, trace, [&](DispatchKey, DispatchKey) { ++pairs; });
  EXPECT_EQ(pairs, 0);
}

TEST(AnalysisResults, AnOutlineIsReadBackOnlyAtItsVersion) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t trace = load_small_trace(db, testing::make_run(db));
  WriteTransaction tx(db);
  replace_outline(db, trace, {3, "gfx942", "MI300X", 9, 2}, {{trace, 3, 1'000'200, 1, "f\n"}},
                  {{2, "prefill", 1, 10, 20, 2, 0}, {5, "decode", 2, 20, 30, 1, 0}});
  tx.commit();
  EXPECT_FALSE(read_outline_head(db, trace, 2).has_value());
  const auto head = read_outline_head(db, trace, 3);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->product, "MI300X");
  const auto passes = read_outline_passes(db, trace);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].reorder_window, 1);
  std::vector<std::string> phases;
  for_each_outline_segment(db, trace, [&](const StoredSegment& s) { phases.push_back(s.phase); });
  EXPECT_EQ(phases, (std::vector<std::string>{"prefill", "decode"}));
}

// While another connection holds the write lock, try_write_now returns false at once and runs
// nothing; once the lock is free it writes.
TEST(AnalysisResults, TryWriteNowNeverWaitsForAnotherWriter) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t trace = load_small_trace(db, testing::make_run(db));
  CaptureDb other(dir / "c.db");
  bool ran = false;
  {
    WriteTransaction holder(other);
    EXPECT_FALSE(try_write_now(db, [&] { return ran = true; }));
  }
  EXPECT_FALSE(ran);
  EXPECT_TRUE(try_write_now(db, [&] {
    replace_outline(db, trace, {3, "", "", 0, 0}, {}, {});
    return true;
  }));
  EXPECT_TRUE(read_outline_head(db, trace, 3).has_value());
  // A write that declines changes nothing.
  EXPECT_FALSE(try_write_now(db, [&] {
    replace_outline(db, trace, {4, "", "", 0, 0}, {}, {});
    return false;
  }));
  EXPECT_FALSE(read_outline_head(db, trace, 4).has_value());
}

}  // namespace
}  // namespace kprof::store
