// `kprof ingest` and `kprof query --sql` as a user runs them on the real rocprofv3 JSON capture
// (tests/data/captures/aorta-fsdp-rank-908; its PROVENANCE.md lists the truths, counted by
// `cut.py --truths` from the raw records), and on a copy of it cut off mid-record.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/store/capture_db.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_capture = fs::path(KPROF_TEST_DATA) / "captures" / "aorta-fsdp-rank-908";
const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

struct Ran {
  int code = -1;
  std::string out;
};

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class JsonCli : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("kprof_json_cli_" + std::to_string(getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "cap" / "host");
    fs::copy_file(k_capture / "908_results.json", m_dir / "cap/host/908_results.json");
    m_db = m_dir / "k.db";
  }
  void TearDown() override { fs::remove_all(m_dir); }
  Ran run(const std::string& args) const {
    const fs::path out = m_dir / "out.txt";
    const int rc = std::system((k_kprof + " " + args + " > " + out.string() + " 2>&1").c_str());
    Ran r;
    r.out = bytes_of(out);
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return r;
  }
  fs::path m_dir, m_db;
};

TEST_F(JsonCli, IngestsTheCaptureAndQueriesGiveItsTruths) {
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --run aorta");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("908_results.json  json       2053         0"), std::string::npos) << r.out;

  // Collectives are the ncclDevKernel_* dispatches ('_' escaped: LIKE's one-character wildcard).
  r = run("query " + m_db.string() +
          " --format csv --sql \"SELECT count(*), count(DISTINCT kernel_name), "
          "count(DISTINCT pid), min(agent), max(agent), "
          "sum(kernel_name LIKE 'ncclDevKernel!_%' ESCAPE '!'), "
          "sum(CASE WHEN kernel_name LIKE 'ncclDevKernel!_%' ESCAPE '!' THEN duration_ns END), "
          "min(start_ns), max(end_ns) FROM v_dispatches\"");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\n2053,23,1,2,2,13,884427021,63860075331517,63866402119689\n"),
            std::string::npos)
      << r.out;

  store::CaptureDb db(m_db, store::OpenMode::read_only);
  const auto run_info = db.find_run_by_name("aorta");
  ASSERT_TRUE(run_info);
  const auto passes = db.list_passes(run_info->id);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(store::pass_ranks(db, passes[0].id), (std::vector<store::PassRank>{{0, 908, 2, 2053}}));
}

TEST_F(JsonCli, ACutOffFileIsRefusedAndTheDatabaseIsAsItWas) {
  ASSERT_EQ(run("ingest " + m_db.string() + " " + (m_dir / "cap").string()).code, 0);
  const std::string before = bytes_of(m_db);
  fs::create_directories(m_dir / "cut");
  const std::string text = bytes_of(k_capture / "908_results.json");
  std::ofstream(m_dir / "cut/908_results.json", std::ios::binary) << text.substr(0, 900000);
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "cut").string() + " --run cut");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("908_results.json:1: not valid JSON (byte 900000): "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("did rocprofv3 finish writing it?"), std::string::npos) << r.out;
  EXPECT_EQ(bytes_of(m_db), before);
  store::CaptureDb db(m_db, store::OpenMode::read_only);
  EXPECT_FALSE(db.find_run_by_name("cut"));
}

// A JSON file is a trace: loading another one into a run whose trace pass came from JSON would
// replace its rows, so it is refused (the database unchanged) unless --replace says so.
TEST_F(JsonCli, AnotherTraceIntoTheSameRunIsRefusedUnlessReplaced) {
  ASSERT_EQ(run("ingest " + m_db.string() + " " + (m_dir / "cap").string() + " --run aorta").code,
            0);
  const std::string before = bytes_of(m_db);
  fs::create_directories(m_dir / "again" / "host");
  fs::copy_file(k_capture / "908_results.json", m_dir / "again/host/909_results.json");
  Ran r = run("ingest " + m_db.string() + " " + (m_dir / "again/host/909_results.json").string() +
              " --run aorta");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("would replace those rows"), std::string::npos) << r.out;
  EXPECT_EQ(bytes_of(m_db), before);
}

}  // namespace
}  // namespace kprof::ingest
