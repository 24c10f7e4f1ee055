// `kprof ingest` as a user runs it: a real process on real capture files, a real database file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <SQLiteCpp/Database.h>

#include "core/store/capture_db.hpp"
#include "tests/ingest/independent_csv.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_probe = fs::path(KPROF_TEST_DATA) / "captures" /
                         "uLLM-project/2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc/"
                         "probe-raw-sq/data/homelab1-WRX80-Creator";
const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

struct Ran {
  int code = -1;
  std::string out;
};

Ran run(const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("kprof_cli_" + std::to_string(getpid()) + ".out");
  int rc = std::system((k_kprof + " " + args + " > " + out.string() + " 2>&1").c_str());
  std::ifstream in(out);
  Ran r;
  r.out.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  fs::remove(out);
  return r;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class CliIngest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The pid keeps two checkouts' test runs on one machine out of each other's way.
    m_dir = fs::temp_directory_path() /
            ("kprof_cli_ingest_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "cap" / "host");
    fs::create_directories(m_dir / "cap" / "pass_1" / "host");
    fs::copy_file(k_probe / "1323859_kernel_trace.csv",
                  m_dir / "cap/host/1323859_kernel_trace.csv");
    fs::copy_file(k_probe / "1323859_agent_info.csv", m_dir / "cap/host/1323859_agent_info.csv");
    fs::copy_file(k_probe / "1323859_counter_collection.csv",
                  m_dir / "cap/pass_1/host/1323859_counter_collection.csv");
    m_db = m_dir / "k.db";
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir, m_db;
};

TEST_F(CliIngest, LoadsPassesAndReingestReplaces) {
  const std::string args = "ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --run r1";
  Ran r = run(args);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1323859_kernel_trace.csv"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(measured)"), std::string::npos) << r.out;
  {
    store::CaptureDb db(m_db, store::OpenMode::read_only);
    auto run_info = db.find_run_by_name("r1");
    ASSERT_TRUE(run_info);
    EXPECT_FALSE(run_info->simulated);
    auto passes = db.list_passes(run_info->id);
    ASSERT_EQ(passes.size(), 2u);
    EXPECT_EQ(passes[0].kind, store::PassKind::trace);
    EXPECT_EQ(passes[1].kind, store::PassKind::counters);
    EXPECT_EQ(passes[1].ordinal, 1);
    EXPECT_EQ(db.row_counts(passes[0].id).dispatches, 16);
    EXPECT_EQ(db.row_counts(passes[0].id).agents, 4);
    EXPECT_EQ(db.row_counts(passes[1].id).dispatches, 16);
    EXPECT_EQ(db.row_counts(passes[1].id).counter_values, 32);
  }
  r = run(args);  // the same capture again: replaced, not duplicated
  ASSERT_EQ(r.code, 0) << r.out;
  store::CaptureDb db(m_db, store::OpenMode::read_only);
  auto passes = db.list_passes(db.find_run_by_name("r1")->id);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(db.row_counts(passes[0].id).dispatches, 16);
  EXPECT_EQ(db.row_counts(passes[1].id).counter_values, 32);
}

// One header-only file in a folder (rocprofv3 writes none; it was cut off) is left out with a
// note, and the rest of the folder is loaded (it stopped the whole ingest).
TEST_F(CliIngest, AHeaderOnlyFileInAFolderIsSkippedWithANote) {
  std::ofstream(m_dir / "cap/host/1323859_kernel_stats.csv")
      << "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\","
         "\"MaxNs\",\"StdDev\"\n";
  const Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --run r1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("note: skipped " + (m_dir / "cap/host/1323859_kernel_stats.csv").string() +
                       ": a header and no rows"),
            std::string::npos)
      << r.out;
  store::CaptureDb db(m_db, store::OpenMode::read_only);
  const auto passes = db.list_passes(db.find_run_by_name("r1")->id);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(db.row_counts(passes[0].id).dispatches, 16);
}

// The uLLM SQ8 component folder, ingested and asked for its claims as JSON: each claim carries a
// confidence; the counter pass whose Dispatch_Ids equal the trace's (same kernels and grids) is
// joined by offset 0 with high confidence, and steps (22 dispatches that do not repeat) are
// unknown with a reason.
TEST_F(CliIngest, ClaimsOfAnIngestedCaptureCarryTheirConfidence) {
  const fs::path profiler =
      fs::path(KPROF_TEST_DATA) /
      "captures/uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler";
  Ran r = run("ingest " + m_db.string() + " " + profiler.string());
  ASSERT_EQ(r.code, 0) << r.out;
  r = run("query " + m_db.string() + " claims --run 2 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"topic\": \"join\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("22 of 22 counter dispatches mapped to trace dispatches (offset)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"confidence\": \"high\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"topic\": \"steps\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"confidence\": \"unknown\""), std::string::npos) << r.out;
}

TEST_F(CliIngest, BrokenFileLeavesDatabaseUntouched) {
  ASSERT_EQ(run("ingest " + m_db.string() + " " + (m_dir / "cap").string()).code, 0);
  const std::string before = bytes_of(m_db);
  // A truncated counter file in a second pass folder.
  fs::create_directories(m_dir / "cap/pass_2/host");
  std::string text = bytes_of(k_probe / "1323859_counter_collection.csv");
  std::ofstream(m_dir / "cap/pass_2/host/1_counter_collection.csv")
      << text.substr(0, text.size() - 20);
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --run other");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("1_counter_collection.csv:33:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the file ends in the middle of a row"), std::string::npos) << r.out;
  EXPECT_EQ(bytes_of(m_db), before);
  store::CaptureDb db(m_db, store::OpenMode::read_only);
  EXPECT_FALSE(db.find_run_by_name("other"));
}

TEST_F(CliIngest, StrictFailsOnABadRowOtherwiseCounted) {
  std::string text = bytes_of(m_dir / "cap/host/1323859_kernel_trace.csv");
  auto second_line = text.find('\n') + 1;
  text.insert(
      second_line,
      "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,5,99,4,\"k\",99,abc,5,0,0,16,0,128,256,1,1,256,1,1\n");
  std::ofstream(m_dir / "cap/host/1323859_kernel_trace.csv") << text;
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cap/host").string() + " --strict");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("1323859_kernel_trace.csv:2:"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(m_db));  // nothing written, not even the file
  r = run("ingest " + m_db.string() + " " + (m_dir / "cap/host").string() + " --run lax");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 bad rows were skipped"), std::string::npos) << r.out;
  store::CaptureDb db(m_db, store::OpenMode::read_only);
  auto pass = db.list_passes(db.find_run_by_name("lax")->id).at(0);
  EXPECT_EQ(db.row_counts(pass.id).dispatches, 16);
  auto files = db.ingest_files(pass.id);
  bool found = false;
  for (const auto& f : files) {
    if (f.kind != "kernel_trace") continue;
    found = true;
    EXPECT_EQ(f.rows_rejected, 1);
    EXPECT_EQ(f.first_reject_line, 2);
    EXPECT_EQ(f.rows_read, 17);
  }
  EXPECT_TRUE(found);
}

TEST_F(CliIngest, UsageErrors) {
  EXPECT_EQ(run("ingest").code, 2);
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --pass-kind both");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--pass-kind must be trace or counters"), std::string::npos) << r.out;
  r = run("ingest " + m_db.string() + " " + (m_dir / "nowhere").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no such file or directory"), std::string::npos) << r.out;
}

// SIGKILL in the middle of the load: the command is one transaction, so the next open sees
// nothing of it, and the same ingest again loads everything. The kill comes at a named crash point
// (core/base/crash_point.hpp) halfway through the load, not after a guessed wait (which failed on a
// loaded machine when the ingest finished first: "ingest ended before it could be killed").
TEST_F(CliIngest, KilledIngestLeavesNoPartialPass) {
  // A trace big enough to take several 1 MiB chunks: the real capture repeated.
  std::string text = bytes_of(k_probe / "1323859_kernel_trace.csv");
  const auto header_end = text.find('\n') + 1;
  const std::string body = text.substr(header_end);
  {
    std::ofstream big(m_dir / "cap/host/1323859_kernel_trace.csv");
    big << text.substr(0, header_end);
    for (int i = 0; i < 4000; ++i) big << body;  // 64k rows, ~10 MB
  }
  const std::string db = m_db.string(), cap = (m_dir / "cap/host").string();
  // Count the chunks an ingest reads (into another database), then kill it halfway.
  const fs::path hits = m_dir / "hits.log";
  ::setenv("KPROF_CRASH_LOG", hits.c_str(), 1);
  const Ran counted = run("ingest " + (m_dir / "count.db").string() + " " + cap);
  ::unsetenv("KPROF_CRASH_LOG");
  ASSERT_EQ(counted.code, 0) << counted.out;
  int chunks = 0;
  {
    std::ifstream in(hits);
    for (std::string line; std::getline(in, line);) chunks += line == "ingest.chunk_read";
  }
  ASSERT_GE(chunks, 4);
  const std::string crash_at = "ingest.chunk_read:" + std::to_string(chunks / 2);
  pid_t child = fork();
  if (child == 0) {
    ::setenv("KPROF_CRASH_AT", crash_at.c_str(), 1);
    execl(k_kprof.c_str(), "kprof", "ingest", db.c_str(), cap.c_str(), "--run", "killed",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  {
    // The command is one transaction: the run record went with the rows it was created with.
    store::CaptureDb cdb(m_db, store::OpenMode::read_only);
    EXPECT_FALSE(cdb.find_run_by_name("killed"));
    EXPECT_EQ(cdb.sql().execAndGet("SELECT count(*) FROM dispatches").getInt(), 0);
    EXPECT_EQ(cdb.sql().execAndGet("SELECT count(*) FROM ingest_stats").getInt(), 0);
    EXPECT_EQ(cdb.sql().execAndGet("PRAGMA integrity_check").getString(), "ok");
  }
  const Ran again = run("ingest " + db + " " + cap + " --run killed");
  ASSERT_EQ(again.code, 0) << again.out;
  store::CaptureDb cdb(m_db, store::OpenMode::read_only);
  const auto r = cdb.find_run_by_name("killed");
  ASSERT_TRUE(r);
  EXPECT_EQ(cdb.list_runs().size(), 1u);
  EXPECT_EQ(cdb.sql().execAndGet("SELECT count(*) FROM dispatches").getInt(), 16 * 4000);
}

// What a database holds, pass by pass, with ids replaced by what they stand for (ordinals,
// strings), so two databases loaded in different orders compare equal when they hold the same data.
std::string canonical_dump(const fs::path& db_path) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  std::string out;
  const char* queries[] = {
      "SELECT r.name, p.ordinal, p.kind, p.counters FROM passes p JOIN runs r ON r.id = p.run_id "
      "ORDER BY 1, 2",
      "SELECT p.ordinal, a.node_id, a.name, a.product_name FROM agents a JOIN passes p ON p.id = "
      "a.pass_id ORDER BY 1, 2",
      "SELECT p.ordinal, d.pid, d.dispatch_id, s.value, d.start_ns, d.end_ns, d.grid_x, d.wg_x "
      "FROM dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings s ON s.id = "
      "d.kernel_name_id ORDER BY 1, 2, 3",
      "SELECT p.ordinal, c.pid, c.dispatch_id, s.value, c.value FROM counter_values c JOIN passes "
      "p ON p.id = c.pass_id JOIN strings s ON s.id = c.counter_id ORDER BY 1, 2, 3, 4",
      "SELECT p.ordinal, f.value, a.pid, a.correlation_id, a.start_ns FROM api_calls a JOIN "
      "passes p ON p.id = a.pass_id JOIN strings f ON f.id = a.function_id ORDER BY 1, 3, 4, 5",
      "SELECT p.ordinal, m.correlation_id, m.start_ns, m.end_ns FROM memory_copies m JOIN passes "
      "p ON p.id = m.pass_id ORDER BY 1, 2, 3",
      "SELECT p.ordinal, s.value, k.calls, k.total_ns FROM kernel_stats k JOIN passes p ON p.id = "
      "k.pass_id JOIN strings s ON s.id = k.name_id ORDER BY 1, 2, 3",
      "SELECT p.ordinal, i.path, i.kind, i.rows_read, i.sha256 FROM ingest_stats i JOIN passes p "
      "ON p.id = i.pass_id ORDER BY 1, 2"};
  for (const char* q : queries) {
    SQLite::Statement st(db, q);
    while (st.executeStep()) {
      for (int i = 0; i < st.getColumnCount(); ++i) out += st.getColumn(i).getString() + "|";
      out += "\n";
    }
    out += "--\n";
  }
  return out;
}

int64_t count_of(const fs::path& db_path, const std::string& sql) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

// A hand-made capture: trace, counter, API and stats files ingested one by one into one
// run lose nothing (row counts equal an independent count of the files' rows) and give the same
// database as ingesting their folder.
TEST_F(CliIngest, FileByFileEqualsTheFolder) {
  const fs::path caps = fs::path(KPROF_TEST_DATA) / "captures/uLLM-project";
  const fs::path profiler = caps / "2026-07-10/sq8-optimized-component-v0.1/profiler";
  const fs::path moe = caps / "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate";
  const fs::path folder = m_dir / "by_hand";
  fs::create_directories(folder / "counters");
  std::vector<fs::path> files;
  for (const char* f : {"component-m8_agent_info.csv", "component-m8_kernel_trace.csv",
                        "component-m8_memory_copy_trace.csv", "component-m8_kernel_stats.csv",
                        "component-m8_domain_stats.csv", "component-m8_memory_copy_stats.csv"}) {
    fs::copy_file(profiler / f, folder / f);
    files.push_back(folder / f);
  }
  // Another capture's API trace, under this capture's prefix (under its own, `moe_`, it is a
  // separate capture and a run of its own).
  fs::copy_file(moe / "moe_hip_api_trace.csv", folder / "component-m8_hip_api_trace.csv");
  files.push_back(folder / "component-m8_hip_api_trace.csv");
  fs::copy_file(profiler / "counters/component-m8_counter_collection.csv",
                folder / "counters/component-m8_counter_collection.csv");
  files.push_back(folder / "counters/component-m8_counter_collection.csv");

  const fs::path whole = m_dir / "whole.db", one_by_one = m_dir / "one_by_one.db";
  Ran r = run("ingest " + whole.string() + " " + folder.string() + " --run hand");
  ASSERT_EQ(r.code, 0) << r.out;
  // Counter file first, the trace in the middle: the order does not matter.
  std::rotate(files.begin(), files.end() - 1, files.end());
  for (const auto& f : files) {
    r = run("ingest " + one_by_one.string() + " " + f.string() + " --run hand");
    ASSERT_EQ(r.code, 0) << f << "\n" << r.out;
  }
  EXPECT_EQ(canonical_dump(one_by_one), canonical_dump(whole));

  // Independent counts (a plain CSV split, not kprof's readers).
  auto rows = [&](const fs::path& f) {
    return static_cast<int64_t>(test::simple_read(f.string()).rows.size());
  };
  const auto counters =
      test::simple_read((folder / "counters/component-m8_counter_collection.csv").string());
  std::set<std::string> counter_dispatches;
  for (const auto& row : counters.rows) counter_dispatches.insert(row[counters.col("Dispatch_Id")]);
  for (const auto& db : {whole, one_by_one}) {
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM passes"), 2);
    EXPECT_EQ(count_of(db,
                       "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id "
                       "WHERE p.ordinal = 0"),
              rows(folder / "component-m8_kernel_trace.csv"));
    EXPECT_EQ(count_of(db,
                       "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id "
                       "WHERE p.ordinal = 1"),
              static_cast<int64_t>(counter_dispatches.size()));
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM counter_values"),
              static_cast<int64_t>(counters.rows.size()));
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM api_calls"),
              rows(folder / "component-m8_hip_api_trace.csv"));
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM memory_copies"),
              rows(folder / "component-m8_memory_copy_trace.csv"));
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM kernel_stats"),
              rows(folder / "component-m8_kernel_stats.csv") +
                  rows(folder / "component-m8_domain_stats.csv") +
                  rows(folder / "component-m8_memory_copy_stats.csv"));
    EXPECT_EQ(count_of(db, "SELECT count(*) FROM agents"),
              rows(folder / "component-m8_agent_info.csv"));
  }

  // The same file again changes nothing; another kernel trace is refused unless --replace.
  const std::string before = canonical_dump(one_by_one);
  r = run("ingest " + one_by_one.string() + " " +
          (folder / "component-m8_kernel_trace.csv").string() + " --run hand");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(canonical_dump(one_by_one), before);
  fs::copy_file(moe / "moe_kernel_trace.csv", m_dir / "moe_kernel_trace.csv");
  r = run("ingest " + one_by_one.string() + " " + (m_dir / "moe_kernel_trace.csv").string() +
          " --run hand");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("would replace those rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--replace"), std::string::npos) << r.out;
  EXPECT_EQ(canonical_dump(one_by_one), before);  // refused: the database is as it was
  r = run("ingest " + one_by_one.string() + " " + (m_dir / "moe_kernel_trace.csv").string() +
          " --run hand --replace");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("replaced: pass 0"), std::string::npos) << r.out;
  EXPECT_EQ(count_of(one_by_one,
                     "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = "
                     "d.pass_id WHERE p.ordinal = 0"),
            rows(moe / "moe_kernel_trace.csv"));
}

}  // namespace
}  // namespace kprof::ingest
