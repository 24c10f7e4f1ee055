#include "core/analysis/structure/align.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kprof::analysis {
namespace {

void expect_valid(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                  const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  for (size_t k = 0; k < pairs.size(); ++k) {
    ASSERT_LT(pairs[k].first, a.size());
    ASSERT_LT(pairs[k].second, b.size());
    EXPECT_EQ(a[pairs[k].first], b[pairs[k].second]);
    if (k) {
      EXPECT_LT(pairs[k - 1].first, pairs[k].first);
      EXPECT_LT(pairs[k - 1].second, pairs[k].second);
    }
  }
}

TEST(Align, IdenticalSequencesMatchEverything) {
  std::vector<uint32_t> a = {1, 2, 3, 1, 2, 3};
  auto p = lcs_pairs(a, a);
  ASSERT_EQ(p.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(p[i], std::make_pair(i, i));
}

TEST(Align, EmptySides) {
  std::vector<uint32_t> a = {1, 2}, e;
  EXPECT_TRUE(lcs_pairs(a, e).empty());
  EXPECT_TRUE(lcs_pairs(e, a).empty());
  EXPECT_TRUE(lcs_pairs(e, e).empty());
}

TEST(Align, ClassicExampleFromMyersPaper) {
  // A = ABCABBA, B = CBABAC: LCS length 4 (Myers 1986, figure 1: D = 5).
  std::vector<uint32_t> a = {'A', 'B', 'C', 'A', 'B', 'B', 'A'};
  std::vector<uint32_t> b = {'C', 'B', 'A', 'B', 'A', 'C'};
  auto p = lcs_pairs(a, b);
  EXPECT_EQ(p.size(), 4u);
  expect_valid(a, b, p);
}

TEST(Align, InsertedAndDeletedKernelsLeaveTheRestMatched) {
  std::vector<uint32_t> trace, counter;
  for (uint32_t i = 0; i < 1000; ++i) trace.push_back(i % 17);
  counter = trace;
  counter.insert(counter.begin() + 10, 99);   // an extra lazy-init kernel
  counter.erase(counter.begin() + 501);       // a kernel the counter pass lacks
  counter.insert(counter.begin() + 800, 98);  // another extra
  auto p = lcs_pairs(trace, counter);
  EXPECT_EQ(p.size(), 999u);
  expect_valid(trace, counter, p);
}

TEST(Align, MatchesTheQuadraticLcsOnRandomSequences) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<int> len(0, 40), sym(0, 1 + round % 6);
    std::vector<uint32_t> a(len(rng)), b(len(rng));
    for (auto& x : a) x = sym(rng);
    for (auto& x : b) x = sym(rng);
    auto p = lcs_pairs(a, b);
    ASSERT_EQ(p.size(), lcs_length_quadratic(a, b)) << "round " << round;
    expect_valid(a, b, p);
  }
}

TEST(Align, LongSequencesWithFewEditsAreFast) {
  // 200k launches, 20 edits: O((N+M)D) is a few million steps; O(NM) would be 4e10.
  std::vector<uint32_t> a, b;
  for (uint32_t i = 0; i < 200000; ++i) a.push_back((i * 7) % 23);
  b = a;
  for (int k = 0; k < 10; ++k) b.erase(b.begin() + 1000 + k * 15000);
  for (int k = 0; k < 10; ++k) b.insert(b.begin() + 500 + k * 17000, 1000 + k);
  auto p = lcs_pairs(a, b);
  EXPECT_EQ(p.size(), a.size() - 10);
}

}  // namespace
}  // namespace kprof::analysis
