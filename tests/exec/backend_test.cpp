// The profiler backend seam: rocprofv3's command lines per pass mode and per version, the options
// it owns, version parsing, GPU selection, and the pass-plan use case shared by `plan` and `run`.
// No process is spawned except the small fake profilers of the version tests.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/gpu_select.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/passes/region_window.hpp"
#include "core/exec/profiler/rocprofv3_backend.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using testing::TempDir;
using testing::write_script;

runbook::Runbook runbook_of(const std::string& extra, const std::string& profiler = "",
                            const std::string& trace = "  trace: {stats: true}\n") {
  return runbook::parse_runbook(
      "schema_version: 1\n"
      "name: b\n"
      "workload:\n"
      "  command: [python3, app.py, --tokens, \"64\"]\n" +
          profiler + "passes:\n" + trace + extra,
      "/tmp/b.yaml");
}

ProfilerVersion v(const std::string& sdk, const std::string& rocm) {
  return parse_rocprofv3_version("         version: " + sdk + "\n    git_revision: abc\n" +
                                 "    rocm_version: " + rocm + "\n");
}

PassRequest trace_pass() {
  PassRequest p;
  p.mode = PassMode::trace;
  p.output_dir = "/c/run-1/pass-0";
  p.output_name = k_output_name;
  return p;
}

PassRequest counter_pass(std::vector<std::string> counters) {
  PassRequest p;
  p.mode = PassMode::counters;
  p.counters = std::move(counters);
  p.output_dir = "/c/run-1/pass-1";
  p.output_name = k_output_name;
  return p;
}

using Argv = std::vector<std::string>;

TEST(Rocprofv3Version, ParsesTheVersionKeys) {
  const auto a = v("1.0.0", "7.0.0");
  ASSERT_TRUE(a.known());
  EXPECT_EQ(*a.sdk, (std::array<int, 3>{1, 0, 0}));
  EXPECT_EQ(a.rocm, "7.0.0");
  EXPECT_EQ(a.summary(), "rocprofiler-sdk 1.0.0 (ROCm 7.0.0)");
  EXPECT_TRUE(a.has_rocpd());
  EXPECT_TRUE(a.regions_need_marker_trace());
  EXPECT_FALSE(a.regions_pause_counters());
  const auto b = v("1.3.0-rc2", "7.13.0");
  EXPECT_EQ(*b.sdk, (std::array<int, 3>{1, 3, 0}));
  EXPECT_FALSE(b.regions_need_marker_trace());
  EXPECT_TRUE(b.regions_pause_counters());
  EXPECT_TRUE(b.region_rule_certain());
  // ROCm 7.2.4 reports sdk 1.3.0 with 7.2's tool: counters are not paused there.
  const auto c = v("1.3.0", "7.2.4");
  EXPECT_FALSE(c.regions_pause_counters());
  EXPECT_TRUE(c.regions_need_marker_trace());
  EXPECT_TRUE(c.region_rule_certain());
  // sdk 1.3.0 without a ROCm version names either: the safe reading, said to be uncertain.
  const auto d = v("1.3.0", "");
  EXPECT_FALSE(d.regions_pause_counters());
  EXPECT_FALSE(d.region_rule_certain());
  EXPECT_NE(d.region_way().find("7.2.4 and 7.13 both report"), std::string::npos);
  EXPECT_EQ(v("1.3.5", "10.0.0").release, "latest");
  EXPECT_EQ(v("1.1.0", "7.2.0").release, "7.0");
  const auto none = unknown_rocprofv3_version("no --version");
  EXPECT_FALSE(none.known());
  EXPECT_FALSE(none.has_rocpd());
  EXPECT_TRUE(none.regions_need_marker_trace());
  EXPECT_FALSE(none.regions_pause_counters());
  EXPECT_FALSE(parse_rocprofv3_version("usage: rocprofv3 [-h]\n").known());
}

// ROCm 7.0: --selected-regions needs --marker-trace (trace and counter passes), rocpd is the
// default output, and counter passes count outside the region.
TEST(Rocprofv3Backend, Rocm70CommandLines) {
  const auto rb =
      runbook_of("  counters:\n    counters: [SQ_WAVES]\n    kernels: {include_regex: fused_moe}\n",
                 "profiler:\n  selected_regions: true\n");
  Rocprofv3Backend b(rb, {"rocprofv3", false, std::nullopt, v("1.0.0", "7.0.0")});
  EXPECT_EQ(b.argv(trace_pass()),
            (Argv{"rocprofv3", "--kernel-trace", "--stats", "--marker-trace", "-d",
                  "/c/run-1/pass-0", "-o", "%hostname%/%pid%", "-f", "rocpd", "--selected-regions",
                  "--", "python3", "app.py", "--tokens", "64"}));
  EXPECT_EQ(
      b.argv(counter_pass({"SQ_WAVES"})),
      (Argv{"rocprofv3", "--pmc", "SQ_WAVES", "-d", "/c/run-1/pass-1", "-o", "%hostname%/%pid%",
            "-f", "rocpd", "--kernel-include-regex", "fused_moe", "--marker-trace",
            "--selected-regions", "--", "python3", "app.py", "--tokens", "64"}));
  EXPECT_TRUE(b.counters_count_outside_regions());
}

// Newer tools pause every context at the region markers: no --marker-trace, no narrowing.
TEST(Rocprofv3Backend, NewerToolsNeedNoMarkerTrace) {
  const auto rb = runbook_of("", "profiler:\n  selected_regions: true\n  output_format: csv\n");
  Rocprofv3Backend b(rb, {"rocprofv3", false, std::nullopt, v("1.3.0", "7.13.0")});
  EXPECT_EQ(b.argv(trace_pass()),
            (Argv{"rocprofv3", "--kernel-trace", "--stats", "-d", "/c/run-1/pass-0", "-o",
                  "%hostname%/%pid%", "-f", "csv", "--selected-regions", "--", "python3", "app.py",
                  "--tokens", "64"}));
  EXPECT_FALSE(b.counters_count_outside_regions());
}

// Before ROCm 7.0 there is no rocpd (and no --version): csv, and the 7.0 region rules.
TEST(Rocprofv3Backend, PreRocm7UsesCsv) {
  const auto rb = runbook_of("");
  Rocprofv3Backend b(rb, {"/opt/rocm/bin/rocprofv3", false, std::nullopt,
                          unknown_rocprofv3_version("no --version")});
  EXPECT_EQ(b.output_format(), "csv");
  EXPECT_EQ(b.argv(trace_pass())[0], "/opt/rocm/bin/rocprofv3");
  EXPECT_FALSE(b.counters_count_outside_regions());  // no selected_regions in this runbook
}

// Every option a command line is made of is in the one owned-options list the runbook loader
// refuses in extra_args.
TEST(Rocprofv3Backend, EmitsOnlyOwnedOptions) {
  const auto rb = runbook_of(
      "  counters:\n    counters: [SQ_WAVES]\n    iteration_range: \"[1-2]\"\n"
      "    kernels: {include_regex: a, exclude_regex: b}\n",
      "profiler:\n  selected_regions: true\n  truncate_kernels: true\n"
      "  agent_index: absolute\n",
      "  trace: {stats: true, markers: true}\n");
  for (const auto& version :
       {v("1.0.0", "7.0.0"), v("1.3.0", "7.13.0"), unknown_rocprofv3_version("none")}) {
    Rocprofv3Backend b(rb, {"rocprofv3", false, std::nullopt, version});
    for (const auto& pass : {trace_pass(), counter_pass({"SQ_WAVES"})}) {
      const Argv argv = b.argv(pass);
      for (const auto& a : argv) {
        if (a == "--") break;  // the application's own arguments follow
        if (a.empty() || a[0] != '-') continue;
        const auto owned = b.owned_options();
        EXPECT_TRUE(std::any_of(owned.begin(), owned.end(),
                                [&](const runbook::OwnedOption& o) { return o.option == a; }))
            << a << " is not in runbook/owned_options.hpp";
      }
      EXPECT_EQ(std::count(argv.begin(), argv.end(), "--"), 1);
    }
  }
}

TEST(Rocprofv3Backend, TheDoubleGetsItsModelAndSeed) {
  const auto rb = runbook::parse_runbook(
      "schema_version: 1\nname: s\nworkload:\n  command: [\"true\"]\n  env: {A: \"1\"}\n"
      "sim:\n  model: doc-vector-ops\n  seed: 9\n",
      "/tmp/s.yaml");
  Rocprofv3Backend b(rb, {"/x/rocprofv3-sim", true, 9, v("1.0.0", "7.0.0")});
  EXPECT_EQ(b.name(), "rocprofv3-sim");
  EXPECT_EQ(b.env(),
            (store::EnvDelta{
                {"A", "1"}, {"ROCPROF_SIM_MODEL", "doc-vector-ops"}, {"ROCPROF_SIM_SEED", "9"}}));
}

// `--version` is read from the profiler itself; a tool without the option is pre-7.0.
TEST(Rocprofv3Backend, ReadsTheVersionOnce) {
  TempDir dir;
  const auto newer = write_script(dir / "rocprofv3",
                                  "echo \"$1\" >> \"$(dirname \"$0\")/calls\"\n"
                                  "echo '         version: 1.0.0'\n"
                                  "echo '    rocm_version: 7.0.2'\n");
  const auto v70 = read_rocprofv3_version(newer.string(), {});
  EXPECT_EQ(v70.summary(), "rocprofiler-sdk 1.0.0 (ROCm 7.0.2)");
  EXPECT_EQ(testing::read_text(dir / "calls"), "--version\n");
  const auto older = write_script(dir / "old",
                                  "echo 'rocprofv3: error: unrecognized arguments: --version' >&2\n"
                                  "exit 2\n");
  const auto none = read_rocprofv3_version(older.string(), {});
  EXPECT_FALSE(none.known());
  EXPECT_NE(none.text.find("--version' failed (exit 2), and so did --help"), std::string::npos)
      << none.text;
  EXPECT_FALSE(read_rocprofv3_version((dir / "missing").string(), {}).known());
  // Before ROCm 7.0 the launcher's --help names the release by the options it lists.
  for (const char* release : {"6.2", "6.3", "6.4"}) {
    std::string help = "usage: rocprofv3 [options] -- <application>\n\noptions:\n";
    for (const auto& o : find_rocprof_release(release)->options)
      help += "  " + join(o.names, ", ") + "\n";
    testing::write_file(dir / "help.txt", help);
    const auto six = write_script(dir / "six",
                                  "[ \"$1\" = --help ] && exec cat \"$(dirname \"$0\")/help.txt\"\n"
                                  "echo 'rocprofv3: error: unrecognized arguments: --version' >&2\n"
                                  "exit 2\n");
    const auto v = read_rocprofv3_version(six.string(), {});
    EXPECT_EQ(v.release, release) << v.text;
    EXPECT_TRUE(v.known());
    EXPECT_FALSE(v.has_rocpd());
    EXPECT_FALSE(v.has_region_switch());
    // What a resumed run reads back from the stored text is the same release.
    EXPECT_EQ(parse_rocprofv3_version(v.text).release, release);
  }
}

TEST(GpuSelect, RocrVisibleDevicesAloneSelectsTheDevice) {
  const auto rb = runbook_of("");
  EXPECT_EQ(gpu_slot_envs({{0}, {3}}, rb, {}),
            (std::vector<store::EnvDelta>{{{"ROCR_VISIBLE_DEVICES", "0"}},
                                          {{"ROCR_VISIBLE_DEVICES", "3"}}}));
  EXPECT_TRUE(gpu_slot_envs({}, rb, {}).empty());
  // An inherited allocation (Slurm): --gpus indexes it.
  EXPECT_EQ(gpu_slot_envs({{1}}, rb, {{"ROCR_VISIBLE_DEVICES", "4,5,6,7"}}),
            (std::vector<store::EnvDelta>{{{"ROCR_VISIBLE_DEVICES", "5"}}}));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.diagnostics().at(0).line();
  }
  return "no error";
}

// workload.ranks: 4 makes a slot of 4 consecutive --gpus entries; ROCR_VISIBLE_DEVICES lists them
// in order (an inherited list is indexed entry by entry). Without ranks each GPU is a slot.
TEST(GpuSelect, SlotsOfRanksGpus) {
  const auto rb = runbook::parse_runbook(
      "schema_version: 1\nname: g\nworkload:\n  command: [\"true\"]\n  ranks: 4\n", "/tmp/g.yaml");
  const std::vector<int> eight{0, 1, 2, 3, 4, 5, 6, 7};
  const auto slots = gpu_slots(eight, rb);
  EXPECT_EQ(slots, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(gpu_slot_envs(slots, rb, {}),
            (std::vector<store::EnvDelta>{{{"ROCR_VISIBLE_DEVICES", "0,1,2,3"}},
                                          {{"ROCR_VISIBLE_DEVICES", "4,5,6,7"}}}));
  // Inherited 10,11,12,13,14,15,16,17: slot {4,5,6,7} is its entries 4 to 7.
  EXPECT_EQ(
      gpu_slot_envs({{4, 5, 6, 7}}, rb, {{"ROCR_VISIBLE_DEVICES", "10,11,12,13,14,15,16,17"}}),
      (std::vector<store::EnvDelta>{{{"ROCR_VISIBLE_DEVICES", "14,15,16,17"}}}));
  EXPECT_TRUE(gpu_slots({}, rb).empty());
  EXPECT_EQ(gpu_slots({3, 1}, runbook_of("")), (std::vector<std::vector<int>>{{3}, {1}}));
  // 6 GPUs are one slot of 4 and 2 left over; the example keeps the list's first whole slot.
  EXPECT_EQ(error_of([&] {
              gpu_slots({0, 1, 2, 3, 4, 5}, rb);
            }),
            "/tmp/g.yaml:5:10: --gpus 0,1,2,3,4,5: 6 GPUs do not make slots of workload.ranks: 4 "
            "(each pass runs 4 worker processes, one per GPU) (list a multiple of 4 GPUs, e.g. "
            "--gpus 0,1,2,3)");
  // Fewer GPUs than one slot: the example is the first 4.
  EXPECT_EQ(error_of([&] { gpu_slots({6}, rb); }),
            "/tmp/g.yaml:5:10: --gpus 6: 1 GPU does not make slots of workload.ranks: 4 (each pass "
            "runs 4 worker processes, one per GPU) (list a multiple of 4 GPUs, e.g. --gpus "
            "0,1,2,3)");
}

TEST(GpuSelect, RefusesVariablesThatWouldIndexTheOneDevice) {
  const auto rb = runbook::parse_runbook(
      "schema_version: 1\nname: g\nworkload:\n  command: [\"true\"]\n"
      "  env: {HIP_VISIBLE_DEVICES: \"0\"}\n",
      "/tmp/g.yaml");
  EXPECT_EQ(error_of([&] { gpu_slot_envs({{1}}, rb, {}); }),
            "/tmp/g.yaml:5:9: workload.env sets HIP_VISIBLE_DEVICES, which would index the one "
            "device --gpus leaves (remove it from the runbook; --gpus selects the device with "
            "ROCR_VISIBLE_DEVICES)");
  EXPECT_EQ(error_of([&] {
              gpu_slot_envs({{1}}, runbook_of(""), {{"CUDA_VISIBLE_DEVICES", "2"}});
            }),
            "--gpus: CUDA_VISIBLE_DEVICES=2 is set in kprof's environment and would index the one "
            "device --gpus leaves (unset CUDA_VISIBLE_DEVICES (--gpus sets ROCR_VISIBLE_DEVICES))");
  EXPECT_EQ(error_of([&] {
              gpu_slot_envs({{2}}, runbook_of(""), {{"ROCR_VISIBLE_DEVICES", "4,5"}});
            }),
            "--gpus: GPU 2 is not in ROCR_VISIBLE_DEVICES=4,5 (2 devices, numbered from 0) (pick "
            "indices into that list, or unset ROCR_VISIBLE_DEVICES)");
}

// The use case both `kprof plan` and `kprof run` take their commands from.
TEST(PassPlan, TracePassThenOneCommandPerCounterPass) {
  const auto rb =
      runbook_of("  counters:\n    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY]\n",
                 "profiler:\n  output_format: csv\n");
  Rocprofv3Backend b(rb, {"rocprofv3", false, std::nullopt, v("1.0.0", "7.0.0")});
  const RunPlan rp = plan_run(rb, b, 7);
  ASSERT_TRUE(rp.counters);
  ASSERT_EQ(rp.passes.size(), 3u);  // GRBM: 2 events per pass, 3 asked
  EXPECT_EQ(rp.passes[0].kind, store::PassKind::trace);
  EXPECT_EQ(rp.passes[0].argv[1], "--kernel-trace");
  EXPECT_EQ(rp.passes[1].ordinal, 1);
  EXPECT_EQ(rp.passes[1].argv[1], "--pmc");
  EXPECT_EQ(rp.passes[2].output_dir, rb.captures.value / "run-7" / "pass-2");
  EXPECT_EQ(rp.passes[2].log_path, rb.captures.value / "run-7" / "logs" / "pass-2.log");
  EXPECT_FALSE(rp.filter_after_trace);
  const auto again = commands_for_run(rp, rb, b, 8);
  EXPECT_EQ(again[1].output_dir, rb.captures.value / "run-8" / "pass-1");
}

TEST(PassPlan, RocpdOnAToolWithoutItIsTheRunbooksError) {
  const auto rb = runbook_of("", "profiler:\n  output_format: rocpd\n");
  Rocprofv3Backend b(rb, {"rocprofv3", false, std::nullopt, unknown_rocprofv3_version("none")});
  EXPECT_EQ(error_of([&] { plan_run(rb, b, 1); }),
            "/tmp/b.yaml:6:18: profiler.output_format: rocpd needs rocprofv3 from ROCm 7.0, but "
            "unknown version (none) (write output_format: csv, or use a newer ROCm)");
}

// ROCm 7.0 counter passes also count the warm-up: the region is the window of the counter pass
// that matches the trace's launches, the latest of equal ones.
TEST(RegionWindow, FindsTheRegionAfterTheWarmUp) {
  const auto seq = [](const std::string& kernels, int64_t first_id) {
    std::vector<Launch> v;
    for (char k : kernels) v.push_back({first_id++, std::string(1, k), k == 'P' ? 128 : 1, 64});
    return v;
  };
  // Warm-up: prefill P + 2 decode steps D; region: P + 5 D.
  const auto counter = seq("PDDPDDDDD", 10);
  const auto trace = seq("PDDDDD", 13);
  const auto w = find_region_window(counter, trace);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->first_dispatch_id, 13);
  EXPECT_EQ(w->last_dispatch_id, 18);
  EXPECT_EQ(w->kept, 6u);
  EXPECT_EQ(w->left_out, 3u);
  EXPECT_EQ(w->differences, 0u);
  EXPECT_TRUE(w->tie);  // "DDPDDD" has the same kernels: the latest window is the region
  // A rerun lost one lazy-init launch X: the best window still wins, with its difference counted.
  const auto w2 = find_region_window(seq("PDDXPDDDDD", 10), seq("XPDDDDD", 20));
  ASSERT_TRUE(w2);
  EXPECT_EQ(w2->first_dispatch_id, 13);
  EXPECT_EQ(w2->differences, 0u);
  // Nothing outside the region: nothing to leave out.
  EXPECT_FALSE(find_region_window(seq("PDD", 1), seq("PDD", 1)));
}

}  // namespace
}  // namespace kprof::exec
