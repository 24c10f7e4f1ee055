// PassLoader and WriteTransaction, all or nothing: replacement on re-ingest, rollback without
// commit, a process killed mid-load, readers during a load, several passes in one transaction.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/error.hpp"
#include "loader_test_util.hpp"

namespace kprof::store {
namespace {

using namespace testing;  // the loader tests' rows (loader_test_util.hpp) and TempDir

TEST(PassLoader, RepeatedIngestReplacesAndLeavesOtherPassesAlone) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t p0 = testing::make_pass(db, run, 0);
  int64_t p1 = testing::make_pass(db, run, 1);
  load_trace(db, p0, 500, {"a", "b"});
  load_trace(db, p1, 300, {"a", "c"});
  load_trace(db, p0, 200, {"b", "d"});
  load_trace(db, p0, 200, {"b", "d"});

  EXPECT_EQ(db.row_counts(p0).dispatches, 200);
  EXPECT_EQ(db.row_counts(p0).ingest_files, 1);
  EXPECT_EQ(db.row_counts(p1).dispatches, 300);
  auto ds = read_dispatches(db, p0);
  ASSERT_EQ(ds.size(), 200u);
  EXPECT_EQ(ds[0].kernel_name, "b");
  EXPECT_EQ(ds[1].kernel_name, "d");
  EXPECT_EQ(read_dispatches(db, p1)[1].kernel_name, "c");
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM strings").getInt(), 4);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM dispatches").getInt(), 500);
}

TEST(PassLoader, DestroyedWithoutCommitLeavesDatabaseExactlyAsBefore) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 0);
  load_trace(db, pass, 100, {"k1", "k2"});
  const std::string before = testing::dump_all_tables(db.sql());
  ASSERT_NE(before.find("k2"), std::string::npos);
  {
    PassLoader loader(db, pass);
    loader.begin_file("other.csv", "kernel_trace");
    for (int i = 0; i < 5000; ++i)
      loader.dispatch(dispatch(i + 1, "new_kernel_" + std::to_string(i % 7)));
    loader.counter({1, 77, "NEW_COUNTER", 1});
    loader.bad_row({"other.csv", 3, "bad"});
    // No commit: e.g. the reader threw on a truncated file.
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  // The connection is usable again, and a new load works.
  load_trace(db, pass, 10, {"k3"});
  EXPECT_EQ(db.row_counts(pass).dispatches, 10);
}

TEST(PassLoader, ProcessKilledMidLoadLeavesNoPartialPass) {
  TempDir dir;
  const auto path = dir / "c.db";
  int64_t pass;
  std::string before;
  {
    CaptureDb db(path);
    int64_t run = testing::make_run(db);
    pass = testing::make_pass(db, run, 0);
    load_trace(db, pass, 1000, {"committed"});
    before = testing::dump_all_tables(db.sql());
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child never returns to GoogleTest: it dies by SIGKILL mid-transaction.
    CaptureDb db(path);
    PassLoader loader(db, pass);
    // A small page cache makes SQLite spill the uncommitted pages into the WAL file, so the
    // kill leaves real uncommitted frames behind (not only memory).
    db.sql().exec("PRAGMA cache_size=-500");
    loader.begin_file("big.csv", "kernel_trace");
    for (int i = 0; i < 100000; ++i)
      loader.dispatch(dispatch(i + 1, "partial_" + std::to_string(i % 50)));
    ::kill(::getpid(), SIGKILL);
    ::_exit(3);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(path.string() + "-wal", ec);
  EXPECT_GT(wal_bytes, 1u << 20) << "the child should have spilled uncommitted pages";

  CaptureDb db(path);
  EXPECT_EQ(db.sql().execAndGet("PRAGMA integrity_check").getString(), "ok");
  EXPECT_EQ(db.row_counts(pass).dispatches, 1000);
  EXPECT_FALSE(db.find_string("partial_0"));
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
}

TEST(PassLoader, ReadersSeeTheOldPassUntilCommit) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 0);
  load_trace(db, pass, 50, {"old"});
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  {
    PassLoader loader(db, pass);
    loader.begin_file("t.csv", "kernel_trace");
    for (int i = 0; i < 80; ++i) loader.dispatch(dispatch(i + 1, "new"));
    EXPECT_EQ(reader.row_counts(pass).dispatches, 50);
    loader.end_file(80);
    loader.commit();
  }
  EXPECT_EQ(reader.row_counts(pass).dispatches, 80);
  EXPECT_EQ(read_dispatches(reader, pass)[0].kernel_name, "new");
}

using testing::TempDir;

// `kprof ingest` writes the run, its passes and all their rows in one WriteTransaction.
TEST(WriteTransaction, SeveralPassesAreAllOrNothing) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t kept_run = testing::make_run(db, "kept");
  int64_t kept = testing::make_pass(db, kept_run, 0);
  load_trace(db, kept, 50, {"k1"});
  const std::string before = testing::dump_all_tables(db.sql());
  {
    WriteTransaction tx(db);
    int64_t run = testing::make_run(db, "new");
    int64_t p0 = testing::make_pass(db, run, 0);
    int64_t p1 = testing::make_pass(db, run, 1, PassKind::counters);
    load_trace(db, p0, 100, {"a", "b"});  // a PassLoader inside: a savepoint
    {
      PassLoader loader(db, p1);
      loader.begin_file("c.csv", "counter_collection");
      loader.dispatch(dispatch(1, "a"));
      loader.counter({1, 77, "SQ_WAVES", 1});
      // No commit: this pass's savepoint rolls back, the transaction goes on.
    }
    EXPECT_EQ(db.row_counts(p0).dispatches, 100);
    EXPECT_EQ(db.row_counts(p1).dispatches, 0);
    EXPECT_THROW(WriteTransaction again(db), Error);
    // Destroyed without commit: a broken file later in the command.
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  {
    WriteTransaction tx(db);
    int64_t run = testing::make_run(db, "new");
    load_trace(db, testing::make_pass(db, run, 0), 100, {"a"});
    tx.commit();
  }
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  auto run = reader.find_run_by_name("new");
  ASSERT_TRUE(run);
  EXPECT_EQ(reader.row_counts(reader.list_passes(run->id).at(0).id).dispatches, 100);
}

// Foreign keys are not enforced row by row inside a bulk write (core/store/write_transaction.cpp
// says why); the tables other writers add to are checked before COMMIT, and a dangling reference
// rolls back all.
TEST(WriteTransaction, DanglingReferenceIsRefusedAtCommitAndRollsBack) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  testing::make_run(db, "kept");
  const std::string before = testing::dump_all_tables(db.sql());
  {
    WriteTransaction tx(db, WriteKind::bulk_load);
    int64_t run = testing::make_run(db, "new");
    load_trace(db, testing::make_pass(db, run, 0), 20, {"a"});
    testing::make_pass(db, run + 1000, 0);  // a pass of a run that does not exist
    try {
      tx.commit();
      ADD_FAILURE() << "commit accepted a pass of a missing run";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("passes"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  // Enforcement is back on outside the bulk write, and row by row in a `records` transaction.
  EXPECT_THROW(testing::make_pass(db, 999, 0), Error);
  {
    WriteTransaction tx(db);
    EXPECT_THROW(testing::make_pass(db, 999, 0), Error);
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
}

// Every writer's transaction is a WriteTransaction: one per connection, none on a read-only one.
TEST(WriteTransaction, IsTheOneWritePath) {
  TempDir dir;
  {
    CaptureDb db(dir / "c.db");
    int64_t run = testing::make_run(db, "r");
    WriteTransaction tx(db);
    // A multi-row writer of CaptureDb, or a PassLoader's own transaction, cannot open a second.
    EXPECT_THROW(WriteTransaction(db, WriteKind::bulk_load), Error);
    EXPECT_THROW(db.set_selected_kernels(run, {{"k", 1, "top"}}), Error);
  }
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  EXPECT_THROW(WriteTransaction{reader}, Error);
  EXPECT_THROW(PassLoader(reader, 1), Error);
}

}  // namespace
}  // namespace kprof::store
