// A command that fails leaves the file as it was: foreign, empty and damaged files are refused
// before anything writes, a new file appears whole, and the WAL switch survives lock contention.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/base/error.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string error_line(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.diagnostics().at(0).line();
  }
  return "(no error)";
}

// Every file in `dir`, sorted: what a command left behind.
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OpenCheck, EmptyFileIsRefusedAndLeftEmpty) {
  TempDir dir;
  const auto path = dir / "empty.db";
  std::ofstream(path).close();
  EXPECT_EQ(error_line([&] { CaptureDb db(path); }),
            "capture database '" + path.string() +
                "' is an empty file, not a kprof database (kprof leaves it as it is; remove it or "
                "give kprof another file name)");
  EXPECT_EQ(fs::file_size(path), 0u);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"empty.db"});
}

TEST(OpenCheck, ForeignFileIsNotSwitchedToWal) {
  TempDir dir;
  const auto path = dir / "other.db";
  {
    SQLite::Database other(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
  }
  const std::string before = bytes_of(path);
  ASSERT_EQ(
      before[18],
      1);  // rollback journal (https://sqlite.org/fileformat2.html#file_format_version_numbers)
  EXPECT_NE(error_line([&] { CaptureDb db(path); }).find("not one of kprof's"), std::string::npos);
  EXPECT_EQ(bytes_of(path), before);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"other.db"});
}

TEST(OpenCheck, SqliteFileWithNoTablesIsNotAdopted) {
  TempDir dir;
  const auto path = dir / "blank.db";
  {
    SQLite::Database other(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("PRAGMA user_version=7");  // writes the header, no table
  }
  const std::string before = bytes_of(path);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(error_line([&] { CaptureDb db(path); }),
            "capture database '" + path.string() +
                "' is an SQLite database with no tables, not one of kprof's (kprof leaves it as it "
                "is; give kprof a new file name for its database)");
  EXPECT_EQ(bytes_of(path), before);
}

TEST(OpenCheck, FolderIsRefused) {
  TempDir dir;
  fs::create_directories(dir / "d.db");
  EXPECT_NE(error_line([&] { CaptureDb db(dir / "d.db"); }).find("is a folder"), std::string::npos);
}

TEST(OpenCheck, NewFileAppearsWholeInWalModeWithNothingElseLeft) {
  TempDir dir;
  const auto path = dir / "new.db";
  { CaptureDb db(path); }
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"new.db"});
  const std::string bytes = bytes_of(path);
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_EQ(bytes[18], 2);  // WAL (persistent in the header)
  EXPECT_EQ(bytes[19], 2);
  SQLite::Database raw(path.string());
  EXPECT_EQ(raw.execAndGet("SELECT max(version) FROM schema_version").getInt64(),
            CaptureDb::latest_schema_version());
}

// Page-level damage: the b-tree page holding the runs is overwritten with junk.
void damage_runs_table(const fs::path& path) {
  int64_t root = 0, page_size = 0;
  {
    SQLite::Database raw(path.string());
    root = raw.execAndGet("SELECT rootpage FROM sqlite_schema WHERE name = 'runs'").getInt64();
    page_size = raw.execAndGet("PRAGMA page_size").getInt64();
  }
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((root - 1) * page_size);
  const std::string junk(static_cast<size_t>(page_size), '\xA5');
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

TEST(OpenCheck, DamagedFileIsRefusedBeforeAnyWriteWithTheRecoverHint) {
  TempDir dir;
  const auto path = dir / "c.db";
  {
    CaptureDb db(path);
    for (int i = 0; i < 50; ++i) testing::make_run(db, "run" + std::to_string(i));
  }
  damage_runs_table(path);
  const std::string before = bytes_of(path);
  const std::string line = error_line([&] { CaptureDb db(path); });
  EXPECT_EQ(
      line.rfind("capture database '" + path.string() + "' is damaged: PRAGMA quick_check: ", 0),
      0u)
      << line;
  EXPECT_NE(line.find("(kprof writes nothing into it; recover what it holds with `sqlite3 " +
                      path.string() + " .recover | sqlite3 " + path.string() + ".recovered`"),
            std::string::npos)
      << line;
  EXPECT_EQ(bytes_of(path), before);
  try {
    CaptureDb db(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
  }
}

TEST(OpenCheck, ReadingADamagedPageNamesTheFileAndTheRecovery) {
  TempDir dir;
  const auto path = dir / "c.db";
  {
    CaptureDb db(path);
    for (int i = 0; i < 50; ++i) testing::make_run(db, "run" + std::to_string(i));
  }
  damage_runs_table(path);
  CaptureDb ro(path, OpenMode::read_only);  // readers do not scan the whole file
  const std::string line = error_line([&] { ro.list_runs(); });
  EXPECT_NE(line.find("capture database '" + path.string() + "': listing runs: "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(".recover"), std::string::npos) << line;
}

// Changing a rollback-journal file to WAL takes RESERVED then EXCLUSIVE while the statement
// already holds SHARED; when another connection holds RESERVED (it is writing, or switching too),
// SQLite returns SQLITE_BUSY at once instead of calling the busy handler, since waiting while
// holding SHARED could deadlock (https://sqlite.org/c3ref/busy_handler.html,
// https://sqlite.org/lockingv3.html). A writer holding its lock for a moment must make the opener
// wait, not fail. This was the cause of the flaky ProcessesCreatingOneFileTogetherMigrateOnce (one
// of four processes creating one file exited 1, about 1 round in 50 here).
TEST(OpenCheck, WalSwitchWaitsForAWriterInsteadOfFailing) {
  TempDir dir;
  const auto path = dir / "c.db";
  {
    CaptureDb db(path);
    testing::make_run(db, "before");
  }
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA journal_mode=DELETE");
  }
  SQLite::Database writer(path.string(), SQLite::OPEN_READWRITE);
  writer.exec("BEGIN IMMEDIATE");  // holds RESERVED
  writer.exec("UPDATE runs SET host = 'elsewhere'");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    writer.exec("COMMIT");
  });
  std::string line = "(no error)";
  try {
    CaptureDb db(path);
    EXPECT_EQ(db.sql().execAndGet("PRAGMA journal_mode").getString(), "wal");
    testing::make_run(db, "after");
  } catch (const Error& e) {
    line = e.diagnostics().at(0).line();
  }
  release.join();
  EXPECT_EQ(line, "(no error)");
  CaptureDb db(path, OpenMode::read_only);
  EXPECT_EQ(db.list_runs().size(), 2u);
}

// Many rounds of several processes creating one new file: each must succeed and the schema be
// applied once.
TEST(OpenCheck, ConcurrentCreatorsAllSucceed) {
  for (int round = 0; round < 10; ++round) {
    TempDir dir;
    const auto path = dir / "shared.db";
    std::vector<pid_t> children;
    for (int i = 0; i < 6; ++i) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        int rc = 0;
        try {
          CaptureDb db(path);
          testing::make_run(db, "child" + std::to_string(i));
        } catch (...) {
          rc = 1;
        }
        ::_exit(rc);
      }
      children.push_back(pid);
    }
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0) << "round " << round;
    }
    CaptureDb db(path);
    EXPECT_EQ(db.list_runs().size(), 6u);
    EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM schema_version").getInt(),
              CaptureDb::latest_schema_version());
    EXPECT_EQ(files_in(dir.path()).front(), "shared.db");
  }
}

}  // namespace
}  // namespace kprof::store
