// The named steps of phase detection (core/analysis/structure/phase_steps.cpp), each on a small
// stream written here; every expected value is worked out by hand in the comment beside it.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {
namespace {

SpillVector<uint32_t> seq(std::vector<uint32_t> v) { return SpillVector<uint32_t>(std::move(v)); }

Seg step(size_t b, size_t e) { return {b, e, SegKind::step, 0}; }

TEST(PhaseSteps, PeriodComesFromTheLongestWindowThatRepeats) {
  // Window 0 holds 20 distinct names: no k-gram occurs twice, so no distance is a candidate.
  // Window 1 holds A B C D four times (16 names, k = max(16/16, 4) = 4): every 4-gram recurs
  // exactly 4 later, so 4 is the only candidate, and it matches at 100%.
  std::vector<uint32_t> names;
  for (uint32_t i = 0; i < 20; ++i) names.push_back(100 + i);
  for (int r = 0; r < 4; ++r)
    for (uint32_t k : {1u, 2u, 3u, 4u}) names.push_back(k);
  const std::vector<Window> windows{{0, 20}, {20, 36}};
  const PeriodChoice c = choose_period(seq(names), windows);
  EXPECT_EQ(c.period, 4u);
  EXPECT_EQ(c.window, 1u);
}

TEST(PhaseSteps, NoPeriodLeavesTheFirstLongestWindow) {
  // Two windows of 9 distinct names each: neither repeats; of equal lengths the first is kept.
  std::vector<uint32_t> names;
  for (uint32_t i = 0; i < 18; ++i) names.push_back(i);
  const PeriodChoice c = choose_period(seq(names), {{0, 9}, {9, 18}});
  EXPECT_EQ(c.period, 0u);
  EXPECT_EQ(c.window, 0u);
  // Under 8 dispatches no period is sought; the longer window (1: 4 > 3) is still named.
  const PeriodChoice few = choose_period(seq({1, 2, 1, 2, 1, 2, 1}), {{0, 3}, {3, 7}});
  EXPECT_EQ(few.period, 0u);
  EXPECT_EQ(few.window, 1u);
}

TEST(PhaseSteps, ReferenceRunUntimedIsTheFirstRepeatedStretch) {
  // Period 2 over X Y A B A B A B. Untimed, every position is a boundary:
  //   i=0: X Y against A B, 0% -> no; i=1: Y A against B A, 50% -> no;
  //   i=2: A B against A B, 100% -> the reference, and the search stops there.
  const ReferenceRun r = find_reference_run(seq({9, 8, 1, 2, 1, 2, 1, 2}), 2, 0, 8, false,
                                            [](size_t) { return false; });
  EXPECT_EQ(r.begin, 2u);
  EXPECT_TRUE(r.starts_run);
  EXPECT_EQ(r.run, 0u);
  EXPECT_EQ(r.repetitions(), 1u);
}

TEST(PhaseSteps, ReferenceRunTimedPrefersTheLongestRun) {
  // Period 2 over A B A B X A B A B A B A B (0..12), host gaps before 2, 5, 7, 9 and 11.
  //   i=0 (the window's start): A B repeats at 2 -> run 1; at 2, A B against X A fails: weighed up
  //     to 3 for offset 0.
  //   i=2: offset 0 inside the run weighed to 3, skipped. i=5: A B repeats at 7 -> run 1; 7
  //     repeats at 9 -> 2; 9 repeats at 11 -> 3; j=11 leaves no two periods (11 + 4 > 13).
  //   Longest run: 3 from 5, so 4 repetitions.
  const std::set<size_t> gaps{2, 5, 7, 9, 11};
  const ReferenceRun r = find_reference_run(seq({1, 2, 1, 2, 7, 1, 2, 1, 2, 1, 2, 1, 2}), 2, 0, 13,
                                            true, [&](size_t i) { return gaps.count(i) > 0; });
  EXPECT_EQ(r.begin, 5u);
  EXPECT_TRUE(r.starts_run);
  EXPECT_EQ(r.run, 3u);
  EXPECT_EQ(r.repetitions(), 4u);
}

TEST(PhaseSteps, ReferenceRunWithoutRepetitionStaysAtTheWindowStart) {
  // 8 distinct names: no stretch of 2 matches the next one.
  const ReferenceRun r =
      find_reference_run(seq({1, 2, 3, 4, 5, 6, 7, 8}), 2, 0, 8, true, [](size_t) { return true; });
  EXPECT_EQ(r.begin, 0u);
  EXPECT_FALSE(r.starts_run);
  EXPECT_EQ(r.repetitions(), 0u);
}

TEST(PhaseSteps, GapsCutLayerBlocksOnlyWithFewRepetitionsAndARival) {
  GapStats gs;
  gs.marks_steps = true;
  // No rival place: the gaps mark the repetition whatever its count.
  EXPECT_FALSE(gaps_cut_layer_blocks(gs, true, 1));
  gs.rival_places = 4;                              // the host stops at 5 places of each repetition
  EXPECT_TRUE(gaps_cut_layer_blocks(gs, true, 3));  // 3 repetitions < 5 places
  EXPECT_TRUE(gaps_cut_layer_blocks(gs, true, 2));  // 2 repetitions: at most 2
  EXPECT_FALSE(gaps_cut_layer_blocks(gs, true, 5));   // 5 repetitions, 5 places: a loop
  EXPECT_FALSE(gaps_cut_layer_blocks(gs, false, 2));  // untimed: no gaps to judge
  gs.marks_steps = false;
  EXPECT_FALSE(gaps_cut_layer_blocks(gs, true, 2));
}

TEST(PhaseSteps, MostCommonStepLengthCountsStepsOnly) {
  // Steps of 10, 12, 12, 12 (three of 12); the leads of 10 are not steps.
  std::vector<Seg> segs{
      {0, 10, SegKind::lead, 0},  step(10, 20), step(20, 32), step(32, 44), step(44, 56),
      {56, 66, SegKind::trail, 0}};
  StepLength s = most_common_step_length(segs, 10);
  EXPECT_EQ(s.length, 12u);
  EXPECT_EQ(s.count, 3u);
  // Two of 10 and two of 12: the tie goes to the period (12), else to the shorter (10).
  segs = {step(0, 10), step(10, 20), step(20, 32), step(32, 44)};
  EXPECT_EQ(most_common_step_length(segs, 12).length, 12u);
  EXPECT_EQ(most_common_step_length(segs, 11).length, 10u);
  EXPECT_EQ(most_common_step_length(segs, 11).count, 2u);
  segs = {{0, 10, SegKind::lead, 0}};
  EXPECT_EQ(most_common_step_length(segs, 10).count, 0u);
}

TEST(PhaseSteps, RegularReferenceSkipsAStepUnlikeTheNext) {
  // Launch identities: 9 9 9 9 | 1 2 3 4 | 1 2 3 4. The first step matches the second at 0%,
  // the second the third at 100%: the reference is the second (4).
  const auto ids = seq({9, 9, 9, 9, 1, 2, 3, 4, 1, 2, 3, 4});
  EXPECT_EQ(regular_reference(ids, {step(0, 4), step(4, 8), step(8, 12)}, 4, 99), 4u);
  // A lead between two alike steps breaks their neighbourhood: no pair, so the first step of the
  // length (0); with no step of the length, the fallback.
  const auto ids2 = seq({1, 2, 3, 4, 7, 7, 1, 2, 3, 4});
  const std::vector<Seg> split{step(0, 4), {4, 6, SegKind::lead, 0}, step(6, 10)};
  EXPECT_EQ(regular_reference(ids2, split, 4, 99), 0u);
  EXPECT_EQ(regular_reference(ids2, split, 5, 99), 99u);
}

// A detector over `names` alone: assign_phases reads nothing else.
struct NamesOnly {
  MainStream order;
  PassData pass;
  Detector det;
  explicit NamesOnly(std::vector<uint32_t> names)
      : det{order, pass, nullptr, seq(std::move(names)), {}, {}, false} {}
};

TEST(PhaseSteps, AssignPhasesFromTheReference) {
  // Names: B C D | A B C D | A B C D | A B X X | A B, reference step at 3 (A B C D), length 4.
  //   lead [0,3): B C D against the step's last 3 (B C D): 100% -> partial
  //   [3,7) and [7,11): the reference's names -> step (no prefill)
  //   [11,15): A B X X against A B C D, 50% -> irregular
  //   trail [15,17): A B against the step's first 2 -> partial
  NamesOnly d({2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 9, 9, 1, 2});
  const std::vector<Seg> segs{
      {0, 3, SegKind::lead, 0}, step(3, 7), step(7, 11), step(11, 15), {15, 17, SegKind::trail, 0}};
  PhaseModel pm;
  assign_phases(pm, d.det, segs, PrefillChoice{}, 3, 4);
  const std::vector<Phase> want{Phase::partial, Phase::step, Phase::step, Phase::irregular,
                                Phase::partial};
  ASSERT_EQ(pm.steps.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(pm.steps[i].phase, want[i]) << i;
  count_phases(pm);
  EXPECT_EQ(pm.role_unknown_steps, 2);
  EXPECT_EQ(pm.irregular_steps, 1);

  // A prefill in segment 1 from dispatch 4: [3,4) unknown, [4,7) prefill; the regular steps after
  // it are decode.
  PrefillChoice prefill;
  prefill.seg = 1;
  prefill.split = 4;
  PhaseModel with;
  assign_phases(with, d.det, segs, prefill, 3, 4);
  ASSERT_EQ(with.steps.size(), 6u);
  EXPECT_EQ(with.steps[1].phase, Phase::unknown);
  EXPECT_EQ(with.steps[1].end, 4u);
  EXPECT_EQ(with.steps[2].phase, Phase::prefill);
  EXPECT_EQ(with.steps[3].phase, Phase::decode);
}

TEST(PhaseSteps, UnknownWindowsOneStepEach) {
  PhaseModel pm;
  pm.windows = {{0, 5}, {5, 9}};
  pm.steps.push_back({0, 1, Phase::decode, 0});
  mark_windows_unknown(pm);
  ASSERT_EQ(pm.steps.size(), 2u);
  EXPECT_EQ(pm.steps[1].begin, 5u);
  EXPECT_EQ(pm.steps[1].end, 9u);
  EXPECT_EQ(pm.steps[1].phase, Phase::unknown);
  EXPECT_EQ(pm.steps[1].window, 1);
}

}  // namespace
}  // namespace kprof::analysis::detail
