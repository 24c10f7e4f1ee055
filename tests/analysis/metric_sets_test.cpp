// The `metric_sets` view: the metrics the metric sets define (configs/metrics/*.yaml formulas),
// per kernel variant and phase, on hand-made gfx942 captures loaded through the real ingest
// library.
#include <gtest/gtest.h>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/views/views.hpp"
#include "tests/analysis/capture_fixture.hpp"
#include "tests/analysis/mi300x_csv.hpp"
#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

// The `metric_sets` view on a hand-made gfx942 capture: the memory set's l2_hit_percent
// (configs/metrics/memory.yaml: 100*TCC_HIT_sum/(TCC_HIT_sum+TCC_MISS_sum)) per kernel variant,
// evaluated per launch from the joined counters and averaged; a value whose inputs came from two
// counter passes is marked mixed, one outside 0..100 is named in `suspect` (and, in machine
// formats, as fields: mixed, suspect_flags).
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
  std::string trace = test::k_trace_header;
  for (int id = 1; id <= 4; ++id) {
    const bool copy = id <= 2;
    const std::string t0 = std::to_string(1000000 + id * 2000);
    const std::string t1 = std::to_string(1000000 + id * 2000 + 1000);
    trace += "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100," + std::to_string(id) + "," +
             (copy ? "7,\"copy_kernel\"" : "8,\"other_kernel\"") + "," + std::to_string(id) + "," +
             t0 + "," + t1 + ",0,0,16,0,32,256,1,1,65536,1,1\n";
  }
  test::write(dir / "100_kernel_trace.csv", trace);
  test::write(dir / "100_agent_info.csv", test::mi300x_agents());
  // Pass 1: both counters of copy_kernel (75% and 50% hits), only TCC_HIT_sum of other_kernel.
  test::write(dir / "200_counter_collection.csv",
              test::k_counter_header + row(1, "TCC_HIT_sum", 300) + row(1, "TCC_MISS_sum", 100) +
                  row(2, "TCC_HIT_sum", 100) + row(2, "TCC_MISS_sum", 100) +
                  row(3, "TCC_HIT_sum", 100) + row(4, "TCC_HIT_sum", 100));
  // Pass 2 (another run of the application): other_kernel's misses, a corrupt negative count.
  test::write(dir / "300_counter_collection.csv",
              test::k_counter_header + row(3, "TCC_MISS_sum", -10) + row(4, "TCC_MISS_sum", -10));
  {
    store::CaptureDb db(tmp.path());
    test::load_trace_and_counters(db, dir,
                                  {"200_counter_collection.csv", "300_counter_collection.csv"});
    Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.arch, "gfx942");
    ensure_joins(db, cap);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  ViewOptions o;
  o.metric_sets = {"memory"};
  o.structured = true;  // CSV, JSON: the marks as fields too
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
            (std::vector<std::string>{"variant", "family", "kernel", "phase", "launches",
                                      "with_counters", "l2_hit_percent", "passes", "suspect",
                                      "mixed", "unreliable_join", "suspect_flags"}));
  for (size_t r = 0; r < 2; ++r) {
    const std::string kernel = std::get<std::string>(col(r, "kernel"));
    EXPECT_EQ(std::get<int64_t>(col(r, "launches")), 2);
    // Four launches and no repetition: no steps, so every launch is in phase unknown.
    EXPECT_EQ(std::get<std::string>(col(r, "phase")), "unknown");
    EXPECT_EQ(std::get<std::string>(col(r, "unreliable_join")), "no");
    if (kernel == "copy_kernel") {
      // The mean of the launches' values (75, 50), not the pooled ratio (400/600).
      EXPECT_DOUBLE_EQ(std::get<double>(col(r, "l2_hit_percent")), 62.5);
      EXPECT_EQ(std::get<std::string>(col(r, "passes")), "1");
      EXPECT_TRUE(std::holds_alternative<std::monostate>(col(r, "suspect")));
      EXPECT_EQ(std::get<std::string>(col(r, "mixed")), "no");
      EXPECT_TRUE(std::holds_alternative<std::monostate>(col(r, "suspect_flags")));
    } else {
      EXPECT_EQ(kernel, "other_kernel");
      EXPECT_NEAR(std::get<double>(col(r, "l2_hit_percent")), 100.0 * 100 / 90, 1e-9);
      EXPECT_EQ(std::get<std::string>(col(r, "passes")), "1+2 (mixed)");
      EXPECT_EQ(std::get<std::string>(col(r, "suspect")), "l2_hit_percent 111.11 outside 0..100");
      EXPECT_EQ(std::get<std::string>(col(r, "mixed")), "yes");
      EXPECT_EQ(std::get<std::string>(col(r, "suspect_flags")), "l2_hit_percent:outside_0_100");
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

// Per variant AND phase: an LLM-like trace (test::moe_like: a prefill step with larger grids, then
// 20 decode steps; argmax_kernel launches the same grid in both, so one variant spans both phases)
// and the counters of the same rocprofv3 invocation (same ids, pid and times: joined by id) for
// argmax_kernel only. Its prefill launch hits L2 25 % of the time, its decode launches 75 %: one
// row per phase, each with its own mean, not one 72.6 % row that mixes them.
TEST(MetricSetsView, OneRowPerVariantAndPhase) {
  test::TempDb tmp("msets-phase");
  const auto dir = tmp.dir();
  NameTable names;
  const PassData p = test::build(test::moe_like(8, 20), names);
  std::string trace = test::k_trace_header, counters = test::k_counter_header;
  const auto argmax = names.intern("argmax_kernel");
  int64_t counted = 0;
  for (const Dispatch& d : p.dispatches) {
    const KernelShape& s = p.shape(d);
    const std::string id = std::to_string(d.dispatch_id), t0 = std::to_string(d.start_ns),
                      t1 = std::to_string(d.end_ns), name = names.name(s.name),
                      kid = std::to_string(s.kernel_id);
    trace += "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100," + id + "," + kid + ",\"" + name + "\"," +
             id + "," + t0 + "," + t1 + ",0,0,80,0,48," + std::to_string(s.wg[0]) + ",1,1," +
             std::to_string(s.grid[0]) + ",1,1\n";
    if (s.name != argmax) continue;
    const bool prefill = counted++ == 0;  // the first step is the prefill
    const std::string pre = id + "," + id + ",\"Agent 1\",1,100,100," + std::to_string(s.grid[0]) +
                            "," + kid + ",\"" + name + "\"," + std::to_string(s.wg[0]) +
                            ",0,0,80,0,48,";
    counters += pre + "\"TCC_HIT_sum\"," + (prefill ? "100" : "300") + "," + t0 + "," + t1 + "\n";
    counters += pre + "\"TCC_MISS_sum\"," + (prefill ? "300" : "100") + "," + t0 + "," + t1 + "\n";
  }
  ASSERT_EQ(counted, 21);
  test::write(dir / "100_agent_info.csv", test::mi300x_agents());
  test::write(dir / "100_kernel_trace.csv", trace);
  test::write(dir / "100_counter_collection.csv", counters);
  {
    store::CaptureDb db(tmp.path());
    test::load_trace_and_counters(db, dir, {"100_counter_collection.csv"});
    const auto joins = ensure_joins(db, load_capture(db, std::nullopt));
    ASSERT_EQ(joins.size(), 1u);
    EXPECT_EQ(joins[0].method, store::JoinMethod::by_id);
    EXPECT_EQ(joins[0].matched, 21);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  ASSERT_EQ(q.model().phases.prefill_steps, 1);
  ASSERT_EQ(q.model().phases.decode_steps, 20);
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
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(std::get<std::string>(col(r, "kernel")), "argmax_kernel");
    EXPECT_EQ(col(r, "variant"), col(0, "variant"));  // one variant, two phases
    EXPECT_EQ(std::get<std::string>(col(r, "passes")), "1");
  }
  EXPECT_EQ(std::get<std::string>(col(0, "phase")), "prefill");
  EXPECT_EQ(std::get<int64_t>(col(0, "launches")), 1);
  EXPECT_EQ(std::get<int64_t>(col(0, "with_counters")), 1);
  EXPECT_DOUBLE_EQ(std::get<double>(col(0, "l2_hit_percent")), 25.0);
  EXPECT_EQ(std::get<std::string>(col(1, "phase")), "decode");
  EXPECT_EQ(std::get<int64_t>(col(1, "launches")), 20);
  EXPECT_EQ(std::get<int64_t>(col(1, "with_counters")), 20);
  EXPECT_DOUBLE_EQ(std::get<double>(col(1, "l2_hit_percent")), 75.0);
  // --phase keeps one of them.
  o.phase = Phase::decode;
  const Table decode = q.view("metric_sets", o);
  ASSERT_EQ(decode.rows.size(), 1u);
  EXPECT_EQ(decode.rows[0], t.rows[1]);

  // `samples` in machine formats: its `how` as fields (basis, mixed).
  ViewOptions machine;
  machine.structured = true;
  const Table s = q.view("samples", machine);
  ASSERT_EQ(s.rows.size(), 2u);  // TCC_HIT_sum, TCC_MISS_sum of the one counted variant
  ASSERT_EQ(s.columns.back(), "mixed");
  for (const auto& r : s.rows) {
    EXPECT_EQ(std::get<std::string>(r[r.size() - 3]), "per launch");
    EXPECT_EQ(std::get<std::string>(r[r.size() - 2]), "per_launch");
    EXPECT_EQ(std::get<std::string>(r[r.size() - 1]), "no");
  }
}

}  // namespace
}  // namespace kprof::analysis
