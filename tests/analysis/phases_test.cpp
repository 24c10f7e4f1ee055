#include "core/analysis/phases.hpp"

#include <gtest/gtest.h>

#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

TEST(Period, FindsTheStepPeriodNotTheLayerPeriod) {
  // 10 steps of [head, 6 × (a b c), tail]: step period 20, layer period 3.
  std::vector<uint32_t> s;
  for (int step = 0; step < 10; ++step) {
    s.push_back(100);
    for (int l = 0; l < 6; ++l) s.insert(s.end(), {1, 2, 3});
    s.push_back(200);
  }
  EXPECT_EQ(detect_period(s, 4), 20u);
}

TEST(Period, NoPeriodInAnAperiodicSequence) {
  std::vector<uint32_t> s;
  for (uint32_t i = 0; i < 500; ++i) s.push_back(i);
  EXPECT_EQ(detect_period(s), 0u);
}

TEST(Layers, RegularAnchorGivesLayerCount) {
  std::vector<uint32_t> t = {100};
  for (int l = 0; l < 48; ++l) t.insert(t.end(), {1, 2, 1, 3, 4, 5, 4});
  t.insert(t.end(), {200, 201});
  auto [layers, period] = detect_layers(t);
  EXPECT_EQ(layers, 48);
  EXPECT_EQ(period, 7u);
}

TEST(Layers, HybridModelWithEveryFourthLayerDifferentCountsAllLayers) {
  // Like Qwen3.5: 3 linear-attention layers then 1 full-attention layer, each with one MLP
  // activation kernel (9) at a nearly regular distance.
  std::vector<uint32_t> t;
  for (int g = 0; g < 8; ++g) {
    for (int l = 0; l < 3; ++l) t.insert(t.end(), {1, 2, 2, 3, 4, 5, 9, 6, 7});
    t.insert(t.end(), {1, 2, 8, 8, 4, 5, 9, 6, 7});
  }
  auto [layers, period] = detect_layers(t);
  EXPECT_EQ(layers, 32);
  EXPECT_EQ(period, 9u);
}

TEST(Phases, PrefillAndDecodeStepsAndLayersFromTheDataAlone) {
  NameTable names;
  const PassData p = test::build(test::moe_like(48, 63), names);
  const PhaseModel pm = detect_phases(p);
  EXPECT_EQ(pm.method, "period+gaps");
  EXPECT_EQ(pm.step_period, 1u + 48 * 8 + 2);
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 63);
  EXPECT_EQ(pm.layers, 48);
  EXPECT_EQ(pm.layer_period, 8u);
  ASSERT_EQ(pm.steps.size(), 64u);
  EXPECT_EQ(pm.steps[0].phase, "prefill");
  EXPECT_EQ(pm.steps[0].begin, 0u);
  EXPECT_EQ(pm.steps[1].begin, pm.step_period);
  EXPECT_EQ(pm.steps.back().end, p.dispatches.size());
}

TEST(Phases, WithoutTimingStepsFallOnPeriodMultiples) {
  NameTable names;
  auto w = test::moe_like(6, 9);
  w.in_step_gap_ns = 0;
  w.step_gap_ns = 0;
  w.kernel_ns = 0;
  const PassData p = test::build(w, names);
  const PhaseModel pm = detect_phases(p);
  EXPECT_EQ(pm.method, "period");
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 9);
  EXPECT_EQ(pm.layers, 6);
}

TEST(Phases, AnInitialSegmentOfOtherKernelsIsThePrefillAndAPartialStepIsTheTail) {
  NameTable names;
  auto w = test::moe_like(8, 12);
  PassData p = test::build(w, names);
  // Prefill-only kernels at the start (a prefix-attention kernel per layer, other grid), and the
  // run cut off in the middle of a step at the end.
  std::vector<Dispatch> pre;
  for (int i = 0; i < 8; ++i) {
    Dispatch d = p.dispatches[0];
    d.name = names.intern("_fwd_kernel");
    d.dispatch_id = -100 + i;
    pre.push_back(d);
  }
  p.dispatches.insert(p.dispatches.begin(), pre.begin(), pre.end());
  p.dispatches.resize(p.dispatches.size() - 20);
  const PhaseModel pm = detect_phases(p);
  const size_t per_step = 1 + 8 * 8 + 2;
  EXPECT_EQ(pm.step_period, per_step);
  ASSERT_GE(pm.steps.size(), 3u);
  EXPECT_EQ(pm.steps.front().phase, "prefill");
  EXPECT_EQ(pm.steps.back().phase, "tail");
  EXPECT_EQ(pm.steps.back().end - pm.steps.back().begin, per_step - 20);
  EXPECT_EQ(pm.decode_steps, 11);  // steps 2..12 complete; the 13th is cut
  EXPECT_EQ(pm.layers, 8);
}

}  // namespace
}  // namespace kprof::analysis
