// The shipped tensor-parallel runbook (runbooks/qwen3-30b-a3b-mi300x-tp4.yaml) rehearsed through
// kprof, as a user runs it: `kprof run --simulate` gives every pass four ranks, `kprof query DB
// ranks` reports each rank's compute, collective and exposed time and recovers the skew the
// double injected, and the old way (the region opened in the entry process only) fails the pass
// with the reason. Truths: the injected skew from the model file (ranks.arrival_delay_ns), each
// rank's collective and compute time summed from the stored raw rows with SQL, never from kprof's
// view. Real processes: kprof, rocprofv3-sim and python3; real SQLite files.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

const fs::path k_source(KPROF_SOURCE_DIR);

RunResult kprof_in(const fs::path& dir, const std::string& args) {
  const std::string cmd = "cd " + dir.string() + " && ROCPROF_SIM_CLOCK_BASE_NS=1000000000 " +
                          (fs::path(KPROF_BIN_DIR) / "kprof").string() + " " + args + " > " +
                          (dir / ".out").string() + " 2>&1";
  RunResult r;
  r.status = std::system(cmd.c_str());
  r.out = read_file(dir / ".out");
  return r;
}

// The shipped TP=4 runbook in `dir` (tp4.db, tp4-captures; sim_harness.hpp).
fs::path tp4_runbook(const fs::path& dir, const std::function<void(std::string&)>& edit = {}) {
  return shipped_runbook_in(dir, "qwen3-30b-a3b-mi300x-tp4", "tp4.yaml", edit);
}

// The model's injected arrival delays, read from its file.
std::vector<int64_t> arrival_delays() {
  const std::string model =
      read_file(k_source / "configs" / "sim" / "qwen3-30b-a3b-mi300x-tp4.yaml");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(model, m, std::regex(R"(arrival_delay_ns:\s*\[([^\]]*)\])")));
  std::vector<int64_t> out;
  const std::string list = m[1];
  const std::regex number(R"(\d+)");
  for (std::sregex_iterator it(list.begin(), list.end(), number), end; it != end; ++it)
    out.push_back(std::stoll(it->str()));
  return out;
}

TEST(TensorParallelRunbook, FourRanksInEveryPassAndTheInjectedSkewIsRecovered) {
  TempDir t;
  const auto rb = tp4_runbook(t.path);
  const auto r = kprof_in(t.path, "run " + rb.string() + " --simulate --quiet");
  ASSERT_EQ(r.exit_code(), 0) << r.out;
  const auto db = t.path / "tp4.db";
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(d.execAndGet("SELECT count(*) FROM passes WHERE state != 'done'").getInt(), 0);
  // Every pass: four ranks, each its own process on its own GPU agent.
  SQLite::Statement per_pass(d,
                             "SELECT count(*), count(DISTINCT pid), count(DISTINCT agent) FROM "
                             "pass_ranks GROUP BY pass_id");
  int passes = 0;
  while (per_pass.executeStep()) {
    ++passes;
    EXPECT_EQ(per_pass.getColumn(0).getInt(), 4);
    EXPECT_EQ(per_pass.getColumn(1).getInt(), 4);
    EXPECT_EQ(per_pass.getColumn(2).getInt(), 4);
  }
  EXPECT_EQ(passes, d.execAndGet("SELECT count(*) FROM passes").getInt());

  const auto q = kprof_in(t.path, "query " + db.string() + " ranks");
  ASSERT_EQ(q.exit_code(), 0) << q.out;
  // The skew the double injected: the latest arrival minus the earliest, at every collective.
  const auto delays = arrival_delays();
  ASSERT_EQ(delays.size(), 4u);
  const auto [lo, hi] = std::minmax_element(delays.begin(), delays.end());
  const double injected = static_cast<double>(*hi - *lo);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(q.out, m, std::regex(R"(arrival skew .*: mean ([0-9.]+) ns)")))
      << q.out;
  EXPECT_NEAR(std::stod(m[1]), injected, 0.01 * injected) << q.out;
  // The rank with the largest delay arrives last.
  const auto last = std::to_string(hi - delays.begin());
  EXPECT_NE(q.out.find("rank " + last + " (GPU agent "), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("arrived last most often"), std::string::npos) << q.out;

  // Per rank, from the raw rows: the collectives (vLLM's cross_device_reduce kernels) and the
  // rest; one queue per rank in the model, so nothing overlaps and the exposed time is all of it.
  const auto csv = kprof_in(t.path, "query " + db.string() + " ranks --format csv");
  ASSERT_EQ(csv.exit_code(), 0) << csv.out;
  std::map<int64_t, std::pair<int64_t, int64_t>> truth;  // pid -> collective, other ns
  SQLite::Statement rows(d,
                         "SELECT d.pid, s.value LIKE '%cross_device_reduce%', "
                         "sum(d.end_ns - d.start_ns) FROM dispatches d "
                         "JOIN strings s ON s.id = d.kernel_name_id "
                         "JOIN passes p ON p.id = d.pass_id WHERE p.ordinal = 0 GROUP BY 1, 2");
  while (rows.executeStep()) {
    auto& sums = truth[rows.getColumn(0).getInt64()];
    (rows.getColumn(1).getInt() ? sums.first : sums.second) = rows.getColumn(2).getInt64();
  }
  ASSERT_EQ(truth.size(), 4u);
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);  // run,simulated,rank,pid,agent,kernels,busy_ns,compute_ns,coll_ns,
                              // exposed_ns,...
  int seen = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("kprof: ", 0) == 0) continue;  // the notes, on stderr
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    ASSERT_GE(f.size(), 10u) << line;
    const auto& sums = truth.at(std::stoll(f[3]));
    EXPECT_EQ(std::stoll(f[8]), sums.first) << line;   // coll_ns
    EXPECT_EQ(std::stoll(f[7]), sums.second) << line;  // compute_ns
    EXPECT_EQ(std::stoll(f[9]), sums.first) << line;   // exposed_ns
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}

// The old way: the script opens the region in the entry process (vLLM's engine in the caller), so
// every worker stays paused; the trace pass fails with the reason and the fix, as on a real node.
TEST(TensorParallelRunbook, TheRegionInTheEntryProcessOnlyFailsThePassWithTheReason) {
  TempDir t;
  const auto rb = tp4_runbook(t.path, [](std::string& text) {
    const std::string from = "--tensor-parallel, \"4\"]";
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(),
                 "--tensor-parallel, \"4\", --region-in, entry]\n"
                 "  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}");
  });
  const auto r = kprof_in(t.path, "run " + rb.string() + " --simulate --quiet");
  EXPECT_NE(r.exit_code(), 0) << r.out;
  SQLite::Database d((t.path / "tp4.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(d.execAndGet("SELECT state FROM passes WHERE ordinal = 0").getString(), "failed");
  EXPECT_EQ(d.execAndGet("SELECT count(*) FROM dispatch_rows").getInt(), 0);
  const std::string reason =
      d.execAndGet("SELECT reason FROM passes WHERE ordinal = 0").getString();
  EXPECT_NE(reason.find("none of the 4 ranks (workload.ranks) recorded a dispatch"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("--region-in workers"), std::string::npos) << reason;
}

}  // namespace
}  // namespace kprof::sim::testing
