// Physically impossible figures are flagged, never printed plain: a hand-made gfx942 capture whose
// counters claim more HBM traffic than MI300X's HBM can move in the kernels' trace durations
// (configs/hw/gfx942.yaml peaks: 5.3248e12 B/s). The roofline and metrics views keep the figure
// and say, in a `suspect` column and a note, what is impossible and why.
#include <gtest/gtest.h>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/views/views.hpp"
#include "tests/analysis/capture_fixture.hpp"
#include "tests/analysis/mi300x_csv.hpp"

namespace kprof::analysis {
namespace {

TEST(PeakFlags, RatesAbovePeakAreMarkedWithTheReason) {
  test::TempDb tmp("peak");
  const auto dir = tmp.dir();
  test::write(dir / "100_agent_info.csv", test::mi300x_agents());
  // Two launches of 1 us each.
  test::write(
      dir / "100_kernel_trace.csv",
      test::k_trace_header +
          "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,1,7,\"copy_kernel\",1,1000000,1001000,0,0,"
          "16,0,32,256,1,1,65536,1,1\n"
          "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,2,7,\"copy_kernel\",2,1002000,1003000,0,0,"
          "16,0,32,256,1,1,65536,1,1\n");
  // FETCH_SIZE is in KiB: 10,000 KiB in 1 us is 10.24 TB/s, about twice MI300X's HBM peak.
  std::string counters = test::k_counter_header;
  for (int id : {1, 2}) {
    const std::string pre = std::to_string(id) + "," + std::to_string(id) +
                            ",\"Agent 1\",1,100,100,65536,7,\"copy_kernel\",256,0,0,16,0,32,";
    counters += pre + "\"FETCH_SIZE\",10000,0,0\n";
    counters += pre + "\"WRITE_SIZE\",0,0,0\n";
    counters += pre + "\"SQ_INSTS_VALU_MFMA_MOPS_BF16\",1000,0,0\n";
  }
  test::write(dir / "200_counter_collection.csv", counters);
  {
    store::CaptureDb db(tmp.path());
    test::load_trace_and_counters(db, dir, {"200_counter_collection.csv"});
    const Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.arch, "gfx942");
    ensure_joins(db, cap);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  ViewOptions machine;
  machine.structured = true;  // CSV, JSON: the suspect sentence as fields too
  for (const char* view : {"roofline", "metrics"}) {
    const Table t = q.view(view, {});
    ASSERT_EQ(t.rows.size(), 1u) << view;
    auto col = [&](const std::string& name) {
      for (size_t i = 0; i < t.columns.size(); ++i)
        if (t.columns[i] == name) return t.rows[0][i];
      ADD_FAILURE() << view << " has no column " << name;
      return Cell();
    };
    EXPECT_NEAR(std::get<double>(col("tbps")), 10.24, 0.01) << view;
    const std::string suspect = std::get<std::string>(col("suspect"));
    EXPECT_EQ(suspect, "tbps 10.24 > HBM peak 5.32") << view;
    bool noted = false;
    for (const auto& n : t.notes)
      noted |= n.rfind("suspect: figures above a physical peak of AMD Instinct MI300X", 0) == 0;
    EXPECT_TRUE(noted) << view;
    const Table m = q.view(view, machine);
    ASSERT_EQ(m.rows.size(), 1u) << view;
    ASSERT_EQ(m.columns.size(), t.columns.size() + 3) << view;
    const auto& r = m.rows[0];
    const size_t n = t.columns.size();
    EXPECT_EQ(m.columns[n], "mixed");
    EXPECT_EQ(std::get<std::string>(r[n]), "no") << view;  // FLOPs and bytes both from pass 1
    EXPECT_EQ(std::get<std::string>(r[n + 1]), "tbps:above_hbm_peak") << view;
    EXPECT_EQ(std::get<std::string>(r[n + 2]), "other_run_durations") << view;
  }
  const Table roof = q.view("roofline", {});
  for (size_t i = 0; i < roof.columns.size(); ++i)
    if (roof.columns[i] == "pct_peak_hbm") {
      EXPECT_GT(std::get<double>(roof.rows[0][i]), 100.0);
    }
}

TEST(PeakFlags, PossibleFiguresAreNotFlagged) {
  hw::Peaks peaks;
  peaks.hbm_bytes_per_s = 5.3248e12;
  peaks.matrix_bf16_flops = 1307.4e12;
  GroupMetrics g;
  DispatchMetrics m;
  m.bytes_read = 4e6;  // 4 MB in 1 us: 4 TB/s, 75% of the peak
  m.bytes_written = 0;
  m.mfma_flops = 1e9;  // 1 PFLOP/s of BF16: below 1307 TFLOP/s
  m.dominant_type = "MFMA_BF16";
  g.add(m, 1000);
  EXPECT_TRUE(impossible_figures(g, peaks).empty());
  g.add(m, 1);  // the same work in 1 ns: both rates impossible
  const auto bad = impossible_figures(g, peaks);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].text.rfind("tflops ", 0), 0u);
  EXPECT_NE(bad[0].text.find("> MFMA_BF16 peak 1307.40"), std::string::npos);
  EXPECT_EQ(bad[1].text.rfind("tbps ", 0), 0u);
  // The machine form: fixed words, not the sentence.
  EXPECT_EQ(suspect_codes(bad), "tflops:above_peak;tbps:above_hbm_peak");
  EXPECT_EQ(suspect_text(bad), bad[0].text + "; " + bad[1].text);
  EXPECT_EQ(suspect_reason(g).rfind("counted work divided by trace durations", 0), 0u);
  EXPECT_EQ(suspect_cause(g), "other_run_durations");
}

// A join that pairs consecutive counter dispatches with trace dispatches far apart is flagged and
// its counters are left out of every view built on them, unless forced (--force-join).
TEST(JoinSelfCheck, UnreliableJoinIsExcludedUnlessForced) {
  test::TempDb tmp("jumps");
  const auto dir = tmp.dir();
  // 300 launches cycling through three kernels, then three others from launch 151; no host gaps
  // (no steps: the bound is max(64, 300 / 20) = 64).
  std::string trace = test::k_trace_header;
  auto kernel = [](int id) {
    static const char* const names[] = {"ka", "kb", "kc", "kd", "ke", "kf"};
    return std::string(names[id % 3 + (id > 150 ? 3 : 0)]);
  };
  for (int id = 1; id <= 300; ++id) {
    const int64_t t = 1000000 + id * 2000;
    trace += "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100," + std::to_string(id) + ",7,\"" +
             kernel(id) + "\"," + std::to_string(id) + "," + std::to_string(t) + "," +
             std::to_string(t + 1000) + ",0,0,16,0,32,256,1,1,65536,1,1\n";
  }
  test::write(dir / "100_kernel_trace.csv", trace);
  // Another run that did only the first 9 and the last 9 launches, numbered back to back.
  std::string counters = test::k_counter_header;
  int cid = 1;
  for (int id = 1; id <= 300; ++id) {
    if (id > 9 && id <= 291) continue;
    const std::string n = std::to_string(cid++);
    counters += n + "," + n + ",\"Agent 1\",1,200,200,65536,7,\"" + kernel(id) +
                "\",256,0,0,16,0,32,\"SQ_WAVES\",4,0,0\n";
  }
  test::write(dir / "200_counter_collection.csv", counters);
  {
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(db, run, 0, store::PassKind::trace, {(dir / "100_kernel_trace.csv").string()});
    test::load_pass(db, run, 1, store::PassKind::counters,
                    {(dir / "200_counter_collection.csv").string()});
    const Capture cap = load_capture(db, std::nullopt);
    const auto joins = ensure_joins(db, cap);
    ASSERT_EQ(joins.size(), 1u);
    EXPECT_EQ(joins[0].matched, 18);  // every counter dispatch found a partner...
    EXPECT_EQ(joins[0].method, store::JoinMethod::aligned);
    EXPECT_EQ(joins[0].jump_bound, 64);
    EXPECT_EQ(joins[0].jumps, 1);  // ...but the 9th and 10th are over 140 trace dispatches apart
    EXPECT_FALSE(joins[0].reliable);
    EXPECT_NE(join_check_text(joins[0]).find("UNRELIABLE"), std::string::npos);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  const Table excluded = q.view("counters", {});
  EXPECT_TRUE(excluded.rows.empty());
  bool flagged = false;
  for (const auto& n : excluded.notes) flagged |= n.find("pass 1: aligned") == 0;
  EXPECT_TRUE(flagged);
  // The passes view says it in words (`join`) and, in machine formats, as fields.
  ViewOptions machine;
  machine.structured = true;
  const Table passes = q.view("passes", machine);
  ASSERT_EQ(passes.rows.size(), 2u);
  const auto field = [&](const std::string& name) {
    for (size_t i = 0; i < passes.columns.size(); ++i)
      if (passes.columns[i] == name) return passes.rows[1][i];
    ADD_FAILURE() << "no column " << name;
    return Cell();
  };
  EXPECT_EQ(std::get<std::string>(field("join_method")), "aligned");
  EXPECT_EQ(std::get<std::string>(field("join_reliable")), "no");
  EXPECT_EQ(std::get<std::string>(field("join_monotone")), "yes");
  EXPECT_EQ(std::get<int64_t>(field("join_jump_bound")), 64);
  EXPECT_EQ(std::get<int64_t>(field("join_jumps")), 1);
  EXPECT_GT(std::get<int64_t>(field("join_max_jump")), 64);
  QueryContext forced(db, std::nullopt, FamilyRules::load_default());
  forced.use_unreliable_joins(true);
  const Table used = forced.view("counters", {});
  ASSERT_EQ(used.rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(used.rows[0][2]), 18);
  bool said = false;
  for (const auto& n : used.notes)
    said |= n.find("[used anyway: --force-join]") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace kprof::analysis
