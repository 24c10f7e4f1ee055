// The report of the simulated Qwen3-30B-A3B run (`kprof run runbooks/qwen3-30b-a3b-sim.yaml`,
// made once by the ctest fixture report_sim_runs): what a user expects of it, on the
// model and in headless Chromium.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/report/report_model.hpp"
#include "tests/report/browser.hpp"

namespace kprof::report {
namespace {

namespace fs = std::filesystem;

const fs::path k_sim_db = fs::path(KPROF_REPORT_SIM_DIR) / "qwen3-64" / "qwen3-64.db";

fs::path temp_dir(const std::string& tag) {
  const fs::path d =
      fs::temp_directory_path() / ("kprof_report_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(SimReport, RooflineShowsDecodeMoeMemoryBoundAndPrefillToItsRight) {
  ASSERT_TRUE(fs::exists(k_sim_db)) << "made by the ctest fixture report_sim_runs";
  const ReportModel m = build_report_model(k_sim_db.string(), {});
  EXPECT_TRUE(m.simulated);
  ASSERT_TRUE(m.roofline.available) << m.roofline.why_not;
  double bf16 = 0;
  for (const auto& c : m.roofline.compute)
    if (c.name == "matrix BF16/FP16") bf16 = c.flops_per_s;
  ASSERT_GT(bf16, 0);
  const double ridge = bf16 / m.roofline.hbm_bytes_per_s;
  double max_decode_ai = 0, min_prefill_ai = 1e300;
  int decode = 0, prefill = 0;
  for (const auto& p : m.roofline.points) {
    if (p.family != "fused_moe_kernel") continue;
    if (p.phase == analysis::Phase::decode) {
      ++decode;
      EXPECT_LT(p.flop_per_byte, ridge) << "variant " << p.variant << " should be memory-bound";
      EXPECT_LE(p.flops_per_s, p.flop_per_byte * m.roofline.hbm_bytes_per_s * 1.0001)
          << "variant " << p.variant << " above the HBM roof";
      max_decode_ai = std::max(max_decode_ai, p.flop_per_byte);
    } else if (p.phase == analysis::Phase::prefill) {
      ++prefill;
      min_prefill_ai = std::min(min_prefill_ai, p.flop_per_byte);
    }
    EXPECT_FALSE(p.above_peak);
  }
  EXPECT_EQ(decode, 2);
  EXPECT_EQ(prefill, 2);
  EXPECT_GT(min_prefill_ai, max_decode_ai);
  // One point per variant and phase: no pair twice.
  std::set<std::pair<std::string, analysis::Phase>> pairs;
  for (const auto& p : m.roofline.points)
    EXPECT_TRUE(pairs.insert({p.variant, p.phase}).second) << "variant " << p.variant << " twice";
}

TEST(SimReport, TimelineIsOneDecodeStepOf48Layers) {
  const ReportModel m = build_report_model(k_sim_db.string(), {});
  const Timeline& tl = m.timeline;
  ASSERT_TRUE(tl.found) << tl.why_not;
  EXPECT_EQ(tl.phase, analysis::Phase::decode);
  EXPECT_EQ(tl.step_number, 2u);  // the first decode step, after the prefill
  size_t layers = 0;
  for (const auto& r : tl.rows) layers += r.rfind("layer ", 0) == 0;
  EXPECT_EQ(layers, 48u);
  EXPECT_EQ(tl.rows[1], "layer 1");
  // Every dispatch of the step is a slice: the step's length from the phases view.
  const auto& phases = m.phases;
  size_t col_phase = 0, col_per_step = 0;
  for (size_t i = 0; i < phases.columns.size(); ++i) {
    if (phases.columns[i] == "phase") col_phase = i;
    if (phases.columns[i] == "dispatches_per_step") col_per_step = i;
  }
  double per_step = 0;
  for (const auto& row : phases.rows)
    if (std::get<std::string>(row[col_phase]) == "decode")
      per_step = std::get<double>(row[col_per_step]);
  EXPECT_EQ(static_cast<double>(tl.slices.size()), per_step);
}

TEST(SimReport, OpensInHeadlessChromiumWithNoErrorsAndNoOverflow) {
  const fs::path dir = temp_dir("browser");
  const fs::path html = dir / "report.html";
  // With the 32-token run as baseline, so the comparison section is rendered too.
  const std::string cmd = std::string(KPROF_BIN_DIR) + "/kprof report " + k_sim_db.string() +
                          " --baseline " +
                          (fs::path(KPROF_REPORT_SIM_DIR) / "qwen3-32" / "qwen3-32.db").string() +
                          " -o " + html.string() + " > " + (dir / "out.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const ReportModel m = build_report_model(k_sim_db.string(), {});
  const auto r = test::render(html, dir);
  ASSERT_FALSE(r.check.is_null());
  EXPECT_TRUE(r.check["errors"].empty()) << r.check["errors"].dump(1);
  EXPECT_EQ(r.console, "") << "console messages:\n" << r.console;
  EXPECT_TRUE(r.check["overflow"].empty()) << r.check["overflow"].dump(1);
  // Laid out at 1280 px (less a scrollbar where the platform draws one).
  EXPECT_GE(r.check["width"].get<int>(), 1260);
  EXPECT_LE(r.check["width"].get<int>(), 1280);
  // SIMULATED on every section.
  EXPECT_EQ(r.check["sections"], 8);
  EXPECT_EQ(r.check["banner_sections"], 8);
  EXPECT_NE(r.check["title"].get<std::string>().find("SIMULATED"), std::string::npos);
  // Marks: one bar per family shown, one slice per dispatch of the step, one point per variant
  // and phase with counters.
  EXPECT_EQ(r.check["bars"], m.families.size());
  EXPECT_EQ(r.check["slices"], m.timeline.slices.size());
  EXPECT_EQ(r.check["timeline_rows"], m.timeline.rows.size());
  EXPECT_EQ(r.check["points"], m.roofline.points.size());
  EXPECT_GE(r.check["points"].get<int>(), 4);
  EXPECT_EQ(r.check["point_labels"], m.roofline.points.size());
  size_t mixed = 0;
  for (const auto& p : m.roofline.points) mixed += p.mixed;
  EXPECT_EQ(r.check["mixed_points"], mixed);
  // As drawn: every decode fused_moe_kernel point under the memory roof and left of its end (the
  // ridge), every prefill one to the right of all of them.
  ASSERT_EQ(r.check["memory_roof"].size(), 1u);
  const auto& roof = r.check["memory_roof"][0];
  const double x1 = roof[0], y1 = roof[1], x2 = roof[2], y2 = roof[3];
  double max_decode_x = 0, min_prefill_x = 1e300;
  int decode = 0, prefill = 0;
  for (const auto& p : r.check["roof_points"]) {
    if (p["title"].get<std::string>().rfind("fused_moe_kernel v", 0) != 0) continue;
    const double x = p["x"], y = p["y"];
    if (p["phase"] == "decode") {
      ++decode;
      EXPECT_LT(x, x2) << p.dump();
      EXPECT_GT(y, y1 + (y2 - y1) * (x - x1) / (x2 - x1)) << "above the HBM roof: " << p.dump();
      max_decode_x = std::max(max_decode_x, x);
    } else if (p["phase"] == "prefill") {
      ++prefill;
      min_prefill_x = std::min(min_prefill_x, x);
    }
  }
  EXPECT_EQ(decode, 2);
  EXPECT_EQ(prefill, 2);
  EXPECT_GT(min_prefill_x, max_decode_x);
  // The HBM roof and one line per distinct compute peak (gfx942's matrix and vector FP32 are one).
  std::set<double> peaks;
  for (const auto& c : m.roofline.compute) peaks.insert(c.flops_per_s);
  EXPECT_EQ(r.check["roofs"], 1 + peaks.size());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kprof::report
