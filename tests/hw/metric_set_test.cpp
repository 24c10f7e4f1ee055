#include "core/hw/metric_set.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kprof::hw {
namespace {

const Target& gfx942() {
  static const Target t = Target::load(std::string(KPROF_SOURCE_DIR) + "/configs/hw/gfx942.yaml");
  return t;
}

TEST(MetricSet, ShippedSetsLoad) {
  const std::string dir = std::string(KPROF_SOURCE_DIR) + "/configs/metrics";
  EXPECT_EQ(metric_set_names(dir),
            (std::vector<std::string>{"compute", "full", "memory", "occupancy", "roofline"}));
  MetricSet roof = load_metric_set_named("roofline", gfx942(), dir);
  EXPECT_EQ(roof.counters.size(), 29u);  // pmc_roof_perf.txt (facts 3.5)
  ASSERT_EQ(roof.metrics.size(), 13u);
  const MetricFormula& hbm = roof.metrics[11];
  EXPECT_EQ(hbm.name, "hbm_read_bytes");
  EXPECT_EQ(hbm.counters, (std::vector<std::string>{"TCC_BUBBLE_sum", "TCC_EA0_RDREQ_32B_sum",
                                                    "TCC_EA0_RDREQ_sum"}));
  // 128*10 + 32*20 + 64*(100-10-20) = 1280 + 640 + 4480 bytes
  auto v = gfx942().evaluate(*hbm.expr, [](const Event& e) -> std::optional<double> {
    if (e.counter == "TCC_BUBBLE") return 10;
    if (e.counter == "TCC_EA0_RDREQ_32B") return 20;
    if (e.counter == "TCC_EA0_RDREQ") return 100;
    return std::nullopt;
  });
  EXPECT_DOUBLE_EQ(*v, 6400);
  MetricSet full = load_metric_set_named("full", gfx942(), dir);
  EXPECT_EQ(full.counters.size(), 222u);  // 216 rocprofiler-compute names + 6 *_ACCUM
  EXPECT_THROW(load_metric_set_named("rooflin", gfx942(), dir), Error);
}

TEST(MetricSet, UnknownCounterIsPositioned) {
  auto dir = std::filesystem::temp_directory_path() / ("kprof_ms_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << "name: bad\ncounters:\n  - SQ_WAVES\n  - TCC_HTI_sum\n";
  std::ofstream(dir / "badexpr.yaml") << "name: b\ncounters: [SQ_WAVES]\nmetrics:\n"
                                         "  - {name: r, expression: \"SQ_WAVES/SQ_BUSY_CYCLE\"}\n";
  try {
    load_metric_set(dir / "bad.yaml", gfx942());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].pos->line, 4);
    EXPECT_EQ(e.diagnostics()[0].pos->col, 5);
    EXPECT_NE(e.diagnostics()[0].hint.find("TCC_HIT_sum"), std::string::npos);
  }
  try {
    load_metric_set(dir / "badexpr.yaml", gfx942());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].pos->line, 4);
    EXPECT_EQ(e.diagnostics()[0].pos->col, 28 + 9);  // text starts after the quote at col 27
    EXPECT_NE(e.diagnostics()[0].hint.find("SQ_BUSY_CYCLES"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kprof::hw
