#include "core/analysis/structure/explain.hpp"

#include <gtest/gtest.h>

#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

FamilyRules defaults() {
  return FamilyRules::load_dir(std::filesystem::path(KPROF_SOURCE_DIR) / "configs" / "families");
}

TEST(Explain, MoeFamilyBreakdownLikeTheSeed) {
  NameTable names;
  const PassData p = test::build(test::moe_like(48, 63), names);
  const TraceModel m = build_trace_model(p, names, defaults(), 64);
  const auto all = explain(m);
  const auto moe = explain(m, "fused_moe_kernel");
  ASSERT_EQ(moe.size(), 1u);
  EXPECT_EQ(moe[0].launches, 6144);
  EXPECT_EQ(moe[0].text,
            "fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 variants) + 3024 + "
            "3024 (decode, 63 steps × 48 layers × 2 variants)");
  const auto norm = explain(m, "vllm::rms_norm_kernel");
  ASSERT_EQ(norm.size(), 1u);
  EXPECT_EQ(
      norm[0].text,
      "vllm::rms_norm_kernel: 6144 = 96 (prefill, 1 step × 48 layers × 2 launches per layer × "
      "1 variant) + 6048 (decode, 63 steps × 48 layers × 2 launches per layer × 1 variant)");
  const auto argmax = explain(m, "argmax_kernel");
  ASSERT_EQ(argmax.size(), 1u);
  // Same grid in prefill and decode: one variant, per step, not per layer.
  EXPECT_EQ(
      argmax[0].text,
      "argmax_kernel: 64 = 1 (prefill, 1 step × 1 launch × 1 variant) + 63 (decode, 63 steps × "
      "1 launch × 1 variant)");
  // Families sorted by launches; the two Tensile GEMM names share one family.
  EXPECT_EQ(all.front().launches, 6144);
  bool tensile = false;
  for (const auto& f : all) tensile |= f.family == "Cijk_Alik_Bljk" && f.launches == 64 * 48 + 64;
  EXPECT_TRUE(tensile);
}

TEST(Explain, VariantsCarryResourcesAndWavesPerWorkgroup) {
  NameTable names;
  const PassData p = test::build(test::moe_like(4, 3), names);
  const TraceModel m = build_trace_model(p, names, defaults(), 64);
  int moe_variants = 0;
  for (const auto& v : m.variants) {
    if (v.family != "fused_moe_kernel") continue;
    ++moe_variants;
    EXPECT_EQ(v.vgpr, 80);
    EXPECT_EQ(v.sgpr, 48);
    EXPECT_EQ(v.waves_per_workgroup, 4);  // 256 threads / wave64
  }
  EXPECT_EQ(moe_variants, 4);
  const TraceModel m32 = build_trace_model(p, names, defaults(), 32);
  EXPECT_EQ(m32.variants[0].waves_per_workgroup, 8);
}

TEST(Explain, HintsAreCheckedNotUsed) {
  NameTable names;
  const PassData p = test::build(test::moe_like(48, 63), names);
  const TraceModel m = build_trace_model(p, names, defaults(), 64);
  auto ok = check_hints(m, {48, 64});
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0], "layers: 48 found, as the runbook says");
  EXPECT_EQ(ok[1],
            "steps: 64 steps (1 prefill + 63 decode) found, as the runbook's output_tokens says");
  auto bad = check_hints(m, {40, 32});
  EXPECT_EQ(bad[0], "warning: found 48 layers per step, the runbook says 40");
  EXPECT_EQ(bad[1],
            "warning: found 64 steps (1 prefill + 63 decode), the runbook's output_tokens says 32");
  EXPECT_EQ(m.phases.layers, 48);  // unchanged by the hint
}

}  // namespace
}  // namespace kprof::analysis
