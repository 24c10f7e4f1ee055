// exec::RunLock: one writer per database file, whatever path reaches it.
#include "core/exec/node/run_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/error.hpp"
#include "core/store/capture_db.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

std::string refusal(const fs::path& p) {
  try {
    RunLock again(p);
  } catch (const Error& e) {
    return e.diagnostics().at(0).line();
  }
  return "(not refused)";
}

std::string in_use_by_me(const fs::path& p) {
  return "database '" + p.string() + "' is in use by kprof pid " + std::to_string(::getpid()) +
         " on host " + host_name() + " (wait for that run to finish, or stop it (Ctrl-C or kill " +
         std::to_string(::getpid()) + ") and then 'kprof resume')";
}

// The reported defect: the lock was named after the path as typed, so `kprof resume t.db` and
// `kprof resume link.db` both ran and the trace pass held every dispatch twice.
TEST(RunLock, EveryPathToTheFileMeetsTheSameLock) {
  TempDir dir;
  const auto db = dir / "t.db";
  RunLock held(db);
  fs::create_symlink(db, dir / "link.db");
  fs::create_hard_link(db, dir / "hard.db");
  fs::create_directories(dir / "sub");
  for (const fs::path& p : {db, dir / "link.db", dir / "hard.db", dir / "sub" / ".." / "t.db"})
    EXPECT_EQ(refusal(p), in_use_by_me(p));
}

TEST(RunLock, CreatesAMissingDatabaseWholeAndLeavesNoLockFile) {
  TempDir dir;
  const auto db = dir / "new" / "c.db";
  {
    RunLock lock(db);
    store::CaptureDb open(db);
    EXPECT_EQ(open.schema_version(), store::CaptureDb::latest_schema_version());
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "new"))
    names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"c.db"});
}

TEST(RunLock, EmptyFileIsLockedButNotWritten) {
  TempDir dir;
  const auto db = dir / "empty.db";
  testing::write_file(db, "");
  {
    RunLock lock(db);
    EXPECT_THROW(store::CaptureDb open(db), Error);
  }
  EXPECT_EQ(fs::file_size(db), 0u);
}

TEST(RunLock, FolderIsRefused) {
  TempDir dir;
  fs::create_directories(dir / "d.db");
  EXPECT_EQ(refusal(dir / "d.db"), "capture database '" + (dir / "d.db").string() +
                                       "' is not a regular file (name a database file)");
}

// kill -9 of the holder frees the lock (the kernel drops a dead process's flocks), and the
// refusal named the holder's pid while it lived.
TEST(RunLock, DeadHolderNeverBlocks) {
  TempDir dir;
  const auto db = dir / "t.db";
  store::create_capture_db(db);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunLock lock(db);
    if (::write(ready[1], "x", 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_NE(refusal(db).find("is in use by kprof pid " + std::to_string(child) + " on host "),
            std::string::npos)
      << refusal(db);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(refusal(db), "(not refused)");
  ::close(ready[0]);
  ::close(ready[1]);
}

// The lock's descriptor is closed after the connection (declaration order); SQLite keeps working
// through the lock's whole life, including writes that take fcntl locks.
TEST(RunLock, SqliteWritesThroughTheLockedFile) {
  TempDir dir;
  const auto db = dir / "t.db";
  RunLock lock(db);
  store::CaptureDb open(db);
  store::NewRun r;
  r.name = "x";
  r.host = "h";
  r.kprof_version = "v";
  EXPECT_GT(open.create_run(r), 0);
  store::CaptureDb reader(db, store::OpenMode::read_only);
  EXPECT_EQ(reader.list_runs().size(), 1u);
}

}  // namespace
}  // namespace kprof::exec
