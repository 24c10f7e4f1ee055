// `kprof plan` and `kprof counters` end to end: the real binary on a real runbook file.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

struct CliResult {
  int rc;
  std::string out;
};

// A rocprofv3 on PATH that answers neither --version nor --help: `kprof plan` refuses a profiler
// it cannot find, and plans for one of unknown release (the plain `rocprofv3 ...` commands these
// tests read) with the 7.0 option table.
std::string stub_profiler_dir() {
  static const std::string dir = [] {
    const auto d = std::filesystem::temp_directory_path() /
                   ("kprof_plan_cli_bin_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::ofstream(d / "rocprofv3") << "#!/bin/sh\nexit 2\n";
    std::filesystem::permissions(d / "rocprofv3", std::filesystem::perms::owner_all);
    return d.string();
  }();
  return dir;
}

CliResult run(const std::string& args) {
  std::string cmd = "PATH='" + stub_profiler_dir() + "':\"$PATH\" " + std::string(KPROF_BIN_DIR) +
                    "/kprof " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  int status = pclose(f);
  return {WEXITSTATUS(status), out};
}

class KprofPlanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir =
        std::filesystem::temp_directory_path() / ("kprof_plan_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(m_dir);
    std::ifstream in(std::string(KPROF_SOURCE_DIR) + "/runbooks/qwen3-30b-a3b-sim.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    m_runbook = ss.str();
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string write(const std::string& counters_block) {
    std::string text = m_runbook;
    const std::string key = "    metric_sets: [roofline]\n";
    auto at = text.find(key);
    EXPECT_NE(at, std::string::npos);
    text.replace(at, key.size(), counters_block);
    auto p = m_dir / "rb.yaml";
    std::ofstream(p) << text;
    return p.string();
  }

  std::filesystem::path m_dir;
  std::string m_runbook;
};

TEST_F(KprofPlanCli, PlansFullAtTwelvePasses) {
  CliResult r = run("plan " + write("    metric_sets: [full]\n"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(
                "passes: 12   lower bound: 12 (SQ 96 events / 8 per pass)   meets the lower bound, "
                "optimal (proved)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("pass 12 (counters 12/12)"), std::string::npos);
  EXPECT_NE(r.out.find("command:  rocprofv3 --pmc "), std::string::npos);
}

TEST_F(KprofPlanCli, JsonHasArgvPerPass) {
  CliResult r = run("plan --format json " +
                    write("    metric_sets: [roofline]\n    counters: [FETCH_SIZE]\n"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["lower_bound"], 3) << r.out;
  ASSERT_GE(j["passes"].size(), 1u);
  for (const auto& pass : j["passes"]) {
    EXPECT_EQ(pass["argv"][0], "rocprofv3");
    EXPECT_EQ(pass["argv"][1], "--pmc");
  }
  EXPECT_EQ(j["optimal"], true);
}

TEST_F(KprofPlanCli, UnknownCounterPointsAtTheRunbook) {
  CliResult r =
      run("plan " + write("    metric_sets: [roofline]\n    counters: [SQ_WAVES, TCC_HTI_sum]\n"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("rb.yaml:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown counter 'TCC_HTI_sum' for gfx942 (did you mean 'TCC_HIT_sum'"),
            std::string::npos)
      << r.out;
}

// One command builder: what `kprof plan` prints for each pass is exactly what `kprof run` records
// in passes.argv and passes.env (trace pass included).
TEST(KprofPlanRun, PlanJsonEqualsTheCommandsRunRecords) {
  if (!std::filesystem::exists(std::string(KPROF_BIN_DIR) + "/kprof"))
    GTEST_SKIP() << "kprof not built";
  const auto dir =
      std::filesystem::temp_directory_path() / ("kprof_plan_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto rb = dir / "pr.yaml";
  std::ofstream(rb) << "schema_version: 1\n"
                       "name: pr\n"
                       "workload:\n"
                       "  command: [\"true\"]\n"
                       "  env: {KPROF_TEST_VAR: \"a b\"}\n"
                       "profiler:\n"
                       "  output_format: csv\n"
                       "passes:\n"
                       "  trace: {stats: true}\n"
                       "  counters:\n"
                       "    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY]\n"
                       "    kernels: {include_regex: \"addition|divide\"}\n"
                       "database: pr.db\n"
                       "sim: {model: doc-vector-ops, seed: 3}\n";
  CliResult plan = run("plan --simulate --format json " + rb.string());
  ASSERT_EQ(plan.rc, 0) << plan.out;
  const auto j = nlohmann::json::parse(plan.out);
  EXPECT_EQ(j["run_id"], 1);
  EXPECT_EQ(j["simulated"], true);
  CliResult r = run("run --simulate --quiet " + rb.string());
  ASSERT_EQ(r.rc, 0) << r.out;

  SQLite::Database db((dir / "pr.db").string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT ordinal, kind, argv, env FROM passes ORDER BY ordinal");
  size_t n = 0;
  while (q.executeStep()) {
    ASSERT_LT(n, j["commands"].size());
    const auto& c = j["commands"][n++];
    EXPECT_EQ(c["ordinal"], q.getColumn(0).getInt64());
    EXPECT_EQ(c["kind"], q.getColumn(1).getString());
    EXPECT_EQ(c["argv"], nlohmann::json::parse(q.getColumn(2).getString()));
    EXPECT_EQ(c["env"], nlohmann::json::parse(q.getColumn(3).getString()));
  }
  EXPECT_EQ(n, j["commands"].size());
  EXPECT_EQ(n, 3u);  // the trace pass and two GRBM passes
  EXPECT_EQ(j["commands"][0]["argv"][1], "--kernel-trace");
  std::filesystem::remove_all(dir);
}

TEST(KprofCountersCli, ListsAndExplains) {
  CliResult list = run("counters 'TCC_EA0_RDREQ*'");
  ASSERT_EQ(list.rc, 0) << list.out;
  EXPECT_NE(list.out.find("TCC_EA0_RDREQ_32B_sum"), std::string::npos);
  EXPECT_EQ(list.out.find("FETCH_SIZE"), std::string::npos);
  CliResult ex = run("counters --explain WRITE_SIZE");
  ASSERT_EQ(ex.rc, 0) << ex.out;
  EXPECT_NE(ex.out.find("slots in one pass: TCC 2/4"), std::string::npos) << ex.out;
  CliResult bad = run("counters --explain FETCH_SIZ");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.out.find("did you mean 'FETCH_SIZE'"), std::string::npos) << bad.out;
}

// A misspelt command, and a misspelt option of every command, each name its nearest by edit
// distance. The commands and their options are read from kprof's own bash completion (made from
// the --help texts); each command's longest option loses its middle letter, which is one edit
// from that option and not the prefix of another.
TEST(KprofCli, EveryCommandAndEveryCommandsOptionsSuggestTheNearestName) {
  CliResult cmd = run("qeury out.db top");
  EXPECT_EQ(cmd.rc, 2) << cmd.out;
  EXPECT_NE(cmd.out.find("unknown command 'qeury'"), std::string::npos) << cmd.out;
  EXPECT_NE(cmd.out.find("did you mean 'query'"), std::string::npos) << cmd.out;
  CliResult comp = run("__completion");
  ASSERT_EQ(comp.rc, 0) << comp.out;
  std::istringstream lines(comp.out);
  std::string line;
  size_t checked = 0;
  while (std::getline(lines, line)) {
    const auto close = line.find(") opts=\"");
    if (close == std::string::npos || line.rfind("    ", 0) != 0) continue;
    const std::string command = line.substr(4, close - 4);
    std::istringstream words(line.substr(close + 8, line.rfind('"') - close - 8));
    std::string word, longest;
    while (words >> word)
      if (word.rfind("--", 0) == 0 && word != "--help" && word.size() > longest.size())
        longest = word;
    if (longest.size() < 6) continue;  // a command with no option worth misspelling
    std::string typo = longest;
    typo.erase(2 + (longest.size() - 2) / 2, 1);
    SCOPED_TRACE(command + " " + typo);
    CliResult r = run(command + " " + typo);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("did you mean '" + longest + "'"), std::string::npos) << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 12u) << comp.out;
}

}  // namespace

// `--db` moves the captures with the database: two databases made from one runbook each keep
// their own run-1 pass folders (before, the second run deleted the first's, which sat in the
// runbook's folder under the same run-1/pass-K names), and plan shows the folders run will use.
TEST(KprofPlanRun, EachDatabaseKeepsItsOwnCaptures) {
  if (!std::filesystem::exists(std::string(KPROF_BIN_DIR) + "/kprof"))
    GTEST_SKIP() << "kprof not built";
  const auto dir =
      std::filesystem::temp_directory_path() / ("kprof_plan_db_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  const auto rb = dir / "pr.yaml";
  std::ofstream(rb) << "schema_version: 1\nname: pr\nworkload:\n  command: [\"true\"]\n"
                       "profiler:\n  output_format: csv\n"
                       "passes:\n  counters:\n    counters: [GRBM_COUNT]\n"
                       "sim: {model: doc-vector-ops, seed: 3}\n";
  const auto a = dir / "a" / "x.db", b = dir / "b" / "y.db";
  CliResult plan = run("plan --simulate --format json --db " + b.string() + " " + rb.string());
  ASSERT_EQ(plan.rc, 0) << plan.out;
  EXPECT_EQ(plan.out.find((dir / "pr-captures").string()), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find((dir / "b" / "y-captures" / "run-1" / "pass-0").string()),
            std::string::npos)
      << plan.out;
  for (const auto& db : {a, b}) {
    CliResult r = run("run --simulate --quiet --db " + db.string() + " " + rb.string());
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  for (const auto& [db, caps] :
       {std::pair{a, dir / "a" / "x-captures"}, std::pair{b, dir / "b" / "y-captures"}}) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(d, "SELECT output_dir FROM passes ORDER BY ordinal");
    size_t n = 0;
    while (q.executeStep()) {
      const std::filesystem::path out = q.getColumn(0).getString();
      EXPECT_EQ(out.parent_path(), caps / "run-1");
      EXPECT_FALSE(std::filesystem::is_empty(out)) << out;  // the files are still there
      ++n;
    }
    EXPECT_EQ(n, 2u);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "pr-captures"));
  // resume finds the passes where the run put them (nothing left to do: exit 0).
  CliResult res = run("resume --quiet " + a.string());
  EXPECT_EQ(res.rc, 0) << res.out;
  std::filesystem::remove_all(dir);
}

// `kprof plan` previews one-run rotation on the trace already in the database: doc-vector-ops'
// four kernels launch once each per request, so with 2 groups interval 1 (and 2) would give each
// kernel one group only (aliasing); kprof picks interval 4 and repeats the request 60 times for
// 30 samples of each group.
TEST(KprofPlanRun, PreviewsRotationOnTheTrace) {
  if (!std::filesystem::exists(std::string(KPROF_BIN_DIR) + "/kprof"))
    GTEST_SKIP() << "kprof not built";
  const auto dir =
      std::filesystem::temp_directory_path() / ("kprof_plan_rot_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto rb = dir / "rot.yaml";
  std::ofstream(rb) << "schema_version: 1\nname: rot\nworkload:\n  command: [\"true\"]\n"
                       "passes:\n  counters:\n    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, "
                       "GRBM_CP_BUSY]\n"
                       "sim: {model: doc-vector-ops, seed: 3}\n";
  CliResult before = run("plan --simulate " + rb.string());
  ASSERT_EQ(before.rc, 0) << before.out;
  EXPECT_NE(before.out.find("one-run rotation (rocprofv3 pmc_groups): no trace yet"),
            std::string::npos)
      << before.out;
  CliResult r = run("run --simulate --quiet " + rb.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  CliResult plan = run("plan --simulate " + rb.string());
  ASSERT_EQ(plan.rc, 0) << plan.out;
  EXPECT_NE(plan.out.find("2 groups (the counter passes above), pmc_group_interval 4, the "
                          "request repeated 60 times in one run (--repeat 60): 2 application "
                          "runs (trace + 1 rotated) instead of 3"),
            std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("statistical: each launch is counted with one group only"),
            std::string::npos);
  CliResult json = run("plan --simulate --format json " + rb.string());
  ASSERT_EQ(json.rc, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out)["rotation"];
  EXPECT_EQ(j["interval"], 4);
  EXPECT_EQ(j["repeats"], 60);
  EXPECT_EQ(j["trace_run"], 1);
  ASSERT_EQ(j["variants"].size(), 4u);
  for (const auto& v : j["variants"]) {
    EXPECT_EQ(v["per_request"], 1);
    EXPECT_EQ(v["samples_per_group"], nlohmann::json::array({30, 30}));
  }
  // Before ROCm 7.0 there is no pmc_groups.
  setenv("ROCPROF_SIM_VERSION", "6.4", 1);
  CliResult old = run("plan --simulate " + rb.string());
  unsetenv("ROCPROF_SIM_VERSION");
  ASSERT_EQ(old.rc, 0) << old.out;
  EXPECT_NE(old.out.find("rocprofv3 before ROCm 7.0 has no pmc_groups: application replay only"),
            std::string::npos)
      << old.out;
  std::filesystem::remove_all(dir);
}
