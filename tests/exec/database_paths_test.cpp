// What kprof does with the database a user names: a symbolic link to a file not yet made and a
// FIFO are refused before anything is created or opened, and a failed command never removes a link
// or a file the user had; a database the user may not write is read by every reading command; a
// damaged one is named with the recovery hint by every command; what a capture holds is printed
// so that it cannot drive the terminal. Real kprof runs on real files.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

using Out = testing::KprofOut;

Out kprof(const fs::path& dir, const std::vector<std::string>& args) {
  return testing::run_kprof(dir, args);
}

class DatabasePaths : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    write_script(*s_dir / "work.sh", "exit 0\n");
    write_file(*s_dir / "rb.yaml",
               "schema_version: 1\nname: small\nworkload:\n  command: [\"" +
                   (*s_dir / "work.sh").string() +
                   "\"]\ntarget:\n  arch: gfx942\npasses:\n  trace:\n    enabled: true\n"
                   "  counters:\n    counters: [GRBM_COUNT, SQ_WAVES]\n"
                   "database: q.db\nsim:\n  model: doc-vector-ops\n  seed: 7\n");
    const auto r = kprof(
        s_dir->path(), {"run", rb().string(), "--simulate", "--quiet", "--db", master().string()});
    ASSERT_EQ(r.code, 0) << r.text;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path rb() { return *s_dir / "rb.yaml"; }
  static fs::path master() { return *s_dir / "master.db"; }

  TempDir m_dir;
  static TempDir* s_dir;
};
TempDir* DatabasePaths::s_dir = nullptr;

// A dangling link as the database: kprof would have to create the file it names (one the user
// never typed), and a failed ingest or merge cleaned up by removing the link itself.
TEST_F(DatabasePaths, ALinkToAFileNotYetMadeIsRefusedAndKept) {
  fs::create_directories(m_dir / "dbs");
  const fs::path link = m_dir / "dbs" / "link.db";
  fs::create_symlink(m_dir / "dbs" / "later.db", link);
  const std::vector<std::vector<std::string>> commands = {
      {"ingest", link.string(), s_dir->path().string()},
      {"merge", link.string(), master().string()},
      {"run", rb().string(), "--simulate", "--quiet", "--db", link.string()},
  };
  for (const auto& c : commands) {
    const Out r = kprof(m_dir.path(), c);
    EXPECT_EQ(r.code, 2) << c[0] << ": " << r.text;
    EXPECT_NE(r.text.find("is a symbolic link to"), std::string::npos) << c[0] << ": " << r.text;
    EXPECT_TRUE(fs::is_symlink(link)) << c[0] << " removed the link";
    EXPECT_FALSE(fs::exists(m_dir / "dbs" / "later.db")) << c[0];
  }
}

// A link to an existing database is that database: merge and query work through it.
TEST_F(DatabasePaths, ALinkToAnExistingDatabaseWorks) {
  fs::copy_file(master(), m_dir / "copy.db");
  const fs::path link = m_dir / "link.db";
  fs::create_symlink(m_dir / "copy.db", link);
  Out r = kprof(m_dir.path(), {"merge", link.string(), master().string()});
  EXPECT_EQ(r.code, 0) << r.text;
  r = kprof(m_dir.path(), {"query", link.string(), "passes"});
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(fs::is_symlink(link));
}

// open(2) of a FIFO blocks until a writer opens it: every command would hang.
TEST_F(DatabasePaths, AFifoIsRefusedByEveryCommand) {
  const fs::path fifo = m_dir / "pipe.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::vector<std::vector<std::string>> commands = {
      {"ingest", fifo.string(), s_dir->path().string()},
      {"run", rb().string(), "--simulate", "--quiet", "--db", fifo.string()},
      {"resume", fifo.string()},
      {"merge", fifo.string(), master().string()},
      {"status", fifo.string()},
      {"query", fifo.string(), "passes"},
  };
  for (const auto& c : commands) {
    const Out r = kprof(m_dir.path(), c);
    EXPECT_EQ(r.code, 2) << c[0] << ": " << r.describe << ": " << r.text;
    EXPECT_NE(r.text.find("is a FIFO (named pipe), not a database file"), std::string::npos)
        << c[0] << ": " << r.text;
    struct stat st {};
    EXPECT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << c[0];
  }
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs kprof as a user who may read the database but write neither it nor its folder. Root writes
// whatever the mode bits say (CI runs the tests as root), so as root kprof runs as nobody
// (setpriv(1), util-linux) on root's 0755 folder and 0644 file; any other user gets the folder and
// the file made read-only.
// As nobody, kprof and its configs run from copies in `dir`: the checkout they were built in may
// lie in a folder only root may enter (a clone under mktemp -d, or /root).
Out kprof_reader(const fs::path& dir, const std::vector<std::string>& args) {
  LaunchSpec s;
  fs::path exe = fs::path(KPROF_BIN_DIR) / "kprof";
  if (::geteuid() == 0) {
    const fs::path copy = dir / "reader";
    if (!fs::exists(copy / "kprof")) {
      fs::create_directories(copy);
      fs::copy_file(exe, copy / "kprof");
      fs::copy(fs::path(KPROF_SOURCE_DIR) / "configs", copy / "configs",
               fs::copy_options::recursive);
    }
    exe = copy / "kprof";
    s.env = {{"KPROF_CONFIG_DIR", (copy / "configs").string()}};
    s.argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
  }
  s.argv.push_back(exe.string());
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.log_path = dir / "kprof.out";
  s.log_tail_bytes = 1 << 20;
  s.timeout = std::chrono::minutes(2);
  fs::remove(s.log_path);
  const auto r = run_process(s);
  return {r.exit_code, r.signal, read_text(s.log_path), r.describe()};
}

// Every reading command on a database in a folder this user may not write: SQLite would create
// the WAL's -shm file to read it ("attempt to write a readonly database"); kprof opens it
// immutable instead, computes the counter join and the outline without storing them, and leaves
// the folder as it was.
TEST_F(DatabasePaths, EveryReadingCommandWorksOnADatabaseItMayNotWrite) {
  const fs::path ro = m_dir / "ro";
  fs::create_directories(ro);
  fs::copy_file(master(), ro / "q.db");
  const fs::path out = m_dir / "out";
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);
  fs::permissions(m_dir.path(), fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
  if (::geteuid() != 0) {
    fs::permissions(ro / "q.db", fs::perms::owner_read | fs::perms::group_read);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const std::string before = read_text(ro / "q.db");
  const std::string db = (ro / "q.db").string();
  const std::vector<std::vector<std::string>> commands = {
      {"status", db},
      {"query", db, "passes"},
      {"query", db, "top"},
      {"query", db, "counters"},
      {"query", db, "--sql", "SELECT count(*) AS n FROM dispatches"},
      {"report", db, "-o", (out / "r.html").string()},
      {"export", db, "--perfetto", (out / "t.json").string()},
      {"compare", db, db},
  };
  for (const auto& c : commands) {
    const Out r = kprof_reader(out, c);
    EXPECT_EQ(r.code, 0) << c[0] << " " << c.back() << ": " << r.text;
    EXPECT_EQ(r.text.find("readonly database"), std::string::npos) << r.text;
  }
  fs::permissions(ro, fs::perms::owner_all);
  EXPECT_EQ(read_text(ro / "q.db"), before);
  EXPECT_EQ(names_in(ro), std::vector<std::string>{"q.db"});
}

// A damaged file gives the same recovery hint from the analysis commands as from the writers.
TEST_F(DatabasePaths, ADamagedDatabaseIsNamedWithTheRecoveryHintByEveryCommand) {
  const fs::path db = m_dir / "d.db";
  fs::copy_file(master(), db);
  int64_t root = 0, page_size = 0;
  {
    SQLite::Database raw(db.string());
    root = raw.execAndGet("SELECT rootpage FROM sqlite_schema WHERE name = 'dispatch_rows'")
               .getInt64();
    page_size = raw.execAndGet("PRAGMA page_size").getInt64();
  }
  {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((root - 1) * page_size + 8);  // past the page header: the cell pointers
    const std::string junk(64, '\xEE');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::vector<std::vector<std::string>> commands = {
      {"query", db.string(), "top"},
      {"report", db.string(), "-o", (m_dir / "r.html").string()},
      {"export", db.string(), "--perfetto", (m_dir / "t.json").string()},
      {"compare", master().string(), db.string()},
  };
  for (const auto& c : commands) {
    const Out r = kprof(m_dir.path(), c);
    EXPECT_EQ(r.code, 2) << c[0] << ": " << r.text;
    EXPECT_NE(r.text.find("capture database '" + db.string() + "' is damaged"), std::string::npos)
        << c[0] << ": " << r.text;
    EXPECT_NE(r.text.find(".recover | sqlite3 "), std::string::npos) << c[0] << ": " << r.text;
    EXPECT_EQ(r.text.find("internal error"), std::string::npos) << c[0] << ": " << r.text;
  }
}

TEST_F(DatabasePaths, ARunNumberTooLargeIsNamed) {
  const Out r = kprof(m_dir.path(),
                      {"compare", master().string() + ":99999999999999999999", master().string()});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("the run id '99999999999999999999' is out of range"), std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("internal error"), std::string::npos) << r.text;
}

// A kernel name holding an escape sequence (ESC [ 2 J clears the screen) or a C1 control is shown
// escaped in the terminal table of the views and of --sql.
TEST_F(DatabasePaths, ControlCharactersInKernelNamesNeverReachTheTerminal) {
  const fs::path db = m_dir / "e.db";
  fs::copy_file(master(), db);
  {
    SQLite::Database raw(db.string(), SQLite::OPEN_READWRITE);
    raw.exec(
        "UPDATE strings SET value = 'evil' || char(27) || '[2J' || char(155) || 'x' || "
        "char(7) WHERE value LIKE 'multiply_kernel%'");
  }
  const std::vector<std::vector<std::string>> commands = {
      {"query", db.string(), "top", "--wide"},
      {"query", db.string(), "variants", "--wide"},
      {"query", db.string(), "--sql", "SELECT value AS name FROM strings"},
  };
  for (const auto& c : commands) {
    const Out r = kprof(m_dir.path(), c);
    EXPECT_EQ(r.code, 0) << c[2] << ": " << r.text;
    EXPECT_NE(r.text.find("evil\\x1b[2J\\u009bx\\x07"), std::string::npos)
        << c[2] << ": " << r.text;
    EXPECT_EQ(r.text.find('\x1b'), std::string::npos) << c[2];
    EXPECT_EQ(r.text.find("\xC2\x9B"), std::string::npos) << c[2];
  }
}

// `nan` and `inf` in a counter value are one kind of bad row: named, skipped, the rest loaded.
TEST_F(DatabasePaths, NanAndInfinityInACounterValueAreBadRowsAlike) {
  const fs::path cap = m_dir / "cap" / "host";
  fs::create_directories(cap);
  const std::string header =
      "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
      "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";
  std::string rows;
  const char* values[] = {"16384.000000", "nan", "inf", "-inf", "8.0"};
  for (int i = 0; i < 5; ++i) {
    rows += std::to_string(i + 1) + "," + std::to_string(i + 1) +
            ",\"Agent 2\",1,4242,4242,1048576,7,\"k(float*)\",256,0,0,8,0,16,\"SQ_WAVES\"," +
            values[i] + "," + std::to_string(1000 + i * 100) + "," +
            std::to_string(1050 + i * 100) + "\n";
  }
  write_file(cap / "4242_counter_collection.csv", header + rows);
  const fs::path db = m_dir / "n.db";
  const Out strict =
      kprof(m_dir.path(), {"ingest", db.string(), (m_dir / "cap").string(), "--strict"});
  EXPECT_EQ(strict.code, 2) << strict.text;
  EXPECT_NE(strict.text.find(":3:"), std::string::npos) << strict.text;
  EXPECT_NE(strict.text.find("column 'Counter_Value': expected a finite number, got 'nan'"),
            std::string::npos)
      << strict.text;
  const Out r = kprof(m_dir.path(), {"ingest", db.string(), (m_dir / "cap").string()});
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(r.text.find("kprof bug"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("3 bad rows were skipped"), std::string::npos) << r.text;
  SQLite::Database check(db.string());
  EXPECT_EQ(check.execAndGet("SELECT count(*) FROM counter_values").getInt64(), 2);
  EXPECT_EQ(
      check.execAndGet("SELECT count(*) FROM counter_values WHERE abs(value) > 1e300").getInt64(),
      0);
}

}  // namespace
}  // namespace kprof::exec
