// Plans for the shipped metric sets and for synthetic targets where the answer is known.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "core/hw/metric_set.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"

namespace kprof::plan {
namespace {

const std::string k_src = KPROF_SOURCE_DIR;

const hw::Target& gfx942() {
  static const hw::Target t = hw::Target::load(k_src + "/configs/hw/gfx942.yaml");
  return t;
}

Request from_set(const std::string& name) {
  return request_from_sets(
      {hw::load_metric_set(k_src + "/configs/metrics/" + name + ".yaml", gfx942())});
}

Request of(const std::vector<std::string>& names) {
  Request r;
  for (const auto& n : names) r.counters.push_back(Requested{n, std::nullopt});
  return r;
}

void expect_valid(const hw::Target& t, const Request& r, const Plan& p) {
  auto problems = validate_plan(t, r, p);
  EXPECT_TRUE(problems.empty()) << problems.front();
  // Every derived counter whole: all of its events in its pass.
  for (const auto& pass : p.passes)
    for (const auto& c : pass.counters)
      for (const auto& e : t.events_of(c))
        EXPECT_TRUE(std::find(pass.events.begin(), pass.events.end(), e) != pass.events.end()) << c;
}

// rocprofiler-compute (perfmon_coalesce over analysis_configs/gfx942) needs 12 passes for its
// gfx942 union; SQ 90 + 6 accumulate events over 8 slots = 12 is the lower bound, and we meet it.
TEST(Planner, FullSetMeetsLowerBoundOf12) {
  Request r = from_set("full");
  Plan p = plan_passes(gfx942(), r);
  EXPECT_EQ(p.lower_bound, 12);
  EXPECT_EQ(p.lower_bound_reason, "SQ 96 events / 8 per pass");
  EXPECT_EQ(p.passes.size(), 12u);
  EXPECT_TRUE(p.optimal);
  EXPECT_FALSE(p.time_capped);
  EXPECT_EQ(p.distinct_events, 222);
  expect_valid(gfx942(), r, p);
  for (const auto& pass : p.passes) EXPECT_EQ(pass.used.at("SQ"), 8);
}

// rocprofiler-compute --roof-only (profile_configs/gfx940/roofline/pmc_roof_perf.txt) is 3 passes;
// SQ 19 events / 8 = 3.
TEST(Planner, RooflineSetMeetsLowerBoundOf3) {
  Request r = from_set("roofline");
  Plan p = plan_passes(gfx942(), r);
  EXPECT_EQ(p.lower_bound, 3);
  EXPECT_EQ(p.passes.size(), 3u);
  EXPECT_TRUE(p.optimal);
  expect_valid(gfx942(), r, p);
  // Every roofline formula fits one pass on its own, and all of them fit together in 3 passes.
  EXPECT_EQ(p.split_groups, 0);
}

TEST(Planner, EveryShippedSetIsValidAndAtItsBound) {
  for (const auto& name : hw::metric_set_names(k_src + "/configs/metrics")) {
    Request r = from_set(name);
    Plan p = plan_passes(gfx942(), r);
    expect_valid(gfx942(), r, p);
    EXPECT_EQ(static_cast<int>(p.passes.size()), p.lower_bound) << name;
    EXPECT_TRUE(p.optimal) << name;
    Plan ff = first_fit_plan(gfx942(), r);
    expect_valid(gfx942(), r, ff);
    EXPECT_GE(ff.passes.size(), p.passes.size()) << name;
  }
}

TEST(Planner, SharedEventsCostOneSlot) {
  Plan p = plan_passes(gfx942(), of({"TCC_HIT", "TCC_HIT_sum", "TCC_HIT[3]", "TCC_HIT[100]"}));
  ASSERT_EQ(p.passes.size(), 1u);
  EXPECT_EQ(p.passes[0].used.at("TCC"), 1);
  EXPECT_EQ(occupancy_text(gfx942(), p.passes[0]), "TCC 1/4");
}

// FETCH_SIZE (3 TCC) and WRITE_SIZE (2 TCC) cannot share a pass (TCC has 4 counters:
// ROCm/aqlprofile gfxip/gfx9/gfx9_block_table.h).
TEST(Planner, DerivedCountersStayWhole) {
  Request r = of({"FETCH_SIZE", "WRITE_SIZE", "TCC_HIT_sum", "GRBM_GUI_ACTIVE"});
  Plan p = plan_passes(gfx942(), r);
  EXPECT_EQ(p.lower_bound, 2);
  ASSERT_EQ(p.passes.size(), 2u);
  EXPECT_TRUE(p.optimal);
  expect_valid(gfx942(), r, p);
  EXPECT_EQ(p.passes[0].counters.front(), "FETCH_SIZE");
}

TEST(Planner, PinnedCountersShareAPass) {
  Request r =
      of({"SQ_WAVES", "SQ_INSTS", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_SMEM",
          "SQ_INSTS_VMEM", "SQ_INSTS_LDS", "SQ_INSTS_BRANCH", "SQ_INSTS_MFMA", "SQ_BUSY_CYCLES"});
  r.pins.push_back(Pin{{"SQ_WAVES", "SQ_BUSY_CYCLES", "GRBM_GUI_ACTIVE"}, std::nullopt});
  Plan p = plan_passes(gfx942(), r);
  ASSERT_EQ(p.passes.size(), 2u);
  expect_valid(gfx942(), r, p);
  const auto& c = p.passes[0].counters;
  EXPECT_NE(std::find(c.begin(), c.end(), "SQ_BUSY_CYCLES"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "GRBM_GUI_ACTIVE"), c.end());
}

TEST(Planner, OneAccumulatePairPerPass) {
  Request r =
      of({"SQ_LEVEL_WAVES_ACCUM", "SQ_IFETCH_LEVEL_ACCUM", "SQ_LEVEL_WAVES", "SQ_IFETCH_LEVEL"});
  Plan p = plan_passes(gfx942(), r);
  EXPECT_EQ(p.lower_bound, 2);
  EXPECT_EQ(p.lower_bound_reason, "2 accumulate events / 1 per pass");
  ASSERT_EQ(p.passes.size(), 2u);
  expect_valid(gfx942(), r, p);
  for (const auto& pass : p.passes) EXPECT_EQ(pass.used.at("SQ"), 2);
}

TEST(Planner, PinThatCannotFitNamesTheBlock) {
  Request r = of({"SQ_WAVES"});
  r.pins.push_back(Pin{{"FETCH_SIZE", "WRITE_SIZE"}, SourcePos{"rb.yaml", 9, 7}});
  try {
    plan_passes(gfx942(), r);
    FAIL();
  } catch (const Error& e) {
    const auto& d = e.diagnostics()[0];
    EXPECT_EQ(d.what,
              "pinned counters [FETCH_SIZE, WRITE_SIZE] needs 5 TCC counters but one pass holds 4");
    EXPECT_EQ(d.pos->str(), "rb.yaml:9:7");
  }
}

TEST(Planner, UnknownCounterAtItsPosition) {
  Request r;
  r.counters.push_back(Requested{"TCC_HIT_SUM", SourcePos{"rb.yaml", 4, 9}});
  try {
    plan_passes(gfx942(), r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].pos->str(), "rb.yaml:4:9");
    EXPECT_NE(e.diagnostics()[0].hint.find("TCC_HIT_sum"), std::string::npos);
  }
}

TEST(Planner, DeterministicForTheSameInput) {
  Request r = from_set("full");
  Plan a = plan_passes(gfx942(), r), b = plan_passes(gfx942(), r);
  ASSERT_EQ(a.passes.size(), b.passes.size());
  for (size_t i = 0; i < a.passes.size(); ++i)
    EXPECT_EQ(a.passes[i].counters, b.passes[i].counters);
  EXPECT_EQ(a.nodes, b.nodes);
}

TEST(Planner, RandomSubsetsOfFullAreValidAndNeverWorseThanFirstFit) {
  Request full = from_set("full");
  std::mt19937 rng(42);
  for (int trial = 0; trial < 30; ++trial) {
    Request r;
    for (const auto& c : full.counters)
      if (rng() % 3 == 0) r.counters.push_back(c);
    if (r.counters.empty()) continue;
    Plan p = plan_passes(gfx942(), r);
    Plan ff = first_fit_plan(gfx942(), r);
    expect_valid(gfx942(), r, p);
    EXPECT_GE(static_cast<int>(p.passes.size()), p.lower_bound);
    EXPECT_LE(p.passes.size(), ff.passes.size());
  }
}

// Synthetic target: four derived counters of 3 distinct TCC events each. The per-block bound is
// ceil(12/4) = 3, but no pass holds two of them: 4 passes, proved by exhausting k = 3.
class Synthetic : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("kprof_plan_" + std::to_string(::getpid()));
    std::filesystem::create_directories(m_dir);
    std::string text =
        "arch: synth\nblocks:\n  - {name: TCC, counters_per_pass: 4, values_per_dispatch: 16}\n"
        "counters:\n";
    for (int i = 0; i < 12; ++i) text += "  - {name: E" + std::to_string(i) + ", block: TCC}\n";
    text += "derived:\n";
    for (int d = 0; d < 4; ++d)
      text += "  - {name: D" + std::to_string(d) + ", expression: \"E" + std::to_string(3 * d) +
              "+E" + std::to_string(3 * d + 1) + "+E" + std::to_string(3 * d + 2) + "\"}\n";
    text += "  - {name: FIVE, expression: \"E0+E1+E2+E3+E4\"}\n";
    std::ofstream(m_dir / "synth.yaml") << text;
    m_target = hw::Target::load(m_dir / "synth.yaml");
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
  std::optional<hw::Target> m_target;
};

TEST_F(Synthetic, LowerBoundNotReachableIsProvedByExhaustion) {
  Request r = of({"D0", "D1", "D2", "D3"});
  Plan p = plan_passes(*m_target, r);
  EXPECT_EQ(p.lower_bound, 3);
  EXPECT_EQ(p.passes.size(), 4u);
  EXPECT_TRUE(p.optimal);
  EXPECT_EQ(p.proved_at_least, 4);
  EXPECT_FALSE(p.time_capped);
  expect_valid(*m_target, r, p);
}

TEST_F(Synthetic, NodeBudgetStopsTheSearchAndSaysSo) {
  Request r = of({"D0", "D1", "D2", "D3"});
  PlanOptions o;
  o.node_budget = 1;
  Plan p = plan_passes(*m_target, r, o);
  EXPECT_TRUE(p.time_capped);
  EXPECT_FALSE(p.optimal);
  EXPECT_EQ(p.passes.size(), 4u);  // the greedy best-so-far
  expect_valid(*m_target, r, p);
}

TEST_F(Synthetic, CounterThatCannotFitAloneNamesTheBlock) {
  try {
    plan_passes(*m_target, of({"D0", "FIVE"}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].what, "counter 'FIVE' needs 5 TCC counters but one pass holds 4");
    EXPECT_EQ(e.exit_code(), 2);
  }
}

}  // namespace
}  // namespace kprof::plan
