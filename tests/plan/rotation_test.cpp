// Counter-group rotation planned on a trace's dispatch sequence (core/plan/rotation.hpp).
#include "core/plan/rotation.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"

namespace kprof::plan {
namespace {

// The fused-MoE launches of the Qwen3-30B-A3B request as the trace shows them: per layer one w13
// and one w2 launch, 48 layers; 1 prefill step (variants 0 and 1) then 63 decode steps (2 and 3).
std::vector<int> qwen3_fused_moe_sequence() {
  std::vector<int> s;
  for (int layer = 0; layer < 48; ++layer) s.insert(s.end(), {0, 1});
  for (int step = 0; step < 63; ++step)
    for (int layer = 0; layer < 48; ++layer) s.insert(s.end(), {2, 3});
  return s;
}

// The group of a dispatch is told from its counter names (rocprofv3 writes no group), so a plan
// whose passes share a counter is refused when it would become rotation groups, naming the
// counter and where it was asked for.
TEST(Rotation, ACounterInTwoGroupsIsRefusedAtPlanTime) {
  Plan plan;
  plan.passes.resize(3);
  plan.passes[0].counters = {"SQ_WAVES", "GRBM_GUI_ACTIVE"};
  plan.passes[1].counters = {"TCC_HIT_sum"};
  plan.passes[2].counters = {"TCC_MISS_sum", "GRBM_GUI_ACTIVE"};
  Request request;
  request.counters = {{"SQ_WAVES", {}}, {"GRBM_GUI_ACTIVE", SourcePos{"rb.yaml", 12, 7}}};
  try {
    rotation_groups(plan, request);
    FAIL() << "a counter in groups 1 and 3 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    const std::string what = e.what();
    EXPECT_NE(what.find("counter 'GRBM_GUI_ACTIVE' would be in rotation groups 1 and 3"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("rb.yaml:12:7"), std::string::npos) << what;
  }
  plan.passes[2].counters = {"TCC_MISS_sum"};
  const auto groups = rotation_groups(plan, request);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[2], std::vector<std::string>{"TCC_MISS_sum"});
}

TEST(Rotation, SamplesFollowTheToolsRule) {
  // group = (iter / interval) % groups, iter counting the counted dispatches.
  const std::vector<int> seq{0, 0, 0, 0, 0, 0};
  const auto s = rotation_samples(seq, 1, 3, 2, 1, 0);  // groups 0,0,1,1,2,2
  EXPECT_EQ(s[0], (std::vector<int64_t>{2, 2, 2}));
  const auto p = rotation_samples(seq, 1, 3, 2, 1, 1);  // phase 1: 0,1,1,2,2,0
  EXPECT_EQ(p[0], (std::vector<int64_t>{2, 2, 2}));
  const auto odd = rotation_samples({0, 1, 0, 1, 0, 1}, 2, 2, 1, 1, 0);
  EXPECT_EQ(odd[0], (std::vector<int64_t>{3, 0}));  // aliasing: variant 0 never gets group 1
  EXPECT_EQ(odd[1], (std::vector<int64_t>{0, 3}));
}

// A variant recurring with a period that shares a factor with the group count only ever sees some
// groups at interval 1; kprof's chosen interval gives it every group.
TEST(Rotation, ChosenIntervalAvoidsAliasing) {
  std::vector<int> seq;  // period 3: A B C A B C ..., 6 groups (gcd 3)
  for (int i = 0; i < 600; ++i) seq.push_back(i % 3);
  const auto naive = rotation_samples(seq, 3, 6, 1, 1, 0);
  int empty = 0;
  for (const auto& row : naive)
    for (auto x : row) empty += x == 0;
  EXPECT_EQ(empty, 12);  // each variant sees 2 of the 6 groups
  RotationRequest q;
  q.sequence = seq;
  q.variants = 3;
  q.groups = 6;
  q.min_samples = 30;
  const auto c = choose_rotation(q);
  ASSERT_TRUE(c.feasible) << c.why;
  EXPECT_EQ(c.repeats, 1);
  for (const auto& row : c.samples)
    for (auto x : row) EXPECT_GE(x, 30);
  // interval 1 (aliased) was not chosen; the choice verified against the rule directly.
  EXPECT_NE(c.interval, 1u);
  const auto check = rotation_samples(seq, 3, 6, c.interval, c.repeats, 0);
  EXPECT_EQ(check, c.samples);
}

// The full gfx942 set (12 groups) on the Qwen3 request: prefill variants have 48 launches each,
// so the request is repeated inside the run; w13/w2 alternate, so interval 1 aliases.
TEST(Rotation, Qwen3FullSetInOneRun) {
  RotationRequest q;
  q.sequence = qwen3_fused_moe_sequence();
  q.variants = 4;
  q.groups = 12;
  q.min_samples = 30;
  const auto c = choose_rotation(q);
  ASSERT_TRUE(c.feasible) << c.why;
  EXPECT_EQ(c.repeats, 8);    // 8 × 48 = 384 >= 12 × 30, and 7 × 48 = 336 is not
  EXPECT_EQ(c.interval, 2u);  // the smallest that does not alias: 32 per group, the most possible
  EXPECT_GE(c.least, 30);
  EXPECT_NE(c.interval, 1u);
  for (size_t v = 0; v < 4; ++v)
    for (size_t g = 0; g < 12; ++g) EXPECT_GE(c.samples[v][g], 30) << v << " " << g;
  const auto aliased = rotation_samples(q.sequence, 4, 12, 1, 8, 0);
  EXPECT_EQ(aliased[0][1], 0);  // w13 at interval 1 never gets an odd group
}

// ROCm 7.0 also counts the warm-up's launches, so the phase at the region's start is unknown:
// the choice must hold for every phase.
TEST(Rotation, UnknownPhaseHoldsForEveryPhase) {
  RotationRequest q;
  q.sequence = qwen3_fused_moe_sequence();
  q.variants = 4;
  q.groups = 12;
  q.phase_known = false;
  const auto c = choose_rotation(q);
  ASSERT_TRUE(c.feasible) << c.why;
  for (uint64_t phase = 0; phase < c.interval * 12; ++phase) {
    const auto s = rotation_samples(q.sequence, 4, 12, c.interval, c.repeats, phase);
    for (size_t v = 0; v < 4; ++v)
      for (size_t g = 0; g < 12; ++g) EXPECT_GE(s[v][g], c.samples[v][g]) << phase;
  }
}

TEST(Rotation, SaysWhyWhenItCannot) {
  RotationRequest q;
  q.sequence = {0, 1};
  q.variants = 2;
  q.groups = 12;
  q.max_repeats = 4;
  const auto c = choose_rotation(q);
  EXPECT_FALSE(c.feasible);
  EXPECT_NE(c.why.find("within 4 repeats"), std::string::npos) << c.why;
  q.groups = 1;
  EXPECT_NE(choose_rotation(q).why.find("at least 2 counter groups"), std::string::npos);
}

}  // namespace
}  // namespace kprof::plan
