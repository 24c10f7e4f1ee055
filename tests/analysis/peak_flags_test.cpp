// Physically impossible figures are flagged, never printed plain: a hand-made gfx942 capture whose
// counters claim more HBM traffic than MI300X's HBM can move in the kernels' trace durations
// (configs/hw/gfx942.yaml peaks: 5.3248e12 B/s). The roofline and metrics views keep the figure
// and say, in a `suspect` column and a note, what is impossible and why.
#include <gtest/gtest.h>

#include <fstream>

#include "core/analysis/analysis_db.hpp"
#include "core/analysis/views.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

const char* k_agent_header =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\","
    "\"Cpu_Core_Id_Base\",\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\","
    "\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\","
    "\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\","
    "\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\","
    "\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\","
    "\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\","
    "\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\",\"Capability\","
    "\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\","
    "\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\","
    "\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\","
    "\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n";

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A CPU agent and one MI300X (gfx942).
std::string mi300x_agents() {
  return std::string(k_agent_header) +
         "0,0,\"CPU\",128,0,0,0,0,0,0,0,0,1,128,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4311,0,0,0,0,"
         "0,0,23,0,0,0,0,0,0,0,0,0,0,0,\"cpu\",\"CPU\",\"cpu\",\"\"\n"
         "1,1,\"GPU\",0,1216,0,0,8,64,0,64,64,8,304,8,4,1,10,4,32,90402,4098,29857,0,0,128,"
         "4,0,8,8,2100,2100,0,0,0,38,32,148,1024,4294967295,0,0,1,1024,1024,1024,2147483647,"
         "65535,65535,\"gfx942\",\"AMD\",\"AMD Instinct MI300X\",\"aqua_vanjaram\"\n";
}

TEST(PeakFlags, RatesAbovePeakAreMarkedWithTheReason) {
  test::TempDb tmp("peak");
  const auto dir = tmp.dir();
  write(dir / "100_agent_info.csv", mi300x_agents());
  // Two launches of 1 us each.
  const std::string trace_header =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  write(dir / "100_kernel_trace.csv",
        trace_header +
            "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,1,7,\"copy_kernel\",1,1000000,1001000,0,0,"
            "16,0,32,256,1,1,65536,1,1\n"
            "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,2,7,\"copy_kernel\",2,1002000,1003000,0,0,"
            "16,0,32,256,1,1,65536,1,1\n");
  // FETCH_SIZE is in KiB: 10,000 KiB in 1 us is 10.24 TB/s, about twice MI300X's HBM peak.
  std::string counters =
      "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
      "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";
  for (int id : {1, 2}) {
    const std::string pre = std::to_string(id) + "," + std::to_string(id) +
                            ",\"Agent 1\",1,100,100,65536,7,\"copy_kernel\",256,0,0,16,0,32,";
    counters += pre + "\"FETCH_SIZE\",10000,0,0\n";
    counters += pre + "\"WRITE_SIZE\",0,0,0\n";
    counters += pre + "\"SQ_INSTS_VALU_MFMA_MOPS_BF16\",1000,0,0\n";
  }
  write(dir / "200_counter_collection.csv", counters);
  {
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(
        db, run, 0, store::PassKind::trace,
        {(dir / "100_agent_info.csv").string(), (dir / "100_kernel_trace.csv").string()});
    test::load_pass(
        db, run, 1, store::PassKind::counters,
        {(dir / "100_agent_info.csv").string(), (dir / "200_counter_collection.csv").string()});
    const Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.arch, "gfx942");
    ensure_joins(db, cap);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
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
  EXPECT_EQ(bad[0].rfind("tflops ", 0), 0u);
  EXPECT_NE(bad[0].find("> MFMA_BF16 peak 1307.40"), std::string::npos);
  EXPECT_EQ(bad[1].rfind("tbps ", 0), 0u);
  EXPECT_EQ(suspect_reason(g).rfind("counted work divided by trace durations", 0), 0u);
}

// A join that pairs consecutive counter dispatches with trace dispatches far apart is flagged and
// its counters are left out of every view built on them, unless forced (--force-join).
TEST(JoinSelfCheck, UnreliableJoinIsExcludedUnlessForced) {
  test::TempDb tmp("jumps");
  const auto dir = tmp.dir();
  const std::string trace_header =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  // 300 launches cycling through three kernels, then three others from launch 151; no host gaps
  // (no steps: the bound is max(64, 300 / 20) = 64).
  std::string trace = trace_header;
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
  write(dir / "100_kernel_trace.csv", trace);
  // Another run that did only the first 9 and the last 9 launches, numbered back to back.
  std::string counters =
      "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
      "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";
  int cid = 1;
  for (int id = 1; id <= 300; ++id) {
    if (id > 9 && id <= 291) continue;
    const std::string n = std::to_string(cid++);
    counters += n + "," + n + ",\"Agent 1\",1,200,200,65536,7,\"" + kernel(id) +
                "\",256,0,0,16,0,32,\"SQ_WAVES\",4,0,0\n";
  }
  write(dir / "200_counter_collection.csv", counters);
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
    EXPECT_EQ(joins[0].method, "aligned");
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

// The `metric_sets` view on a hand-made gfx942 capture: the memory set's l2_hit_percent
// (configs/metrics/memory.yaml: 100*TCC_HIT_sum/(TCC_HIT_sum+TCC_MISS_sum)) per kernel variant,
// evaluated per launch from the joined counters and averaged; a value whose inputs came from two
// counter passes is marked mixed, one outside 0..100 is named in `suspect`.
const std::string k_counter_header =
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
    "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";

// A counter row of dispatch `id` (kernel 7 copy_kernel for ids 1-2, kernel 8 other_kernel else).
std::string row(int id, const std::string& counter, double value) {
  const bool copy = id <= 2;
  return std::to_string(id) + "," + std::to_string(id) + ",\"Agent 1\",1,200,200,65536," +
         (copy ? "7,\"copy_kernel\"" : "8,\"other_kernel\"") + ",256,0,0,16,0,32,\"" + counter +
         "\"," + std::to_string(value) + ",0,0\n";
}

TEST(MetricSetsView, MemorySetMetricsPerVariantWithMixedAndImpossibleFlagged) {
  test::TempDb tmp("msets");
  const auto dir = tmp.dir();
  std::string trace =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  for (int id = 1; id <= 4; ++id) {
    const bool copy = id <= 2;
    const std::string t0 = std::to_string(1000000 + id * 2000);
    const std::string t1 = std::to_string(1000000 + id * 2000 + 1000);
    trace += "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100," + std::to_string(id) + "," +
             (copy ? "7,\"copy_kernel\"" : "8,\"other_kernel\"") + "," + std::to_string(id) + "," +
             t0 + "," + t1 + ",0,0,16,0,32,256,1,1,65536,1,1\n";
  }
  write(dir / "100_kernel_trace.csv", trace);
  write(dir / "100_agent_info.csv", mi300x_agents());
  // Pass 1: both counters of copy_kernel (75% and 50% hits), only TCC_HIT_sum of other_kernel.
  write(dir / "200_counter_collection.csv",
        k_counter_header + row(1, "TCC_HIT_sum", 300) + row(1, "TCC_MISS_sum", 100) +
            row(2, "TCC_HIT_sum", 100) + row(2, "TCC_MISS_sum", 100) + row(3, "TCC_HIT_sum", 100) +
            row(4, "TCC_HIT_sum", 100));
  // Pass 2 (another run of the application): other_kernel's misses, a corrupt negative count.
  write(dir / "300_counter_collection.csv",
        k_counter_header + row(3, "TCC_MISS_sum", -10) + row(4, "TCC_MISS_sum", -10));
  {
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(
        db, run, 0, store::PassKind::trace,
        {(dir / "100_agent_info.csv").string(), (dir / "100_kernel_trace.csv").string()});
    test::load_pass(
        db, run, 1, store::PassKind::counters,
        {(dir / "100_agent_info.csv").string(), (dir / "200_counter_collection.csv").string()});
    test::load_pass(
        db, run, 2, store::PassKind::counters,
        {(dir / "100_agent_info.csv").string(), (dir / "300_counter_collection.csv").string()});
    Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.arch, "gfx942");
    ensure_joins(db, cap);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  ViewOptions o;
  o.metric_sets = {"memory"};
  const Table t = q.view("metric_sets", o);
  auto col = [&](size_t r, const std::string& name) {
    for (size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i] == name) return t.rows[r][i];
    ADD_FAILURE() << "no column " << name;
    return Cell();
  };
  ASSERT_EQ(t.rows.size(), 2u);
  // Only the metrics with values are columns; the others are named in a note with their counters.
  EXPECT_EQ(t.columns,
            (std::vector<std::string>{"variant", "family", "kernel", "launches", "with_counters",
                                      "l2_hit_percent", "passes", "suspect"}));
  for (size_t r = 0; r < 2; ++r) {
    const std::string kernel = std::get<std::string>(col(r, "kernel"));
    EXPECT_EQ(std::get<int64_t>(col(r, "launches")), 2);
    if (kernel == "copy_kernel") {
      // The mean of the launches' values (75, 50), not the pooled ratio (400/600).
      EXPECT_DOUBLE_EQ(std::get<double>(col(r, "l2_hit_percent")), 62.5);
      EXPECT_EQ(std::get<std::string>(col(r, "passes")), "1");
      EXPECT_TRUE(std::holds_alternative<std::monostate>(col(r, "suspect")));
    } else {
      EXPECT_EQ(kernel, "other_kernel");
      EXPECT_NEAR(std::get<double>(col(r, "l2_hit_percent")), 100.0 * 100 / 90, 1e-9);
      EXPECT_EQ(std::get<std::string>(col(r, "passes")), "1+2 (mixed)");
      EXPECT_EQ(std::get<std::string>(col(r, "suspect")), "l2_hit_percent 111.11 outside 0..100");
    }
  }
  bool not_shown = false, mixed = false, suspect = false;
  for (const auto& n : t.notes) {
    not_shown |= n.find("memory.hbm_read_bytes (TCC_BUBBLE_sum") != std::string::npos;
    mixed |=
        n.rfind("(mixed): the inputs of l2_hit_percent came from different counter passes", 0) == 0;
    suspect |= n.rfind("suspect: values no ", 0) == 0;
  }
  EXPECT_TRUE(not_shown);
  EXPECT_TRUE(mixed);
  EXPECT_TRUE(suspect);
}

}  // namespace
}  // namespace kprof::analysis
