// `kprof ingest` as a user runs it: a real process on real capture files, a real database file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <SQLiteCpp/Database.h>

#include "core/store/capture_db.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_probe = fs::path(KPROF_SHARED_DIR) / "captures" /
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

}  // namespace
}  // namespace kprof::ingest
