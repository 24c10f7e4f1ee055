// `kprof compare` of the simulated runs of the ctest fixture report_sim_runs: different seeds show
// every family; 64 against 32 output tokens explains the launch-count difference as steps. And of
// a real pair of captures without steps (tests/data/captures).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/report/compare.hpp"
#include "tests/report/tp_capture.hpp"

namespace kprof::report {
namespace {

namespace fs = std::filesystem;
const fs::path k_dir = KPROF_REPORT_SIM_DIR;
// "qwen3-64" -> the fixture's database of that run.
fs::path sim_db(const std::string& name) { return k_dir / name / (name + ".db"); }

Comparison compare(const std::string& a, const std::string& b, bool force = false) {
  auto sa = analysis::QuerySession::open(sim_db(a), {});
  auto sb = analysis::QuerySession::open(sim_db(b), {});
  return compare_runs(sa, a, sb, b, {force});
}

std::set<std::string> families_of(const std::string& db) {
  auto s = analysis::QuerySession::open(sim_db(db), {});
  std::set<std::string> out;
  for (const auto& r : s.view("families", {}).rows) out.insert(std::get<std::string>(r[0]));
  return out;
}

TEST(Compare, DifferentSeedsShowEveryFamily) {
  const Comparison c = compare("qwen3-64", "qwen3-64-s43");
  std::set<std::string> rows;
  for (const auto& r : c.families.rows) rows.insert(std::get<std::string>(r[0]));
  auto all = families_of("qwen3-64");
  for (const auto& f : families_of("qwen3-64-s43")) all.insert(f);
  EXPECT_EQ(rows, all);
  EXPECT_TRUE(c.simulated);
  EXPECT_TRUE(c.families.simulated);
  bool seeds = false, same = false;
  for (const auto& w : c.workload) {
    seeds |= w == "simulator seeds differ: 42 and 43";
    same |= w == "same target, same steps and layers";
  }
  EXPECT_TRUE(seeds);
  EXPECT_TRUE(same);
  // Same workload: launches equal per family, times differ by the seed's noise only.
  for (const auto& r : c.families.rows) EXPECT_EQ(r[1], r[2]) << std::get<std::string>(r[0]);
  // Variants of the fused MoE kernel are matched across the runs and carry both sides' metrics.
  int moe = 0;
  for (const auto& r : c.variants.rows) {
    if (std::get<std::string>(r[0]) != "fused_moe_kernel") continue;
    ++moe;
    EXPECT_FALSE(std::holds_alternative<std::monostate>(r[1]));
    EXPECT_FALSE(std::holds_alternative<std::monostate>(r[2]));
    EXPECT_FALSE(std::holds_alternative<std::monostate>(r[11]));  // tflops_a
    EXPECT_FALSE(std::holds_alternative<std::monostate>(r[12]));  // tflops_b
  }
  EXPECT_EQ(moe, 4);  // prefill and decode, w13 and w2
  // Both runs have the same steps, so no launch change is explained.
  for (const auto& r : c.families.rows) EXPECT_EQ(std::get<std::string>(r[12]), "");
}

TEST(Compare, ExplainsFewerOutputTokensAsFewerDecodeSteps) {
  const Comparison c = compare("qwen3-64", "qwen3-32");
  bool differ = false;
  for (const auto& w : c.workload)
    differ |= w.find("workloads differ in steps") != std::string::npos;
  EXPECT_TRUE(differ);
  // Every family whose launches changed is explained as 32 fewer decode steps times its launches
  // per step, and the product is the change; a family whose launches did not change (prefill-only
  // kernels) has no explanation.
  int explained = 0;
  for (const auto& r : c.families.rows) {
    const std::string family = std::get<std::string>(r[0]);
    const int64_t a = std::get<int64_t>(r[1]), b = std::get<int64_t>(r[2]);
    const std::string why = std::get<std::string>(r[12]);
    if (a == b) {
      EXPECT_EQ(why, "") << family;
      continue;
    }
    const std::string head = "decode: 63 → 31 steps × ";
    ASSERT_EQ(why.rfind(head, 0), 0u) << family << ": " << why;
    const int64_t per_step = std::stoll(why.substr(head.size()));
    EXPECT_EQ((31 - 63) * per_step, b - a) << family << ": " << why;
    EXPECT_NE(why.find(" = " + std::to_string(b - a)), std::string::npos) << family << ": " << why;
    ++explained;
  }
  EXPECT_GE(explained, 15);
  for (const auto& r : c.families.rows) {
    if (std::get<std::string>(r[0]) != "fused_moe_kernel") continue;
    EXPECT_EQ(std::get<int64_t>(r[1]), 6144);
    EXPECT_EQ(std::get<int64_t>(r[2]), 3072);
    EXPECT_EQ(std::get<std::string>(r[12]),
              "decode: 63 → 31 steps × 96 launches per step (48 layers × 2) = -3072");
    return;
  }
  FAIL() << "no fused_moe_kernel row";
}

TEST(Compare, CommandPrintsBothTablesAndRefusesBadInput) {
  const fs::path out = fs::temp_directory_path() / ("kprof_compare_" + std::to_string(::getpid()));
  auto run = [&](const std::string& args) {
    const int rc = std::system(
        (std::string(KPROF_BIN_DIR) + "/kprof compare " + args + " > " + out.string() + " 2>&1")
            .c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return std::make_pair(WEXITSTATUS(rc), ss.str());
  };
  const auto [rc, text] = run((k_dir / "qwen3-64" / "qwen3-64.db").string() + " " +
                              (k_dir / "qwen3-32" / "qwen3-32.db:1").string());
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("SIMULATED"), std::string::npos) << text;
  EXPECT_NE(text.find("63 → 31 steps"), std::string::npos) << text;
  const auto [rc2, text2] = run((k_dir / "qwen3-64" / "qwen3-64.db:99").string() + " " +
                                (k_dir / "qwen3-32" / "qwen3-32.db").string());
  EXPECT_EQ(rc2, 2) << text2;
  EXPECT_NE(text2.find("99"), std::string::npos) << text2;
  fs::remove(out);
}

// `--format json` is one document a JSON parser reads whole (it used to print two, one per table).
TEST(Compare, JsonFormatIsOneDocument) {
  const fs::path out =
      fs::temp_directory_path() / ("kprof_compare_json_" + std::to_string(::getpid()));
  const int rc = std::system((std::string(KPROF_BIN_DIR) + "/kprof compare " +
                              sim_db("qwen3-64").string() + " " + sim_db("qwen3-32").string() +
                              " --format json > " + out.string() + " 2>/dev/null")
                                 .c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(out);
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(ss.str())) << ss.str().substr(0, 400);
  ASSERT_TRUE(doc.contains("families") && doc.contains("variants")) << doc.dump().substr(0, 400);
  EXPECT_FALSE(doc["families"]["rows"].empty());
  EXPECT_FALSE(doc["variants"]["rows"].empty());
  EXPECT_TRUE(doc["families"]["simulated"].get<bool>());
  EXPECT_NE(doc["notes"].dump().find("steps"), std::string::npos) << doc["notes"].dump();
}

// A real A/B pair (uLLM's SQ8 component bench on a Radeon AI PRO R9700, gfx1201, without and with
// cache eviction: 12 and 22 dispatches, no repeated steps). Neither run has steps, so a
// launch-count change is a count, never an explanation in steps; every table names both runs (it
// said "run 0", a run neither database has), and launches stay integers in the variant rows.
TEST(Compare, TwoRealRunsWithoutStepsAreComparedAsCounts) {
  const fs::path tmp =
      fs::temp_directory_path() / ("kprof_compare_real_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const fs::path dir = fs::path(KPROF_TEST_DATA) / "captures" / "uLLM-project" / "2026-07-10" /
                       "sq8-optimized-component-v0.1" / "profiler";
  auto sh = [&](const std::string& args, const fs::path& out) {
    const int rc = std::system((std::string(KPROF_BIN_DIR) + "/kprof " + args + " > " +
                                out.string() + " 2>" + (tmp / "err").string())
                                   .c_str());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return std::make_pair(WEXITSTATUS(rc), ss.str());
  };
  for (const std::string run : {"component-m8", "component-m8-evicted"}) {
    const auto [rc, log] = sh("ingest " + (tmp / (run + ".db")).string() + " " +
                                  (dir / (run + "_kernel_trace.csv")).string() + " " +
                                  (dir / (run + "_agent_info.csv")).string(),
                              tmp / "ingest.log");
    ASSERT_EQ(rc, 0) << log;
  }
  const std::string a = (tmp / "component-m8.db").string(),
                    b = (tmp / "component-m8-evicted.db").string();
  const auto [rc, text] = sh("compare " + a + " " + b, tmp / "out.txt");
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("neither run shows repeated steps"), std::string::npos) << text;
  EXPECT_EQ(text.find("same steps and layers"), std::string::npos) << text;
  EXPECT_EQ(text.find("run 0"), std::string::npos) << text;
  EXPECT_NE(text.find("families: A → B — A: " + a + " run 1, B: " + b + " run 1, measured"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("SIMULATED"), std::string::npos) << text;

  const auto [jrc, json] = sh("compare " + a + " " + b + " --format json", tmp / "out.json");
  ASSERT_EQ(jrc, 0) << json;
  const auto doc = nlohmann::json::parse(json);
  for (const char* table : {"families", "variants"}) {
    EXPECT_FALSE(doc[table].contains("run")) << table;
    EXPECT_EQ(doc[table]["runs"], "A: " + a + " run 1, B: " + b + " run 1") << table;
    EXPECT_FALSE(doc[table]["simulated"].get<bool>()) << table;
  }
  std::map<std::string, nlohmann::json> fam;
  for (const auto& r : doc["families"]["rows"]) fam[r["family"].get<std::string>()] = r;
  ASSERT_EQ(fam.size(), 6u) << doc["families"].dump(1);
  // The GEMMs ran 8 times in both; the eviction kernels only in B.
  EXPECT_EQ(fam["ck::kernel_gemm_xdl_cshuffle_v3"]["launches_a"], 8);
  EXPECT_EQ(fam["ck::kernel_gemm_xdl_cshuffle_v3"]["launches_b"], 8);
  EXPECT_EQ(fam["ck::kernel_gemm_xdl_cshuffle_v3"]["launch_change"], "");
  EXPECT_EQ(fam["ullm_sq8_evict_cache"]["launch_change"], "only in B");
  EXPECT_TRUE(fam["ullm_sq8_evict_cache"]["launches_a"].is_null());
  EXPECT_EQ(fam["ullm_sq8_evict_cache"]["launches_b"], 8);
  for (const auto& r : doc["variants"]["rows"]) {
    EXPECT_EQ(r["phase"], "unknown") << r.dump();
    for (const char* side : {"launches_a", "launches_b"})
      EXPECT_TRUE(r[side].is_null() || r[side].is_number_integer()) << r.dump();
  }
  fs::remove_all(tmp);
}

TEST(Compare, RunReferences) {
  EXPECT_EQ(parse_run_ref("out/q.db").db, "out/q.db");
  EXPECT_FALSE(parse_run_ref("out/q.db").run);
  EXPECT_EQ(parse_run_ref("out/q.db:3").run, 3);
  EXPECT_EQ(parse_run_ref("out/q.db:3").db, "out/q.db");
  EXPECT_EQ(parse_run_ref("c:/x:y.db").db, "c:/x:y.db");
  EXPECT_EQ(parse_run_ref("odd:12:").db, "odd:12");
  EXPECT_FALSE(parse_run_ref("odd:12:").run);
  EXPECT_THROW(parse_run_ref(":4"), Error);
}

// Two two-rank runs (tests/report/tp_capture.hpp): rank 1 arrives 30 ns late in A and 60 ns late
// in B. Rank 0: compute 100 in both, collective 100 + 30 = 130 in A and 160 in B (+23.08%);
// rank 1: compute 130 and 160, collective 100 in both. Rank 1 is last at the one collective.
TEST(Compare, RanksAreComparedPerRankNumber) {
  const fs::path dir =
      fs::temp_directory_path() / ("kprof_compare_tp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::write_two_rank_db(dir / "a.db", 30);
  test::write_two_rank_db(dir / "b.db", 60);
  auto sa = analysis::QuerySession::open(dir / "a.db", {});
  auto sb = analysis::QuerySession::open(dir / "b.db", {});
  const Comparison c = compare_runs(sa, "a", sb, "b", {});
  fs::remove_all(dir);
  ASSERT_TRUE(c.ranks);
  const Table& t = *c.ranks;
  ASSERT_EQ(t.rows.size(), 2u);
  auto at = [&](size_t row, const std::string& name) {
    const auto it = std::find(t.columns.begin(), t.columns.end(), name);
    EXPECT_NE(it, t.columns.end()) << name;
    return t.rows[row][static_cast<size_t>(it - t.columns.begin())];
  };
  EXPECT_EQ(at(0, "compute_ns_a"), Cell(int64_t{100}));
  EXPECT_EQ(at(0, "coll_ns_a"), Cell(int64_t{130}));
  EXPECT_EQ(at(0, "coll_ns_b"), Cell(int64_t{160}));
  EXPECT_NEAR(std::get<double>(at(0, "coll_pct")), 100.0 * 30 / 130, 1e-9);
  EXPECT_EQ(at(1, "compute_ns_b"), Cell(int64_t{160}));
  EXPECT_EQ(at(1, "exposed_ns_a"), Cell(int64_t{100}));
  EXPECT_EQ(at(1, "last_at_b"), Cell(int64_t{1}));
}

}  // namespace
}  // namespace kprof::report
