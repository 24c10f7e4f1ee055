// A real rocprofv3 capture: jyohukuchan/uLLM-project, Qwen3.5-9B AQ4 on a Radeon AI PRO R9700
// (gfx1201), benchmarks/results/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/
// aq4-p3-diagnostic-rocprof-capture-v8 (copied to tests/data/captures/, see tests/data/SOURCES.md).
// What the trace shows when read by hand (dispatch-id order): 1,127 warm-up dispatches (mostly
// copyBuffer) ending in the capture's largest host gap (469 ms), then 12 repetitions of 928
// dispatches: a block of bf16 row copies, 32 layers of 19 dispatches (3 linear-attention layers
// then 1 full-attention layer, 8 times; one ullm_silu_mul_f32_kernel per layer), and a block of
// fillBuffer kernels. The capture's marker_api_trace.csv holds 12 roctx ranges, one per
// repetition. These tests pin what the analysis finds from the dispatches alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/structure/explain.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

const std::string k_dir = std::string(KPROF_TEST_DATA) +
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

  // 12 repetitions of 928 dispatches, exactly where the capture's 12 roctx ranges are; the
  // 1,127 dispatches before them are not a step, and nothing shows a prefill: every repetition
  // launches the same grids, and the lead launches smaller ones. So no phase label is invented.
  const auto& pm = m.phases;
  EXPECT_EQ(pm.step_period, 928u);
  EXPECT_EQ(pm.prefill_steps, 0);
  EXPECT_EQ(pm.decode_steps, 0);
  EXPECT_EQ(pm.role_unknown_steps, 12);
  EXPECT_EQ(pm.irregular_steps, 0);
  EXPECT_EQ(pm.layers, 32);
  EXPECT_EQ(pm.layer_period, 19u);
  ASSERT_EQ(pm.steps.size(), 13u);
  EXPECT_EQ(pm.steps.front().phase, Phase::unknown);
  EXPECT_EQ(pm.steps.front().end, 1127u);
  EXPECT_EQ(pm.steps.back().phase, Phase::step);
  EXPECT_EQ(pm.steps.back().end, 12263u);

  const auto silu = explain(m, "ullm_silu_mul_f32_kernel");
  ASSERT_EQ(silu.size(), 1u);
  EXPECT_EQ(silu[0].launches, 384);
  EXPECT_EQ(silu[0].text,
            "ullm_silu_mul_f32_kernel: 384 = 384 (12 repeated steps × 32 layers × 1 variant, role "
            "not established)");
  // Wave32 on RDNA4 (gfx1201): Wave_Front_Size comes from agent_info, not the gfx9 default.
  EXPECT_EQ(cap.wave_size, 32);
}

// Independent check: the 12 steps are exactly the 12 roctx ranges of the capture's marker trace
// (read here with a plain line split, not kprof's readers): every dispatch of step k starts inside
// range k, and no dispatch of the range is outside the step.
TEST_F(RealCapture, StepsAreTheMarkerRanges) {
  std::ifstream in(k_dir + "aq4-p3-diagnostic_marker_api_trace.csv");
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::pair<int64_t, int64_t>> ranges;
  while (std::getline(in, line)) {
    const size_t last = line.rfind(','), prev = line.rfind(',', last - 1);
    ranges.push_back(
        {std::stoll(line.substr(prev + 1, last - prev - 1)), std::stoll(line.substr(last + 1))});
  }
  ASSERT_EQ(ranges.size(), 12u);
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  const Capture cap = load_capture(db, std::nullopt);
  const PhaseModel pm = detect_phases(cap.trace, &cap.names);
  std::vector<const Step*> steps;
  for (const auto& s : pm.steps)
    if (s.phase == Phase::step) steps.push_back(&s);
  ASSERT_EQ(steps.size(), 12u);
  for (size_t k = 0; k < 12; ++k) {
    size_t inside = 0;
    for (size_t i = 0; i < pm.order.size(); ++i) {
      const int64_t t = pm.order[i].start_ns;
      const bool in_range = t >= ranges[k].first && t <= ranges[k].second;
      const bool in_step = i >= steps[k]->begin && i < steps[k]->end;
      EXPECT_EQ(in_range, in_step) << "step " << k << " dispatch " << i;
      inside += in_range;
    }
    EXPECT_EQ(inside, 928u);
  }
}

// A windowed trace, made from this real capture: three windows cut out of it (rows
// removed, as a windowed capture lacks them). It is reported as windows; each window's cut steps
// are partial; no prefill is invented.
TEST_F(RealCapture, WindowsCutFromTheTraceAreReportedAsWindows) {
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  Capture cap = load_capture(db, std::nullopt);
  std::sort(cap.trace.dispatches.begin(), cap.trace.dispatches.end(),
            [](const Dispatch& a, const Dispatch& b) { return a.dispatch_id < b.dispatch_id; });
  // Dispatch_Id ranges kept: [2500, 5100), [6000, 8400), [10000, 12263] (ids are 1-based).
  std::erase_if(cap.trace.dispatches, [](const Dispatch& d) {
    const int64_t id = d.dispatch_id;
    return !((id >= 2500 && id < 5100) || (id >= 6000 && id < 8400) || id >= 10000);
  });
  const PhaseModel pm = detect_phases(cap.trace, &cap.names);
  ASSERT_EQ(pm.windows.size(), 3u);
  EXPECT_EQ(pm.windows[0].first_id, 2500);
  EXPECT_EQ(pm.windows[0].missing_before, 2499);
  EXPECT_EQ(pm.windows[1].missing_before, 6000 - 5100);
  EXPECT_EQ(pm.windows[2].missing_before, 10000 - 8400);
  EXPECT_EQ(pm.prefill_steps, 0);
  EXPECT_EQ(pm.decode_steps, 0);
  EXPECT_EQ(pm.irregular_steps, 0);
  EXPECT_EQ(pm.step_period, 928u);
  // Runs start at ids 1128 + 928 k. Whole runs: window 1 holds the runs starting at 2984 and 3912,
  // window 2 the one at 6696, window 3 those at 10408 and 11336.
  int whole = 0;
  for (const auto& s : pm.steps) {
    EXPECT_NE(s.phase, Phase::prefill);
    if (s.phase == Phase::step) {
      ++whole;
      EXPECT_EQ((pm.order[s.begin].dispatch_id - 1128) % 928, 0) << pm.order[s.begin].dispatch_id;
    }
  }
  EXPECT_EQ(whole, pm.role_unknown_steps);
  EXPECT_EQ(pm.role_unknown_steps, 2 + 1 + 2);
  EXPECT_EQ(pm.findings.front().claim, "windowed trace: 3 windows");
}

}  // namespace
}  // namespace kprof::analysis
