// The `kprof counters` use cases on configs/hw/gfx942.yaml: listing by pattern, and what one
// counter costs in a pass.
#include "core/hw/counter_catalog.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"

namespace kprof::hw {
namespace {

const Target& gfx942() {
  static const Target t = Target::load(std::string(KPROF_SOURCE_DIR) + "/configs/hw/gfx942.yaml");
  return t;
}

TEST(CounterCatalog, PatternIsASubstringOrAGlobIgnoringCase) {
  EXPECT_TRUE(counter_name_matches("waves", "SQ_WAVES"));
  EXPECT_FALSE(counter_name_matches("wavez", "SQ_WAVES"));
  EXPECT_TRUE(counter_name_matches("sq_insts_valu_*_f16", "SQ_INSTS_VALU_ADD_F16"));
  EXPECT_FALSE(counter_name_matches("sq_insts_valu_*_f16", "SQ_INSTS_VALU_ADD_F32"));
  EXPECT_TRUE(counter_name_matches("TCC_EA0_?DREQ*", "TCC_EA0_RDREQ_sum"));
  EXPECT_FALSE(counter_name_matches("TCC_EA0_?DREQ", "TCC_EA0_RDREQ_sum"));  // a glob is whole
}

TEST(CounterCatalog, ListsBaseAndDerivedCountersWithTheirBlocks) {
  const auto rows = list_counters(gfx942(), "GPU_UTIL");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, CounterKind::derived);
  EXPECT_EQ(rows[0].blocks, "GRBM");  // GRBM_GUI_ACTIVE and GRBM_COUNT
  EXPECT_EQ(rows[0].event_or_expression, "100*reduce(GRBM_GUI_ACTIVE,max)/reduce(GRBM_COUNT,max)");
}

TEST(CounterCatalog, AnEmptyPatternListsEveryCounterAndNoMatchIsAnErrorWithNearestNames) {
  EXPECT_EQ(list_counters(gfx942(), "").size(), gfx942().counter_names().size());
  const auto base = list_counters(gfx942(), "GRBM_GUI_ACTIVE");
  ASSERT_EQ(base.size(), 1u);
  EXPECT_EQ(base[0].kind, CounterKind::base);
  EXPECT_EQ(base[0].blocks, "GRBM");
  EXPECT_EQ(base[0].event_or_expression, "event 2");
  try {
    list_counters(gfx942(), "SQ_WAVEZ");
    FAIL() << "listed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no gfx942 counter matches 'SQ_WAVEZ'"),
              std::string::npos);
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_NE(e.diagnostics()[0].hint.find("SQ_WAVES"), std::string::npos) << e.what();
  }
}

// accumulate(SQ_IFETCH_LEVEL, HIGH_RES) is a flagged event that needs the plain counter in the
// same pass; both are SQ events.
TEST(CounterCatalog, ExplainsTheEventsAndSlotsOfADerivedCounter) {
  const CounterCost c = explain_counter(gfx942(), "InstrFetchLatency");
  EXPECT_EQ(c.kind, CounterKind::derived);
  ASSERT_TRUE(c.derived);
  EXPECT_FALSE(c.base);
  bool accumulated = false, plain = false;
  for (const auto& e : c.events) {
    EXPECT_EQ(e.block, "SQ");
    if (e.event.counter == "SQ_IFETCH_LEVEL") (e.accumulated ? accumulated : plain) = true;
  }
  EXPECT_TRUE(accumulated);
  EXPECT_TRUE(plain);
  ASSERT_EQ(c.slots.size(), 1u);
  EXPECT_EQ(c.slots[0].block, "SQ");
  EXPECT_EQ(c.slots[0].used, static_cast<int>(c.events.size()));
  EXPECT_EQ(c.slots[0].limit, 8);
  EXPECT_TRUE(c.over_blocks.empty());
  const std::string text = cost_text(c);
  EXPECT_EQ(text.rfind("InstrFetchLatency (derived, gfx942)\n  expression: ", 0), 0u) << text;
  EXPECT_NE(text.find("(accumulated; needs the plain counter beside it)"), std::string::npos);
  EXPECT_NE(text.find("  slots in one pass: SQ " + std::to_string(c.events.size()) + "/8\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("does NOT fit"), std::string::npos);
}

TEST(CounterCatalog, ExplainingAnUnknownCounterNamesTheNearest) {
  try {
    explain_counter(gfx942(), "SQ_WAVEZ");
    FAIL() << "explained";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SQ_WAVEZ"), std::string::npos);
  }
  const CounterCost base = explain_counter(gfx942(), "SQ_WAVES");
  EXPECT_EQ(base.kind, CounterKind::base);
  ASSERT_TRUE(base.base);
  EXPECT_EQ(base.base->event_id, 4);
  ASSERT_EQ(base.events.size(), 1u);
  EXPECT_FALSE(base.events[0].accumulated);
}

}  // namespace
}  // namespace kprof::hw
