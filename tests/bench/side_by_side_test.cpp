// The harness every bench reports through: medians with their spread, ratios taken round by round
// (the median of the per-round ratios), and the order the rounds run in. Every expected figure is
// worked out by hand from the inputs written here.
#include "bench/harness/side_by_side.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kprof::bench {
namespace {

TEST(BenchHarness, SummaryIsTheMedianWithTheLowestAndHighest) {
  const Summary odd = summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.n, 3u);
  EXPECT_DOUBLE_EQ(odd.median, 2.0);
  EXPECT_DOUBLE_EQ(odd.lo, 1.0);
  EXPECT_DOUBLE_EQ(odd.hi, 3.0);
  // An even count: the mean of the two middle figures, (2 + 3) / 2.
  const Summary even = summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.lo, 1.0);
  EXPECT_DOUBLE_EQ(even.hi, 4.0);
}

TEST(BenchHarness, FailedRunsAreLeftOutOfASummary) {
  const Summary s = summarize({0.0, 5.0, NAN, 1.0, -1.0});
  EXPECT_EQ(s.n, 2u);
  EXPECT_DOUBLE_EQ(s.median, 3.0);  // (1 + 5) / 2
  EXPECT_EQ(summarize({}).n, 0u);
  EXPECT_DOUBLE_EQ(summarize({}).median, 0.0);
}

TEST(BenchHarness, RatioIsTheMedianOfThePerRoundRatiosNotOfTheBests) {
  // Round by round: 1/2 = 0.5, 2/1 = 2, 2/1 = 2 -> median 2. The ratio of the best runs of each
  // (1 / 1 = 1) pairs A's first round with B's second and would say they are equal.
  const Summary r = paired_ratio({1.0, 2.0, 2.0}, {2.0, 1.0, 1.0});
  EXPECT_EQ(r.n, 3u);
  EXPECT_DOUBLE_EQ(r.median, 2.0);
  EXPECT_DOUBLE_EQ(r.lo, 0.5);
  EXPECT_DOUBLE_EQ(r.hi, 2.0);
}

TEST(BenchHarness, ARoundWhereEitherFailedGivesNoRatio) {
  // Round 2 failed for A (0) and round 4 exists for B only: 1/2 = 0.5 and 3/3 = 1 remain.
  const Summary r = paired_ratio({1.0, 0.0, 3.0}, {2.0, 5.0, 3.0, 7.0});
  EXPECT_EQ(r.n, 2u);
  EXPECT_DOUBLE_EQ(r.median, 0.75);
  EXPECT_DOUBLE_EQ(r.lo, 0.5);
  EXPECT_DOUBLE_EQ(r.hi, 1.0);
}

TEST(BenchHarness, ContenderRatiosPairRunsOfTheSameRound) {
  Contender a, b;
  a.runs = {{2.0, 1.0, 10, true}, {4.0, 3.0, 10, false}, {3.0, 1.5, 12, true}};
  b.runs = {{4.0, 2.0, 20, true}, {4.0, 2.0, 20, true}, {2.0, 3.0, 20, true}};
  // Wall: round 1 2/4 = 0.5, round 2 dropped (A failed), round 3 3/2 = 1.5 -> median 1.
  const Summary w = wall_ratio(a, b);
  EXPECT_EQ(w.n, 2u);
  EXPECT_DOUBLE_EQ(w.median, 1.0);
  // CPU: 1/2 = 0.5 and 1.5/3 = 0.5.
  EXPECT_DOUBLE_EQ(cpu_ratio(a, b).median, 0.5);
  EXPECT_DOUBLE_EQ(a.wall().median, 2.5);  // (2 + 3) / 2, the failed run left out
  EXPECT_DOUBLE_EQ(a.peak_rss_mb(), 12.0);
}

TEST(BenchHarness, RoundsRunEveryContenderOnceInTheSameOrder) {
  std::vector<std::string> order;
  std::vector<Contender> cs(2);
  cs[0].label = "A";
  cs[1].label = "B";
  for (auto& c : cs) {
    c.timed = [] { return 0.001; };
    c.before = [&order, label = c.label] { order.push_back(label); };
  }
  interleave(cs, 3, true);
  // One warm-up round (not recorded), then three: A B, A B, A B.
  EXPECT_EQ(order, (std::vector<std::string>{"A", "B", "A", "B", "A", "B", "A", "B"}));
  ASSERT_EQ(cs[0].runs.size(), 3u);
  ASSERT_EQ(cs[1].runs.size(), 3u);
  for (const auto& c : cs)
    for (const auto& r : c.runs) EXPECT_TRUE(r.ok);
}

}  // namespace
}  // namespace kprof::bench
