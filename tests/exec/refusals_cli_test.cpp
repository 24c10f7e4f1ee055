// A command that refuses a database leaves it byte for byte as it was: `kprof ingest`, `run`,
// `resume` and `status` on a foreign SQLite file, a 0-byte file, a text file and a damaged kprof
// database, run as a user runs them (the real kprof binary on real files).
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;

const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";
const fs::path k_probe = fs::path(KPROF_TEST_DATA) / "captures" /
                         "uLLM-project/2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc/"
                         "probe-raw-sq/data/homelab1-WRX80-Creator";

struct Ran {
  int code = -1;
  std::string out;
};

Ran kprof(const TempDir& dir, std::vector<std::string> args) {
  LaunchSpec s;
  s.argv = {k_kprof};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.log_path = dir / "out" / "kprof.out";
  s.log_tail_bytes = 1 << 16;
  fs::create_directories(s.log_path.parent_path());
  Ran r;
  r.code = run_process(s).exit_code;
  r.out = read_text(s.log_path);
  return r;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A folder `dbs/` holding only the database under test, a runbook and a capture elsewhere.
class Refusals : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(m_dir / "dbs");
    fs::create_directories(m_dir / "cap" / "host");
    for (const char* f : {"1323859_kernel_trace.csv", "1323859_agent_info.csv"})
      fs::copy_file(k_probe / f, m_dir / "cap" / "host" / f);
    write_file(m_dir / "rb.yaml",
               "schema_version: 1\nname: small\nworkload:\n  command: [\"true\"]\n"
               "target:\n  arch: gfx942\npasses:\n  trace:\n    enabled: true\n"
               "database: dbs/x.db\nsim:\n  model: doc-vector-ops\n  seed: 7\n");
  }
  fs::path db() const { return m_dir / "dbs" / "x.db"; }

  // Every writing command and status: exit 2, the message, and the file untouched.
  void expect_all_refuse(const std::string& message) {
    const std::string before = read_text(db());
    const std::vector<std::vector<std::string>> commands = {
        {"ingest", db().string(), (m_dir / "cap").string()},
        {"run", (m_dir / "rb.yaml").string(), "--simulate", "--db", db().string()},
        {"resume", db().string()},
        {"status", db().string()},
    };
    for (const auto& c : commands) {
      const Ran r = kprof(m_dir, c);
      EXPECT_EQ(r.code, 2) << c[0] << ": " << r.out;
      EXPECT_NE(r.out.find(message), std::string::npos) << c[0] << ": " << r.out;
      EXPECT_EQ(read_text(db()), before) << c[0] << " changed the file";
      EXPECT_EQ(names_in(m_dir / "dbs"), std::vector<std::string>{"x.db"}) << c[0];
    }
  }

  TempDir m_dir;
};

TEST_F(Refusals, ForeignSqliteFile) {
  {
    SQLite::Database other(db().string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE notes(x); INSERT INTO notes VALUES ('mine')");
  }
  expect_all_refuse("is an SQLite database but not one of kprof's");
}

TEST_F(Refusals, EmptyFile) {
  write_file(db(), "");
  expect_all_refuse("is an empty file, not a kprof database");
}

TEST_F(Refusals, TextFile) {
  write_file(db(), "not a database\n" + std::string(600, 'x'));
  expect_all_refuse("not an SQLite database file");
}

TEST_F(Refusals, DamagedKprofDatabase) {
  const Ran made = kprof(m_dir, {"ingest", db().string(), (m_dir / "cap").string()});
  ASSERT_EQ(made.code, 0) << made.out;
  int64_t root = 0, page_size = 0;
  {
    SQLite::Database raw(db().string());
    // Enough rows that the damaged page is one of many: the runs are intact, a dispatch page is
    // not.
    root = raw.execAndGet("SELECT rootpage FROM sqlite_schema WHERE name = 'dispatch_rows'")
               .getInt64();
    page_size = raw.execAndGet("PRAGMA page_size").getInt64();
  }
  {
    std::fstream f(db(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((root - 1) * page_size + 8);  // past the page header: the cell pointers
    const std::string junk(64, '\xEE');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  expect_all_refuse(".recover | sqlite3 ");
}

// `kprof query --sql` was a write door: VACUUM INTO copied the database anywhere, a second
// statement ran unseen... now one statement that only reads, for at most --timeout.
TEST_F(Refusals, QuerySqlOnlyReads) {
  const Ran made = kprof(m_dir, {"ingest", db().string(), (m_dir / "cap").string()});
  ASSERT_EQ(made.code, 0) << made.out;
  const std::string before = read_text(db());
  const fs::path copy = m_dir / "copy.db";
  Ran r = kprof(m_dir, {"query", db().string(), "--sql", "VACUUM INTO '" + copy.string() + "'"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("would change the database or a file"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(copy));
  r = kprof(m_dir, {"query", db().string(), "--sql", "SELECT 1; DELETE FROM runs"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--sql takes one statement; a second one follows: 'DELETE FROM runs'"),
            std::string::npos)
      << r.out;
  r = kprof(m_dir, {"query", db().string(), "--timeout", "1s", "--sql",
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                    "SELECT count(*) FROM c"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the statement was stopped after 1.0s (--timeout)"), std::string::npos)
      << r.out;
  r = kprof(m_dir, {"query", db().string(), "--sql", "SELECT count(*) AS n FROM runs"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\n1\n"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(db()), before);
  EXPECT_EQ(names_in(m_dir / "dbs"), std::vector<std::string>{"x.db"});
}

}  // namespace
}  // namespace kprof::exec
