// Shared by the replay tests (rotation_run_test.cpp, kernel_replay_test.cpp): the real kprof
// executable run on the rocprofv3 test double, a small workload model, a runbook around the
// workload script, and the per-variant statistics of `kprof query DB samples`.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec::replay_testing {

using testing::read_text;
using testing::TempDir;
using testing::write_file;

inline const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

struct Ran {
  RunResult result;
  std::string output;
};

inline Ran kprof(const TempDir& dir, const std::vector<std::string>& args, const std::string& log) {
  LaunchSpec s;
  s.argv = {k_kprof};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.log_path = dir / log;
  s.log_tail_bytes = 1 << 20;
  Ran r;
  r.result = run_process(s);
  r.output = read_text(s.log_path);
  return r;
}

// A small workload model (the documentation sample's vector kernels) whose request launches add,
// sub, mul, sub twelve times and div once: `add` recurs every 4 dispatches (with 2 groups and
// interval 1 it would only ever see one group: aliasing) and `div` is rare (1 launch a request:
// 30 samples of each of 2 groups need 60 requests in the one rotated run). Each model run is a few
// thousand dispatches, so the test stays within its time budget; the same code path runs the
// Qwen3 model (README, one-run profiling).
inline std::string write_model(const TempDir& dir) {
  std::string text = read_text(std::string(KPROF_SOURCE_DIR) + "/configs/sim/doc-vector-ops.yaml");
  text = text.substr(0, text.find("sequence:\n")) +
         "sequence:\n"
         "  - {kernel: div, grid: [1048576], gap_ns: 1000, duration_ns: 48151, flops: 1048576, "
         "bytes_read: 8388608, bytes_written: 4194304}\n"
         "  - repeat: 12\n"
         "    sequence:\n"
         "      - {kernel: add, grid: [1048576], gap_ns: 1000, duration_ns: 52151, flops: 1048576, "
         "bytes_read: 8388608, bytes_written: 4194304}\n"
         "      - {kernel: sub, grid: [1048576], gap_ns: 1000, duration_ns: 49780, flops: 1048576, "
         "bytes_read: 8388608, bytes_written: 4194304}\n"
         "      - {kernel: mul, grid: [1048576], gap_ns: 1000, duration_ns: 46818, flops: 1048576, "
         "bytes_read: 8388608, bytes_written: 4194304}\n"
         "      - {kernel: sub, grid: [1048576], gap_ns: 1000, duration_ns: 49780, flops: 1048576, "
         "bytes_read: 8388608, bytes_written: 4194304}\n";
  const std::string sys = "system: doc-node";
  text.replace(text.find(sys), sys.size(),
               "system: " + std::string(KPROF_SOURCE_DIR) + "/configs/sim/doc-node");
  write_file(dir / "model.yaml", text);
  return (dir / "model.yaml").string();
}

// The workload script (its vLLM stand-in reports each request to the double), five TCC counters
// (4 slots on gfx942: 2 passes) and a cycle counter.
inline std::string runbook(const std::string& name, const std::string& model,
                           const std::string& counters_extra, const std::string& workload_extra) {
  return "schema_version: 1\nname: " + name + "\nworkload:\n  command: [python3, " +
         std::string(KPROF_SOURCE_DIR) + "/runbooks/workloads/qwen3_generate.py]\n" +
         "  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}\n" + workload_extra +
         "profiler:\n  output_format: csv\n  selected_regions: true\n"
         "passes:\n  counters:\n    counters: [TCC_HIT_sum, TCC_MISS_sum, TCC_EA0_RDREQ_sum, "
         "TCC_EA0_WRREQ_sum, TCC_EA0_RDREQ_32B_sum, GRBM_GUI_ACTIVE]\n" +
         counters_extra + "database: " + name + ".db\nsim:\n  model: " + model + "\n  seed: 11\n";
}

struct Stat {
  double n = 0, mean = 0, se = 0;
  std::string family;
};

// `kprof query DB samples --format csv`: (variant, counter) -> n, mean, se.
inline std::map<std::pair<std::string, std::string>, Stat> samples(const TempDir& dir,
                                                                   const std::string& db) {
  const Ran q = kprof(dir, {"query", (dir / db).string(), "samples", "--format", "csv"}, db + ".q");
  EXPECT_EQ(q.result.exit_code, 0) << q.output;
  std::map<std::pair<std::string, std::string>, Stat> out;
  std::vector<std::string> header;
  for (const auto& line : split(q.output, '\n')) {
    if (line.empty() || line.rfind("kprof:", 0) == 0) continue;  // the provenance line
    const auto cells = split(line, ',');
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    EXPECT_EQ(row["simulated"], "1") << line;  // every figure says it is SIMULATED
    if (row["how"].rfind("per launch", 0) != 0) continue;
    // se is empty for a single launch (no sd): -1 marks it.
    out[{row["variant"], row["counter"]}] = {std::stod(row["n"]), std::stod(row["mean"]),
                                             row["se"].empty() ? -1 : std::stod(row["se"]),
                                             row["family"]};
  }
  return out;
}

// A one-run replay's per-launch statistics (`other`: rotation or kernel replay) against application
// replay's (`app`), per variant and counter: every variant of `app` is in `other` (with as many
// samples where `same_n`: kernel replay counts every launch with every group), and the means agree
// within the launches' own noise (4 standard errors of each side), exactly where neither side has
// any, skipping a variant with one launch a request (no spread to compare against). At least one
// comparison must have had noise, else it was trivial.
inline void expect_agrees_with_application_replay(
    const std::map<std::pair<std::string, std::string>, Stat>& app,
    const std::map<std::pair<std::string, std::string>, Stat>& other, bool same_n) {
  size_t compared = 0;
  for (const auto& [key, x] : app) {
    const auto it = other.find(key);
    ASSERT_NE(it, other.end()) << key.first << " " << key.second;
    const Stat& y = it->second;
    if (same_n) {
      EXPECT_EQ(y.n, x.n) << key.first << " " << key.second;
    }
    if (x.se < 0) continue;  // one launch a request (div): no spread to compare against
    if (x.se == 0 && y.se == 0) {
      EXPECT_DOUBLE_EQ(x.mean, y.mean) << key.first << " " << key.second;  // an exact count
      continue;
    }
    EXPECT_NEAR(y.mean, x.mean, 4 * (x.se + y.se)) << key.first << " " << key.second;
    ++compared;
  }
  EXPECT_GT(compared, 0u) << "no counter with per-launch noise: the comparison is trivial";
}

// Passes (application runs) of run 1 in `kprof query DB passes --format csv`: the trace pass and
// the counter passes.
inline size_t passes_of_run(const TempDir& dir, const std::string& db) {
  const Ran q = kprof(dir, {"query", (dir / db).string(), "passes", "--format", "csv"}, db + ".p");
  size_t n = 0;
  for (const auto& line : split(q.output, '\n')) n += line.rfind("1,1,", 0) == 0;  // run 1, SIM.
  return n;
}

}  // namespace kprof::exec::replay_testing
