// A real rocprofv3 capture: jyohukuchan/uLLM-project, Qwen3.5-9B AQ4 on a Radeon AI PRO R9700
// (gfx1201), benchmarks/results/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/
// aq4-p3-diagnostic-rocprof-capture-v8 (copied to shared/captures/, see SOURCES.md there).
// What the trace shows when read by hand (dispatch-id order): 1,127 warm-up dispatches (mostly
// copyBuffer) ending in the capture's largest host gap (469 ms), then 12 repetitions of 928
// dispatches: a block of bf16 row copies, 32 layers of 19 dispatches (3 linear-attention layers
// then 1 full-attention layer, 8 times; one ullm_silu_mul_f32_kernel per layer), and a block of
// fillBuffer kernels. The capture's marker_api_trace.csv holds 12 roctx ranges, one per
// repetition. These tests pin what the analysis finds from the dispatches alone.
#include <gtest/gtest.h>

#include <set>

#include "core/analysis/analysis_db.hpp"
#include "core/analysis/explain.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

const std::string k_dir = std::string(KPROF_SHARED_DIR) +
                          "/captures/uLLM-project/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
                          "aq4-p3-diagnostic-rocprof-capture-v8/";

class RealCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_db = new test::TempDb("real");
    store::CaptureDb db(s_db->path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(
        db, run, 0, store::PassKind::trace,
        {k_dir + "aq4-p3-diagnostic_agent_info.csv", k_dir + "aq4-p3-diagnostic_kernel_trace.csv"});
  }
  static void TearDownTestSuite() { delete s_db; }
  static test::TempDb* s_db;
};
test::TempDb* RealCapture::s_db = nullptr;

TEST_F(RealCapture, FamiliesVariantsAndSteps) {
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  const Capture cap = load_capture(db, std::nullopt);
  EXPECT_FALSE(cap.run.simulated);
  ASSERT_EQ(cap.trace.dispatches.size(), 12263u);
  EXPECT_EQ(cap.arch, "gfx1201");
  const FamilyRules rules =
      FamilyRules::load_dir(std::filesystem::path(KPROF_SOURCE_DIR) / "configs" / "families");
  const TraceModel m = build_trace_model(cap.trace, cap.names, rules, cap.wave_size);
  std::set<std::string> families;
  for (const auto& v : m.variants) families.insert(v.family);
  EXPECT_EQ(families.size(), 30u);  // plain C names: one family per name
  EXPECT_EQ(m.variants.size(), 44u);

  const auto& pm = m.phases;
  EXPECT_EQ(pm.step_period, 928u);
  EXPECT_EQ(pm.decode_steps, 12);
  EXPECT_EQ(pm.prefill_steps, 1);  // the warm-up segment before the first repetition
  EXPECT_EQ(pm.layers, 32);
  EXPECT_EQ(pm.layer_period, 19u);
  ASSERT_EQ(pm.steps.size(), 13u);
  EXPECT_EQ(pm.steps.front().end, 1127u);
  EXPECT_EQ(pm.steps.back().phase, "decode");
  EXPECT_EQ(pm.steps.back().end, 12263u);

  const auto silu = explain(m, "ullm_silu_mul_f32_kernel");
  ASSERT_EQ(silu.size(), 1u);
  EXPECT_EQ(silu[0].launches, 384);
  EXPECT_EQ(silu[0].text,
            "ullm_silu_mul_f32_kernel: 384 = 384 (decode, 12 steps × 32 layers × 1 variant)");
  // Wave32 on RDNA4 (gfx1201): Wave_Front_Size comes from agent_info, not the gfx9 default.
  EXPECT_EQ(cap.wave_size, 32);
}

}  // namespace
}  // namespace kprof::analysis
