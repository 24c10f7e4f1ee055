// One-run profiling end to end, on the rocprofv3 test double (every figure SIMULATED): the same
// request profiled with `replay: application` (trace + one run per counter pass) and with
// `replay: rotate` (trace + ONE run that rotates the passes as counter groups over successive
// dispatches and repeats the request until every kernel variant has min_samples launches of
// every group). Per variant and counter, the two runs' means must agree within the launches' own
// noise: 4 standard errors of each side (the tolerance SimRotation pins for the double alone).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/exec/replay_test_util.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using namespace replay_testing;
using testing::read_text;
using testing::TempDir;
using testing::write_file;

TEST(RotationRun, TwoRunsAgreeWithApplicationReplayWithinTheNoise) {
  TempDir dir;
  const std::string model = write_model(dir);
  write_file(dir / "app.yaml", runbook("app", model, "    replay: application\n", ""));
  write_file(dir / "rot.yaml", runbook("rot", model, "    replay: rotate\n    min_samples: 30\n",
                                       "  repeat_option: --repeat\n"));
  const Ran a = kprof(dir, {"run", (dir / "app.yaml").string(), "--simulate", "--quiet"}, "a.out");
  ASSERT_EQ(a.result.exit_code, 0) << a.output;
  const Ran b = kprof(dir, {"run", (dir / "rot.yaml").string(), "--simulate", "--quiet"}, "b.out");
  ASSERT_EQ(b.result.exit_code, 0) << b.output;

  // Application runs: trace + 2 counter passes, against trace + 1 rotated pass.
  const Ran pa =
      kprof(dir, {"query", (dir / "app.db").string(), "passes", "--format", "csv"}, "pa");
  const Ran pb =
      kprof(dir, {"query", (dir / "rot.db").string(), "passes", "--format", "csv"}, "pb");
  const auto rows = [](const std::string& csv) {
    size_t n = 0;
    for (const auto& line : split(csv, '\n')) n += line.rfind("1,1,", 0) == 0;  // run 1, simulated
    return n;
  };
  EXPECT_EQ(rows(pa.output), 3u) << pa.output;
  EXPECT_EQ(rows(pb.output), 2u) << pb.output;
  // The rotated pass ran from an input file with the 2 groups and repeated the request.
  // JSON, which the launcher reads without PyYAML.
  const auto input =
      nlohmann::json::parse(read_text(dir / "rot-captures" / "run-1" / "pass-1.pmc_groups.json"));
  EXPECT_EQ(input.at("jobs").at(0).at("pmc_groups").size(), 2u) << input.dump();
  EXPECT_GE(input.at("jobs").at(0).at("pmc_group_interval").get<int>(), 1) << input.dump();
  const std::string log = read_text(dir / "rot-captures" / "run-1" / "logs" / "pass-1.log");
  EXPECT_NE(log.find(" -i "), std::string::npos) << log;
  EXPECT_NE(log.find("--repeat "), std::string::npos) << log;
  EXPECT_EQ(log.find("--pmc"), std::string::npos) << log;

  const auto app = samples(dir, "app.db");
  const auto rot = samples(dir, "rot.db");
  ASSERT_FALSE(app.empty());
  // Every group reached min_samples on every variant, the rare div and the aliasing add too.
  for (const auto& [key, y] : rot) {
    EXPECT_GE(y.n, 30) << key.first << " " << key.second;
    EXPECT_TRUE(app.count(key)) << key.first << " " << key.second;
  }
  expect_agrees_with_application_replay(app, rot, false);
}

// replay: auto (the default) rotates when this run's trace shows rotation serves every variant
// of interest, and otherwise runs one application per counter pass, saying why: here because the
// request would have to be repeated 60 times and the workload has no repeat_option, or because
// the profiler (ROCm 7.0's rocprofv3) counts outside --selected-regions.
TEST(RotationRun, AutoRotatesWhenTheTraceServesItAndReplaysOtherwise) {
  TempDir dir;
  const std::string model = write_model(dir);
  write_file(dir / "auto.yaml", runbook("auto", model, "", "  repeat_option: --repeat\n"));
  write_file(dir / "norep.yaml", runbook("norep", model, "", ""));
  write_file(dir / "old.yaml", runbook("old", model, "", "  repeat_option: --repeat\n"));
  const Ran a = kprof(dir, {"run", (dir / "auto.yaml").string(), "--simulate"}, "auto.out");
  ASSERT_EQ(a.result.exit_code, 0) << a.output;
  EXPECT_NE(a.output.find("replay: auto -> one rotated counter run: 2 groups rotated in one run "
                          "(pmc_group_interval "),
            std::string::npos)
      << a.output;
  EXPECT_NE(a.output.find(", --repeat 60): every variant of interest gets >= 30 launches of every "
                          "group; 2 application runs instead of 3"),
            std::string::npos)
      << a.output;
  EXPECT_EQ(passes_of_run(dir, "auto.db"), 2u);

  const Ran n = kprof(dir, {"run", (dir / "norep.yaml").string(), "--simulate"}, "norep.out");
  ASSERT_EQ(n.result.exit_code, 0) << n.output;
  EXPECT_NE(n.output.find("replay: auto -> one run per counter pass: rotation needs --repeat 60, "
                          "and the workload has no repeat_option"),
            std::string::npos)
      << n.output;
  EXPECT_EQ(passes_of_run(dir, "norep.db"), 3u);

  setenv("ROCPROF_SIM_VERSION", "7.0", 1);
  const Ran o = kprof(dir, {"run", (dir / "old.yaml").string(), "--simulate"}, "old.out");
  // replay: rotate on the same profiler is refused up front, with what to do.
  write_file(dir / "rot.yaml",
             runbook("rot", model, "    replay: rotate\n", "  repeat_option: --repeat\n"));
  const Ran r = kprof(dir, {"run", (dir / "rot.yaml").string(), "--simulate"}, "rot.out");
  unsetenv("ROCPROF_SIM_VERSION");
  ASSERT_EQ(o.result.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("replay: auto -> one run per counter pass: rocprofiler-sdk 1.0.0"),
            std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("counts, and so rotates, outside --selected-regions"), std::string::npos)
      << o.output;
  EXPECT_EQ(passes_of_run(dir, "old.db"), 3u);
  EXPECT_NE(r.result.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rotate is not supported with --selected-regions"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("write replay: application"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rot.db")) << "a refused runbook left a database";
}

// ROCm 7.1 and 7.2 (rocprofiler-sdk 1.1.0) are taken to count outside --selected-regions, as 7.0
// does (rocprofv3_version.hpp says what the upstream sources settle): auto replays, and
// replay: rotate is refused before anything runs.
TEST(RotationRun, Rocm71And72ReplayUnderSelectedRegions) {
  TempDir dir;
  const std::string model = write_model(dir);
  write_file(dir / "auto.yaml", runbook("auto", model, "", "  repeat_option: --repeat\n"));
  write_file(dir / "rot.yaml",
             runbook("rot", model, "    replay: rotate\n", "  repeat_option: --repeat\n"));
  for (const char* v : {"7.1", "7.2"}) {
    setenv("ROCPROF_SIM_VERSION", v, 1);
    const Ran a = kprof(dir, {"plan", (dir / "auto.yaml").string(), "--simulate"}, "a.out");
    const Ran r = kprof(dir, {"plan", (dir / "rot.yaml").string(), "--simulate"}, "r.out");
    unsetenv("ROCPROF_SIM_VERSION");
    ASSERT_EQ(a.result.exit_code, 0) << a.output;
    EXPECT_NE(
        a.output.find("replay: application (auto: rocprofiler-sdk 1.1.0 (ROCm " + std::string(v) +
                      ".0) counts, and so rotates, outside --selected-regions"),
        std::string::npos)
        << a.output;
    EXPECT_EQ(r.result.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("rotate is not supported with --selected-regions on "
                            "rocprofiler-sdk 1.1.0"),
              std::string::npos)
        << r.output;
  }
}

// The Qwen3-30B-A3B request's fused-MoE launches as the shipped model has them (its four
// variants' kernel entries and dispatch lines, read from configs/sim/qwen3-30b-a3b-mi300x.yaml):
// 48 layers of w13 then w2 in a prefill step and in every decode step, the warm-up outside the
// region, one decode step per output token after the first (7: 8 tokens, as the workload script
// is asked for below; `true` gets the model as written). The model's other kernels are left
// out: the counter passes count fused_moe_kernel only, and rocprofv3 advances the rotation only
// for the dispatches it counts, so they change neither the groups nor the samples; leaving them
// out keeps the 13 application runs of `full` within a few seconds.
std::string write_qwen3_moe_model(const TempDir& dir) {
  const std::string src = std::string(KPROF_SOURCE_DIR) + "/configs/sim/";
  const std::string full = read_text(src + "qwen3-30b-a3b-mi300x.yaml");
  const auto line_with = [&](const std::string& needle) {
    const size_t at = full.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    const size_t begin = full.rfind('\n', at) + 1;
    return full.substr(begin, full.find('\n', at) - begin) + "\n";
  };
  std::string m = "name: qwen3-moe\narch: gfx942\nsystem: " + src +
                  "mi300x-node\ngpu_index: 0\nclock_mhz: 2100\nnum_xcd: 8\n"
                  "startup_ns: 250000000\nlaunch_gap_ns: 1200\nfirst_kernel_id: 9\nkernels:\n";
  for (const char* k : {"moe_w13_prefill", "moe_w2_prefill", "moe_w13_decode", "moe_w2_decode"})
    m += line_with(std::string("{key: ") + k + ",");
  m += "x-blocks:\n  prefill_layer: &prefill_layer\n" + line_with("{kernel: moe_w13_prefill,") +
       line_with("{kernel: moe_w2_prefill,") + "  decode_layer: &decode_layer\n" +
       line_with("{kernel: moe_w13_decode,") + line_with("{kernel: moe_w2_decode,") +
       "  decode_step: &decode_step\n    - {repeat: 48, sequence: *decode_layer}\n"
       "sequence:\n"
       "  - region: outside\n"
       "    sequence:\n"
       "      - {repeat: 48, sequence: *prefill_layer}\n"
       "      - {repeat: 2, per_output_token: true, gap_before_ns: 180000, sequence: "
       "*decode_step}\n"
       "  - gap_before_ns: 2000000\n"
       "    sequence:\n"
       "      - {repeat: 48, sequence: *prefill_layer}\n"
       "  - {repeat: 7, per_output_token: true, gap_before_ns: 180000, sequence: *decode_step}\n";
  write_file(dir / "qwen3-moe.yaml", m);
  return (dir / "qwen3-moe.yaml").string();
}

// The acceptance case on the double (every figure SIMULATED): the Qwen3 request with the
// `full` metric set (12 counter passes on gfx942) and fused_moe_kernel as the kernels of
// interest. replay: auto takes 2 application runs (trace + ONE rotated run) and gives every
// fused-MoE variant, prefill and decode, >= 30 launches of every group; per variant and counter
// its means agree with a 13-run application replay within 4 standard errors of each (the pinned
// tolerance). 8 output tokens (the workload script's --tokens, honoured by the double) keep the
// decode steps few; the 48 prefill launches of each prefill variant are the rare ones, as in the
// full request.
TEST(RotationRun, Qwen3FullSetInTwoRunsAgreesWithThirteenRunReplay) {
  TempDir dir;
  const std::string model = write_qwen3_moe_model(dir);
  // The application-replay runs run `true` (the double then brackets the model's region itself:
  // 13 runs without a Python start each); the rotated run needs the workload script, which
  // repeats the request (--repeat) and says so to the double.
  const std::string script = "[python3, " + std::string(KPROF_SOURCE_DIR) +
                             "/runbooks/workloads/qwen3_generate.py, --tokens, \"8\"]\n"
                             "  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}\n"
                             "  repeat_option: --repeat\n";
  const auto qwen3 = [&](const std::string& name, const std::string& command,
                         const std::string& replay) {
    return "schema_version: 1\nname: " + name + "\nworkload:\n  command: " + command +
           "profiler:\n  output_format: csv\n  selected_regions: true\n"
           "passes:\n  counters:\n    metric_sets: [full]\n"
           "    kernels: {include_regex: fused_moe_kernel}\n" +
           replay + "database: " + name + ".db\nsim:\n  model: " + model + "\n  seed: 5\n";
  };
  write_file(dir / "app.yaml", qwen3("app", "[\"true\"]\n", "    replay: application\n"));
  write_file(dir / "auto.yaml", qwen3("auto", script, ""));
  const Ran a = kprof(dir, {"run", (dir / "app.yaml").string(), "--simulate", "--quiet"}, "a.out");
  ASSERT_EQ(a.result.exit_code, 0) << a.output;
  const Ran b = kprof(dir, {"run", (dir / "auto.yaml").string(), "--simulate"}, "b.out");
  ASSERT_EQ(b.result.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("replay: auto -> one rotated counter run: 12 groups"), std::string::npos)
      << b.output;
  EXPECT_EQ(passes_of_run(dir, "app.db"), 13u);
  EXPECT_EQ(passes_of_run(dir, "auto.db"), 2u);

  const auto app = samples(dir, "app.db");
  const auto rot = samples(dir, "auto.db");
  std::set<std::string> variants, counters;
  for (const auto& [key, x] : app) {
    variants.insert(key.first);
    counters.insert(key.second);
    EXPECT_EQ(x.family, "fused_moe_kernel") << key.first;
  }
  EXPECT_EQ(variants.size(), 4u);  // prefill and decode, w13 and w2
  // Every counter of every group, for every variant: >= 30 launches in the rotated run.
  for (const auto& v : variants)
    for (const auto& c : counters) {
      const auto it = rot.find({v, c});
      ASSERT_NE(it, rot.end()) << v << " " << c;
      EXPECT_GE(it->second.n, 30) << v << " " << c;
    }
  size_t compared = 0;
  for (const auto& [key, x] : app) {
    const Stat& y = rot.at(key);
    if (x.se <= 0 && y.se <= 0) {
      EXPECT_DOUBLE_EQ(x.mean, y.mean) << key.first << " " << key.second;  // an exact count
      continue;
    }
    EXPECT_NEAR(y.mean, x.mean, 4 * (std::max(x.se, 0.0) + std::max(y.se, 0.0)))
        << key.first << " " << key.second;
    ++compared;
  }
  EXPECT_GT(compared, 0u) << "no counter with per-launch noise: the comparison is trivial";
}

}  // namespace
}  // namespace kprof::exec
