// Spot checks of configs/hw/gfx942.yaml against rocprofiler-sdk's counter_defs.yaml and
// aqlprofile's block table, and the expansion/evaluation of derived counters against hand-computed
// values.
#include <gtest/gtest.h>

#include <map>

#include "core/hw/expr.hpp"
#include "core/hw/target.hpp"

namespace kprof::hw {
namespace {

const Target& gfx942() {
  static const Target t = Target::load(std::string(KPROF_SOURCE_DIR) + "/configs/hw/gfx942.yaml");
  return t;
}

using Values = std::map<std::string, double>;

// Base values keyed by Event::str() ("SQ_LEVEL_WAVES:HIGH_RES" for flagged events).
std::optional<double> eval(std::string_view name, const Values& v) {
  return gfx942().evaluate(name, [&](const Event& e) -> std::optional<double> {
    auto it = v.find(e.str());
    if (it == v.end()) return std::nullopt;
    return it->second;
  });
}

std::vector<std::string> strs(const std::vector<Event>& ev) {
  std::vector<std::string> s;
  for (const auto& e : ev) s.push_back(e.str());
  return s;
}

// ROCm/aqlprofile gfxip/gfx9/gfx9_block_table.h: counter_count per block on gfx942.
TEST(Gfx942, BlockLimitsMatchFacts) {
  const Target& t = gfx942();
  EXPECT_EQ(t.arch(), "gfx942");
  std::map<std::string, int> expected{{"SQ", 8},  {"TA", 2},   {"TD", 2},      {"TCP", 4},
                                      {"TCC", 4}, {"TCA", 4},  {"CPC", 2},     {"CPF", 2},
                                      {"SPI", 6}, {"GRBM", 2}, {"GRBM_SE", 4}, {"GDS", 4}};
  EXPECT_EQ(t.blocks().size(), expected.size());
  for (const auto& [name, limit] : expected) {
    ASSERT_NE(t.block(name), nullptr) << name;
    EXPECT_EQ(t.block(name)->counters_per_pass, limit) << name;
  }
  EXPECT_EQ(t.block("TCC")->instances, 16);
  EXPECT_EQ(t.block("TCC")->values_per_dispatch, 128);  // 8 XCD x 16 channels
  EXPECT_EQ(t.block("GRBM")->values_per_dispatch, 8);
  EXPECT_EQ(t.block("NOPE"), nullptr);
}

// rocprofiler-sdk counter_defs.yaml: 265 base + SQC_DCACHE_INFLIGHT_LEVEL and 3 SQ_VMEM_* from
// rocprofiler-compute's copy; 154 SDK derived + 6 *_ACCUM.
TEST(Gfx942, CounterCatalogMatchesFacts) {
  const Target& t = gfx942();
  EXPECT_EQ(t.base_names().size(), 269u);
  EXPECT_EQ(t.derived_names().size(), 160u);
  EXPECT_EQ(t.counter_names().size(), 429u);
  std::map<std::string, int> per_block;
  for (const auto& n : t.base_names()) ++per_block[t.base(n)->block];
  EXPECT_EQ(per_block["SQ"], 115);
  EXPECT_EQ(per_block["TCC"], 45);
  EXPECT_EQ(per_block["TCP"], 38);
  EXPECT_EQ(per_block["SPI"], 18);
  EXPECT_EQ(per_block["TA"], 16);
  EXPECT_EQ(per_block["GRBM"], 10);
  struct Spot {
    const char* name;
    const char* block;
    int event;
  } spots[] = {{"GRBM_GUI_ACTIVE", "GRBM", 2},
               {"GRBM_COUNT", "GRBM", 0},
               {"SQ_WAVES", "SQ", 4},
               {"SQ_WAVE_CYCLES", "SQ", 79},
               {"TCC_HIT", "TCC", 17},
               {"TCC_BUBBLE", "TCC", 56},
               {"TCC_EA0_RDREQ", "TCC", 38},
               {"TA_TA_BUSY", "TA", 13},
               {"SPI_CSN_WAVE", "SPI", 52},
               {"CPC_CPC_STAT_BUSY", "CPC", 25},
               {"SQ_ACCUM_PREV_HIRES", "SQ", 184},
               {"SQC_ICACHE_HITS", "SQ", -2}};
  for (const auto& s : spots) {
    const BaseCounter* c = t.base(s.name);
    ASSERT_NE(c, nullptr) << s.name;
    EXPECT_EQ(c->block, s.block) << s.name;
    if (s.event >= 0) {
      EXPECT_EQ(c->event_id, s.event) << s.name;
    }
    EXPECT_FALSE(c->description.empty());
    EXPECT_GT(c->pos.line, 0);
  }
  EXPECT_EQ(t.derived("FETCH_SIZE")->expression,
            "(TCC_BUBBLE_sum*128 + (TCC_EA0_RDREQ_sum-TCC_BUBBLE_sum-TCC_EA0_RDREQ_32B_sum)*64 + "
            "TCC_EA0_RDREQ_32B_sum*32)/1024");
  EXPECT_TRUE(t.known("TCC_HIT_sum"));
  EXPECT_FALSE(t.known("GPUBusy"));  // gfx90a only (rocprofiler-sdk counter_defs.yaml)
}

TEST(Gfx942, PeaksAndConstants) {
  const Peaks& p = gfx942().peaks();
  EXPECT_DOUBLE_EQ(p.hbm_bytes_per_s, 5.3248e12);
  EXPECT_DOUBLE_EQ(p.l2_bytes_per_s, 34.4e12);
  EXPECT_DOUBLE_EQ(p.matrix_bf16_flops, 1307.4e12);
  EXPECT_DOUBLE_EQ(p.matrix_fp8_flops, 2614.9e12);
  EXPECT_DOUBLE_EQ(p.matrix_fp32_flops, 163.4e12);
  EXPECT_DOUBLE_EQ(p.vector_fp64_flops, 81.7e12);
  EXPECT_EQ(p.cus, 304);
  EXPECT_EQ(p.xcds, 8);
  EXPECT_DOUBLE_EQ(p.clock_mhz, 2100);
  EXPECT_EQ(p.wave_size, 64);
  // 2048 FLOP/clk/CU x 304 CU x 2.1 GHz = 1307.4 TFLOP/s (ROCm docs, GPU specifications).
  EXPECT_NEAR(2048.0 * p.cus * p.clock_mhz * 1e6, p.matrix_bf16_flops, 0.05e12);
  EXPECT_DOUBLE_EQ(gfx942().constants().at("simd_count"), 1216);
}

TEST(Gfx942, ExpansionToEvents) {
  const Target& t = gfx942();
  EXPECT_EQ(strs(t.events_of("FETCH_SIZE")),
            (std::vector<std::string>{"TCC_BUBBLE", "TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B"}));
  EXPECT_EQ(strs(t.events_of("WRITE_SIZE")),
            (std::vector<std::string>{"TCC_EA0_WRREQ", "TCC_EA0_WRREQ_64B"}));
  EXPECT_EQ(strs(t.events_of("TCC_HIT_sum")), (std::vector<std::string>{"TCC_HIT"}));
  EXPECT_EQ(strs(t.events_of("TCC_HIT[17]")), (std::vector<std::string>{"TCC_HIT"}));
  EXPECT_EQ(strs(t.events_of("BANDWIDTH_EA")),
            (std::vector<std::string>{"GRBM_GUI_ACTIVE", "TCC_BUBBLE", "TCC_EA0_RDREQ",
                                      "TCC_EA0_WRREQ", "TCC_EA0_WRREQ_64B"}));
  // accumulate(X) needs X itself in the previous SQ slot: both events.
  EXPECT_EQ(
      strs(t.events_of("MeanOccupancyPerCU")),
      (std::vector<std::string>{"GRBM_GUI_ACTIVE", "SQ_LEVEL_WAVES", "SQ_LEVEL_WAVES:HIGH_RES"}));
  EXPECT_TRUE(t.events_of("CU_NUM").empty());  // constants only
  EXPECT_EQ(t.kind_of("TCC_HIT[127]"), CounterKind::channel);
  EXPECT_EQ(t.kind_of("TCC_HIT[128]"), CounterKind::unknown);
  EXPECT_EQ(t.kind_of("SQ_WAVES[1]"), CounterKind::channel);
  EXPECT_EQ(t.kind_of("FETCH_SIZE"), CounterKind::derived);
  EXPECT_STREQ(to_string(t.kind_of("SQ_WAVES")), "base");
}

TEST(Gfx942, OccupancyDeduplicatesAndFlagsOverflow) {
  const Target& t = gfx942();
  Occupancy one = t.occupancy({"TCC_HIT_sum", "TCC_HIT", "TCC_HIT[3]", "TCC_MISS_sum"});
  EXPECT_EQ(one.used.at("TCC"), 2);
  EXPECT_TRUE(one.fits());

  Occupancy five = t.occupancy({"FETCH_SIZE", "WRITE_SIZE"});  // 5 TCC events
  EXPECT_EQ(five.used.at("TCC"), 5);
  EXPECT_FALSE(five.fits());
  EXPECT_EQ(five.over_blocks, (std::vector<std::string>{"TCC"}));

  Occupancy acc = t.occupancy({"SQ_LEVEL_WAVES_ACCUM", "SQ_IFETCH_LEVEL_ACCUM"});
  EXPECT_EQ(acc.used.at("SQ"), 4);
  EXPECT_EQ(acc.accumulate_events, 2);
  EXPECT_EQ(acc.over_blocks, (std::vector<std::string>{"SQ"}));  // one accumulator per pass
  EXPECT_TRUE(t.occupancy({"SQ_LEVEL_WAVES_ACCUM", "MeanOccupancyPerCU"}).fits());
}

TEST(Gfx942, UnknownCounterSuggestsNearestNames) {
  try {
    gfx942().events_of("TCC_HTI_sum");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].what.find("unknown counter 'TCC_HTI_sum'"), std::string::npos);
    EXPECT_NE(e.diagnostics()[0].hint.find("TCC_HIT_sum"), std::string::npos);
  }
  EXPECT_EQ(gfx942().nearest("FETCH_SIZ").front(), "FETCH_SIZE");
  EXPECT_EQ(gfx942().nearest("FETCH_SIZ").size(), 3u);
  EXPECT_THROW(gfx942().events_at("NOPE", SourcePos{"rb.yaml", 3, 5}), Error);
  try {
    gfx942().events_at("NOPE", SourcePos{"rb.yaml", 3, 5});
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].pos->str(), "rb.yaml:3:5");
  }
}

// Hand-computed values. FETCH_SIZE with BUBBLE=10, RDREQ=100, RDREQ_32B=20:
// (10*128 + (100-10-20)*64 + 20*32)/1024 = (1280 + 4480 + 640)/1024 = 6.25 KB.
TEST(Gfx942, EvaluatesMemoryCounters) {
  Values v{{"TCC_BUBBLE", 10},    {"TCC_EA0_RDREQ", 100},    {"TCC_EA0_RDREQ_32B", 20},
           {"TCC_EA0_WRREQ", 50}, {"TCC_EA0_WRREQ_64B", 30}, {"TCC_HIT", 777}};
  EXPECT_DOUBLE_EQ(*eval("FETCH_SIZE", v), 6.25);
  EXPECT_DOUBLE_EQ(*eval("FetchSize", v), 6.25);
  // ((50-30)*32 + 30*64)/1024 = (640 + 1920)/1024 = 2.5 KB
  EXPECT_DOUBLE_EQ(*eval("WRITE_SIZE", v), 2.5);
  EXPECT_DOUBLE_EQ(*eval("TCC_HIT_sum", v), 777);  // reduce(sum) of a summed value is itself
  EXPECT_DOUBLE_EQ(*eval("TCC_HIT", v), 777);
  EXPECT_FALSE(eval("TCC_MISS_sum", v).has_value());  // not collected
  EXPECT_FALSE(eval("TCC_HIT[3]", v).has_value());    // one channel of a sum: unknown
}

TEST(Gfx942, EvaluatesComputeCounters) {
  Values v{{"SQ_INSTS_VALU_MFMA_MOPS_F16", 1},
           {"SQ_INSTS_VALU_MFMA_MOPS_BF16", 3},
           {"SQ_INSTS_VALU_MFMA_MOPS_F32", 5},
           {"SQ_INSTS_VALU_MFMA_MOPS_F64", 7},
           {"SQ_INSTS_VALU_FMA_F16", 2},
           {"SQ_INSTS_VALU_ADD_F16", 1},
           {"SQ_INSTS_VALU_MUL_F16", 1},
           {"SQ_INSTS_VALU_TRANS_F16", 1},
           {"GRBM_GUI_ACTIVE", 8000},
           {"GRBM_COUNT", 10000},
           {"SQ_LEVEL_WAVES:HIGH_RES", 2432000},
           {"SQ_LEVEL_WAVES", 5},
           {"SQ_VALU_MFMA_BUSY_CYCLES", 1216000}};
  EXPECT_DOUBLE_EQ(*eval("MfmaFlopsBF16", v), 3 * 512);
  EXPECT_DOUBLE_EQ(*eval("MfmaFlops", v), (1 + 3 + 5 + 7) * 512);
  // (2*2 + 1 + 1 + 1)*64 + (1 + 3)*512 = 448 + 2048
  EXPECT_DOUBLE_EQ(*eval("TOTAL_16_OPS", v), 2496);
  // max of a per-XCD GRBM value summed over 8 XCDs: sum/8 on both sides, ratio 80 %.
  EXPECT_DOUBLE_EQ(*eval("GPU_UTIL", v), 80);
  // 2432000 / (8000/8) / (1216/4) = 8 waves per CU.
  EXPECT_DOUBLE_EQ(*eval("MeanOccupancyPerCU", v), 8);
  // 1216000 / ((8000/8) * 1216) * 100 = 100 %.
  EXPECT_DOUBLE_EQ(*eval("MfmaUtil", v), 100);
  EXPECT_DOUBLE_EQ(*eval("CU_NUM", v), 304);
  Values zero{{"GRBM_GUI_ACTIVE", 0}, {"GRBM_COUNT", 0}};
  EXPECT_FALSE(eval("GPU_UTIL", zero).has_value());  // 0/0: no value, never NaN
}

TEST(Gfx942, EvaluatesParsedFormulas) {
  auto e = Expr::parse("reduce(TCC_HIT,sum)/(reduce(TCC_HIT,sum)+reduce(TCC_MISS,sum))*100");
  std::vector<std::string> ev = strs(gfx942().events_of(*e));
  EXPECT_EQ(ev, (std::vector<std::string>{"TCC_HIT", "TCC_MISS"}));
  auto v = gfx942().evaluate(*e, [](const Event& x) -> std::optional<double> {
    return x.counter == "TCC_HIT" ? 30.0 : 10.0;
  });
  EXPECT_DOUBLE_EQ(*v, 75);
  auto avg = Expr::parse("reduce(TCC_HIT,avr)");
  EXPECT_DOUBLE_EQ(
      *gfx942().evaluate(*avg, [](const Event&) { return std::optional<double>(256); }), 2);
  auto mx = Expr::parse("max(TCC_HIT, 1000) - min(3, TCC_HIT)");
  EXPECT_DOUBLE_EQ(*gfx942().evaluate(*mx, [](const Event&) { return std::optional<double>(256); }),
                   997);
}

TEST(Gfx942, LoadArchFindsConfigDir) {
  Target t = Target::load_arch("gfx942");
  EXPECT_EQ(t.arch(), "gfx942");
  EXPECT_THROW(Target::load_arch("gfx000"), Error);
}

}  // namespace
}  // namespace kprof::hw
