// The processes and ranks of a pass (pass_ranks.hpp): counted as the loader stores dispatches,
// replaced by a later load of the same pass, rolled back with a failed load, and read as ranks by
// the rule of 0010_pass_ranks.sql. The rows are made up here; each expectation is derived from them
// in the comment beside it.
#include <gtest/gtest.h>

#include "core/store/pass_ranks.hpp"
#include "loader_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

DispatchRow on(int64_t id, int64_t pid, int64_t agent) {
  DispatchRow d = testing::dispatch(id, "gemm", pid);
  d.agent = agent;
  return d;
}

// pid 40 (an API process) launches 2 kernels on agent 2; pid 41 launches 3 there and 1 on agent 5;
// pid 42 launches 4 on agent 3.
void load_tp_pass(CaptureDb& db, int64_t pass, int64_t first_id = 1) {
  PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  int64_t id = first_id;
  for (int i = 0; i < 2; ++i) loader.dispatch(on(id++, 40, 2));
  for (int i = 0; i < 3; ++i) loader.dispatch(on(id++, 41, 2));
  loader.dispatch(on(id++, 41, 5));
  for (int i = 0; i < 4; ++i) loader.dispatch(on(id++, 42, 3));
  loader.end_file(10);
  loader.commit();
}

TEST(PassRanks, EachGpuAgentIsARankDrivenByItsBusiestProcess) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t pass = testing::make_pass(db, testing::make_run(db), 0);
  load_tp_pass(db, pass);
  // testing::dispatch(id) starts at 1'000'000 + 100 id and ends 40 + id later: pid 40 ran ids
  // 1-2, pid 41 ids 3-5 on agent 2 and 6 on agent 5, pid 42 ids 7-10.
  EXPECT_EQ(pass_processes(db, pass), (std::vector<PassProcess>{{40, 2, 2, 1000100, 1000242},
                                                                {41, 2, 3, 1000300, 1000545},
                                                                {41, 5, 1, 1000600, 1000646},
                                                                {42, 3, 4, 1000700, 1001050}}));
  // Agents 2, 3, 5 in order are ranks 0, 1, 2; agent 2's busiest process is 41 (3 > 2).
  EXPECT_EQ(pass_ranks(db, pass),
            (std::vector<PassRank>{{0, 41, 2, 3}, {1, 42, 3, 4}, {2, 41, 5, 1}}));
}

// A load replaces the pass's rows (the loader deletes them first), and its counts with them: a
// second load of the same processes counts them once, as the dispatch rows it leaves (10).
TEST(PassRanks, ALoadReplacesThePassCountsAndAnotherPassKeepsItsOwn) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t run = testing::make_run(db);
  const int64_t pass = testing::make_pass(db, run, 0);
  load_tp_pass(db, pass, 1);
  load_tp_pass(db, pass, 100);  // the pass loaded again: ids 100-109 replace ids 1-10
  EXPECT_EQ(pass_processes(db, pass), (std::vector<PassProcess>{{40, 2, 2, 1010000, 1010241},
                                                                {41, 2, 3, 1010200, 1010544},
                                                                {41, 5, 1, 1010500, 1010645},
                                                                {42, 3, 4, 1010600, 1011049}}));
  EXPECT_EQ(db.row_counts(pass).dispatches, 10);
  const int64_t other = testing::make_pass(db, run, 1);
  EXPECT_TRUE(pass_ranks(db, other).empty());  // nothing loaded into it
}

TEST(PassRanks, AFailedLoadLeavesNoCounts) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  const int64_t pass = testing::make_pass(db, testing::make_run(db), 0);
  {
    PassLoader loader(db, pass);
    loader.begin_file("kernel_trace.csv", "kernel_trace");
    loader.dispatch(on(1, 40, 2));
    // destroyed without commit: the load rolls back
  }
  EXPECT_TRUE(pass_processes(db, pass).empty());
  EXPECT_TRUE(pass_ranks(db, pass).empty());
}

}  // namespace
}  // namespace kprof::store
