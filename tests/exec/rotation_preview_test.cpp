// The rotation preview and the kernel totals read once per kernel (rotation_preview.hpp,
// kernel_selection.hpp): the stored variants are read once, whether a kernel is counted is
// decided once per distinct name, and only the dispatches' variant ids are walked. On real SQLite
// files with rows written here: a small trace whose figures are derived by hand in the comments,
// and a larger one compared against the per-dispatch computation the preview replaced.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "core/exec/passes/kernel_selection.hpp"
#include "core/exec/passes/rotation_preview.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using testing::TempDir;

ProfilerVersion rocm_7_1() {
  return parse_rocprofv3_version(
      "         version: 1.1.0\n    git_revision: abc\n    rocm_version: 7.1.0\n");
}

runbook::Runbook counters_runbook(const std::string& kernels) {
  return runbook::parse_runbook(
      "schema_version: 1\nname: p\nworkload:\n  command: [\"true\"]\npasses:\n  counters:\n"
      "    counters: [TCC_HIT_sum, TCC_MISS_sum]\n" +
          kernels + "database: p.db\n",
      "/p.yaml");
}

store::DispatchRow row(int64_t pid, int64_t id, const std::string& name, int64_t kernel_id,
                       int64_t grid, int64_t start, int64_t end) {
  store::DispatchRow d;
  d.pid = pid;
  d.dispatch_id = id;
  d.correlation_id = id;
  d.kernel_id = kernel_id;
  d.kernel_name = name;
  d.agent = 1;
  d.queue_id = 1;
  d.tid = pid;
  d.grid_x = grid;
  d.wg_x = 256;
  d.lds = 0;
  d.scratch = 0;
  d.vgpr = 32, d.agpr = 0, d.sgpr = 16;
  d.start_ns = start;
  d.end_ns = end;
  return d;
}

// A run with one finished trace pass holding `rows` in the order given.
int64_t trace_run(store::CaptureDb& db, const std::vector<store::DispatchRow>& rows) {
  const int64_t run = db.create_run({"r", "/p.yaml", std::string(64, 'a'), "", "h", "0", true, 1});
  const int64_t pass = db.add_planned_pass(run, store::PlannedPass{});
  {
    store::PassLoader loader(db, pass);
    loader.begin_file("kernel_trace.csv", "kernel_trace");
    for (const auto& d : rows) loader.dispatch(d);
    loader.end_file(static_cast<int64_t>(rows.size()));
    loader.commit();
  }
  store::PassTransition t;
  t.state = store::PassState::running;
  db.set_pass_state(pass, t);
  t.state = store::PassState::done;
  t.exit_code = 0;
  db.set_pass_state(pass, t);
  return run;
}

// Process 20 first, then 10 (which sorts first): gemm_a in two grids, each in both processes
// under their own kernel ids (four stored variants, two preview variants), gemm_splitk, norm.
std::vector<store::DispatchRow> small_trace() {
  return {row(20, 1, "gemm_a", 1, 256, 100, 150), row(20, 2, "norm", 2, 256, 160, 170),
          row(20, 3, "gemm_a", 1, 512, 180, 230), row(20, 4, "gemm_splitk", 3, 256, 240, 250),
          row(20, 5, "gemm_a", 1, 256, 260, 300), row(10, 7, "gemm_a", 5, 512, 50, 90),
          row(10, 8, "gemm_a", 5, 256, 95, 99)};
}

TEST(RotationPreviewOnce, VariantsInFirstAppearanceOrderCountsAndRegionByHand) {
  TempDir dir;
  store::CaptureDb db(dir / "t.db");
  const int64_t run = trace_run(db, small_trace());
  const auto rb = counters_runbook("    kernels: {include_regex: gemm, exclude_regex: splitk}\n");
  int asked = 0;
  const KernelPredicate base = counted_kernels(db, run, rb);
  const RotationPreview p = rotation_on_run(db, run, rb, 2, rocm_7_1(), 1, [&](const auto& n) {
    ++asked;
    return base(n);
  });
  ASSERT_EQ(p.unavailable, "");
  EXPECT_EQ(p.trace_run, run);
  EXPECT_EQ(asked, 3);  // gemm_a, norm, gemm_splitk: once each, not once per dispatch (7)
  // (pid, Dispatch_Id) order: (10,7) a/512, (10,8) a/256, (20,1) a/256, (20,2) norm,
  // (20,3) a/512, (20,4) splitk, (20,5) a/256. Counted: the gemm_a ones; grid 512 first.
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].kernel, "gemm_a");
  EXPECT_EQ(p.variants[0].shape, "grid 512x1x1, wg 256x1x1");
  EXPECT_EQ(p.variants[0].per_request, 2);  // (10,7), (20,3)
  EXPECT_EQ(p.variants[1].shape, "grid 256x1x1, wg 256x1x1");
  EXPECT_EQ(p.variants[1].per_request, 3);  // (10,8), (20,1), (20,5)
  EXPECT_EQ(p.region_ns, 300 - 50);         // every dispatch: first start 50, last end 300
  plan::RotationRequest q;
  q.sequence = {0, 1, 1, 0, 1};
  q.variants = 2;
  q.groups = 2;
  q.min_samples = 1;
  const plan::RotationChoice want = plan::choose_rotation(q);
  EXPECT_EQ(p.choice.feasible, want.feasible);
  EXPECT_EQ(p.choice.interval, want.interval);
  EXPECT_EQ(p.choice.repeats, want.repeats);
  EXPECT_EQ(p.choice.samples, want.samples);

  // The run's kernels of interest replace the regexes.
  db.set_selected_kernels(run, {{"gemm_splitk", 1, "top 1 by total_duration"}});
  const RotationPreview s = rotation_on_run(db, run, rb, 2, rocm_7_1(), 1);
  ASSERT_EQ(s.variants.size(), 1u);
  EXPECT_EQ(s.variants[0].kernel, "gemm_splitk");
  EXPECT_EQ(s.variants[0].per_request, 1);

  // Kernel totals by name: gemm_a 50 + 50 + 40 + 40 + 4 over 5 calls.
  const auto t = kernel_totals(db, db.list_passes(run).at(0).id);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "gemm_a");
  EXPECT_EQ(t[0].calls, 5);
  EXPECT_EQ(t[0].total_ns, 184);
  EXPECT_EQ(t[1].name, "gemm_splitk");
  EXPECT_EQ(t[1].total_ns, 10);
  EXPECT_EQ(t[2].name, "norm");
  EXPECT_EQ(t[2].total_ns, 10);
}

// The per-dispatch computation the preview replaced (a regex and a 12-field key per dispatch), as
// it was: the reference the once-per-kernel preview must agree with exactly.
struct Reference {
  std::vector<RotationVariant> variants;
  std::vector<int> sequence;
  int64_t region_ns = 0;
};
Reference per_dispatch(store::CaptureDb& db, int64_t pass, const std::optional<std::regex>& include,
                       const std::optional<std::regex>& exclude) {
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t>;
  Reference r;
  std::map<Key, int> index;
  int64_t first = INT64_MAX, last = 0;
  db.for_each_dispatch(pass, [&](const store::DispatchRow& d) {
    first = std::min(first, d.start_ns);
    last = std::max(last, d.end_ns);
    if (include && !std::regex_search(d.kernel_name, *include)) return;
    if (exclude && std::regex_search(d.kernel_name, *exclude)) return;
    const Key k{d.kernel_name,
                d.grid_x,
                d.grid_y,
                d.grid_z,
                d.wg_x,
                d.wg_y,
                d.wg_z,
                d.lds,
                d.scratch,
                d.vgpr.value_or(-1),
                d.agpr.value_or(-1),
                d.sgpr.value_or(-1)};
    auto [it, fresh] = index.emplace(k, static_cast<int>(index.size()));
    if (fresh)
      r.variants.push_back({d.kernel_name,
                            "grid " + std::to_string(d.grid_x) + "x" + std::to_string(d.grid_y) +
                                "x" + std::to_string(d.grid_z) + ", wg " + std::to_string(d.wg_x) +
                                "x" + std::to_string(d.wg_y) + "x" + std::to_string(d.wg_z),
                            0});
    r.variants[static_cast<size_t>(it->second)].per_request += 1;
    r.sequence.push_back(it->second);
  });
  r.region_ns = last - first;
  return r;
}

// Three processes loaded interleaved, 12 kernels in a few grids and workgroups each, kernel ids
// per process (as rocprofv3 numbers them), some without register counts, some with only the
// grid's product known: 3000 dispatches of 12 names.
std::vector<store::DispatchRow> many_dispatches() {
  std::vector<store::DispatchRow> out;
  for (int64_t i = 0; i < 3000; ++i) {
    const int64_t pid = 100 + (i * 7) % 3, k = (i * 5 + i / 11) % 12;
    store::DispatchRow d = row(pid, 1 + i / 3, "k_" + std::to_string(k) + "<bf16>",
                               k + 50 * (pid - 100), 64 << (i % 4), 10 * i, 10 * i + 3 + k);
    d.wg_x = 64 << (i / 7 % 2);
    if (k == 4) d.vgpr = d.agpr = d.sgpr = std::nullopt;
    if (k == 5 && i % 2) d.dims_known = false;
    out.push_back(d);
  }
  return out;
}

TEST(RotationPreviewOnce, AgreesWithThePerDispatchComputationAndAsksOncePerName) {
  TempDir dir;
  store::CaptureDb db(dir / "t.db");
  const int64_t run = trace_run(db, many_dispatches());
  const int64_t pass = db.list_passes(run).at(0).id;
  const auto rb =
      counters_runbook("    kernels: {include_regex: \"k_[0-6]<\", exclude_regex: \"k_3\"}\n");
  int asked = 0;
  const KernelPredicate base = counted_kernels(db, run, rb);
  const RotationPreview p = rotation_on_run(db, run, rb, 2, rocm_7_1(), 3, [&](const auto& n) {
    ++asked;
    return base(n);
  });
  EXPECT_EQ(asked, 12);  // the trace's 12 names, once each (3000 dispatches)
  const Reference want = per_dispatch(db, pass, std::regex("k_[0-6]<"), std::regex("k_3"));
  ASSERT_EQ(p.unavailable, "");
  ASSERT_EQ(p.variants.size(), want.variants.size());
  EXPECT_GT(want.variants.size(), 6u);  // more than one shape of some kernels
  for (size_t v = 0; v < want.variants.size(); ++v) {
    EXPECT_EQ(p.variants[v].kernel, want.variants[v].kernel) << v;
    EXPECT_EQ(p.variants[v].shape, want.variants[v].shape) << v;
    EXPECT_EQ(p.variants[v].per_request, want.variants[v].per_request) << v;
  }
  EXPECT_EQ(p.region_ns, want.region_ns);
  plan::RotationRequest q;
  q.sequence = want.sequence;
  q.variants = want.variants.size();
  q.groups = 2;
  q.min_samples = 3;
  const plan::RotationChoice c = plan::choose_rotation(q);
  EXPECT_EQ(p.choice.feasible, c.feasible);
  EXPECT_EQ(p.choice.interval, c.interval);
  EXPECT_EQ(p.choice.repeats, c.repeats);
  EXPECT_EQ(p.choice.samples, c.samples);
  EXPECT_EQ(p.choice.why, c.why);

  // Kernel totals against the same sums over every dispatch.
  std::map<std::string, std::pair<int64_t, int64_t>> sums;
  db.for_each_dispatch(pass, [&](const store::DispatchRow& d) {
    sums[d.kernel_name].first += 1;
    sums[d.kernel_name].second += d.end_ns - d.start_ns;
  });
  const auto t = kernel_totals(db, pass);
  ASSERT_EQ(t.size(), sums.size());
  size_t i = 0;
  for (const auto& [name, s] : sums) {
    EXPECT_EQ(t[i].name, name);
    EXPECT_EQ(t[i].calls, s.first);
    EXPECT_EQ(t[i].total_ns, s.second);
    ++i;
  }
}

}  // namespace
}  // namespace kprof::exec
