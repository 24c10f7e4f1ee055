#include "core/hw/metric_set.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

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
  EXPECT_EQ(roof.counters.size(), 29u);  // rocprofiler-compute pmc_roof_perf.txt
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

// The analysis takes its FLOP and byte formulas from these tags
// (core/analysis/metrics/metrics.cpp).
TEST(MetricSet, RooflineMetricsSayWhatTheyMeasure) {
  const std::string dir = std::string(KPROF_SOURCE_DIR) + "/configs/metrics";
  MetricSet roof = load_metric_set_named("roofline", gfx942(), dir);
  std::vector<std::string> flop_types;
  for (const auto& m : roof.metrics)
    if (m.measures.quantity == Quantity::flops) flop_types.push_back(m.measures.flop_type);
  EXPECT_EQ(flop_types, (std::vector<std::string>{"VALU_F16", "VALU_F32", "VALU_F64", "MFMA_F16",
                                                  "MFMA_BF16", "MFMA_F32", "MFMA_F64", "MFMA_F8"}));
  const MetricFormula& hbm = roof.metrics[11];
  EXPECT_EQ(hbm.measures.quantity, Quantity::bytes);
  EXPECT_EQ(hbm.measures.level, "HBM");
  EXPECT_EQ(hbm.measures.direction, "read");
  EXPECT_EQ(hbm.prefer, "1024*FETCH_SIZE");
  // `prefer` is not collected: the set stays rocprofiler-compute's 29 counters.
  EXPECT_EQ(std::count(roof.counters.begin(), roof.counters.end(), "FETCH_SIZE"), 0);
}

// Shapes yaml-cpp throws for from as<std::string>() or iteration (found by the metric_set fuzz
// target, tests/data/fuzz/metric_set/regressions): each is kprof's positioned input error, never
// an escaped YAML exception ("internal error").
TEST(MetricSet, WrongYamlShapesArePositionedErrors) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"counters: [SQ_WAVES]\n[a, b]: 1\n", 2},
      {"name: [x]\ncounters: [SQ_WAVES]\n", 1},
      {"counters:\n  - [SQ_WAVES]\n", 2},
      {"counters: [SQ_WAVES]\nmetrics: {a: b}\n", 2},
      {"counters: [SQ_WAVES]\nmetrics:\n  - {name: {a: 1}, expression: SQ_WAVES}\n", 3},
      {"counters: [SQ_WAVES]\nmetrics:\n  - {name: r, expression: [SQ_WAVES]}\n", 3},
      {"counters: [SQ_WAVES]\nmetrics:\n  - {name: r, expression: SQ_WAVES, measures: [a]}\n", 3},
      {"counters: [SQ_WAVES]\nmetrics:\n  - {name: r, expression: SQ_WAVES, {k: 1}: 2}\n", 3},
  };
  for (const auto& [text, line] : cases) {
    try {
      parse_metric_set(text, "m.yaml", "m", gfx942());
      ADD_FAILURE() << text;
    } catch (const Error& e) {
      ASSERT_TRUE(e.diagnostics()[0].pos) << text;
      EXPECT_EQ(e.diagnostics()[0].pos->file, "m.yaml") << text;
      EXPECT_EQ(e.diagnostics()[0].pos->line, line) << text << e.diagnostics()[0].line();
    }
  }
  // An empty metrics: key is no metrics, as before.
  EXPECT_TRUE(parse_metric_set("counters: [SQ_WAVES]\nmetrics:\n", "m.yaml", "m", gfx942())
                  .metrics.empty());
}

TEST(MetricSet, BadMeasuresTagIsPositioned) {
  auto dir = std::filesystem::temp_directory_path() / ("kprof_ms_m_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "m.yaml") << "name: m\ncounters: [SQ_WAVES]\nmetrics:\n"
                                   "  - {name: r, measures: bytes L3, expression: \"SQ_WAVES\"}\n";
  std::ofstream(dir / "k.yaml")
      << "name: k\ncounters: [SQ_WAVES]\nmetrics:\n"
         "  - {name: r, mesures: flops VALU_F32, expression: \"SQ_WAVES\"}\n";
  try {
    load_metric_set(dir / "m.yaml", gfx942());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].pos->line, 4);
    EXPECT_NE(std::string(e.what()).find("unknown memory level 'L3'"), std::string::npos);
    EXPECT_NE(e.diagnostics()[0].hint.find("HBM"), std::string::npos);
  }
  try {
    load_metric_set(dir / "k.yaml", gfx942());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].hint.find("measures"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kprof::hw
