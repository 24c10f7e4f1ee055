// store::UserQuery: `kprof query --sql` runs one statement that only reads, for a limited time.
#include "core/store/user_query.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

struct Fixture {
  TempDir dir;
  std::filesystem::path path = dir / "c.db";
  Fixture() {
    CaptureDb db(path);
    testing::make_run(db, "a");
    testing::make_run(db, "b");
  }
};

std::string refusal(CaptureDb& db, const std::string& sql, std::chrono::milliseconds t = 60s) {
  try {
    UserQuery q(db, sql, t);
    while (q.step()) {
    }
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    return e.diagnostics().at(0).what;
  }
  return "(allowed)";
}

int64_t count_rows(CaptureDb& db, const std::string& sql) {
  UserQuery q(db, sql, 60s);
  int64_t n = 0;
  while (q.step()) ++n;
  return n;
}

TEST(UserQuery, ReadsTablesViewsPragmaFunctionsAndRecursiveCtes) {
  Fixture f;
  CaptureDb db(f.path, OpenMode::read_only);
  EXPECT_EQ(count_rows(db, "SELECT name FROM runs ORDER BY id"), 2);
  EXPECT_EQ(count_rows(db, "  SELECT 1 ;  -- trailing comment\n /* and another */ "), 1);
  EXPECT_EQ(count_rows(db,
                       "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                       "WHERE x < 5) SELECT x FROM c"),
            5);
  const int64_t run_columns =
      db.sql().execAndGet("SELECT count(*) FROM pragma_table_info('runs')").getInt64();
  ASSERT_GT(run_columns, 5);
  EXPECT_EQ(count_rows(db, "PRAGMA table_info(runs)"), run_columns);
  EXPECT_EQ(count_rows(db, "SELECT * FROM pragma_table_info('runs')"), run_columns);
  EXPECT_EQ(count_rows(db, "SELECT json_array(1, 2), upper(name), count(*) OVER () FROM runs"), 2);
}

TEST(UserQuery, ExactlyOneStatement) {
  Fixture f;
  CaptureDb db(f.path, OpenMode::read_only);
  EXPECT_EQ(refusal(db, "SELECT 1; DELETE FROM runs"),
            "--sql takes one statement; a second one follows: 'DELETE FROM runs'");
  EXPECT_EQ(refusal(db, "SELECT 1; SELECT 2"),
            "--sql takes one statement; a second one follows: 'SELECT 2'");
  EXPECT_EQ(refusal(db, "SELECT 1; garbage"),
            "--sql takes one statement; a second one follows: 'garbage'");
  EXPECT_EQ(refusal(db, " ; -- nothing"), "--sql: no SQL statement given");
  EXPECT_EQ(count_rows(db, "SELECT * FROM runs"), 2);
}

TEST(UserQuery, EveryKindOfChangeIsRefusedByName) {
  Fixture f;
  const auto dir = f.dir.path();
  CaptureDb db(f.path, OpenMode::read_only);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"VACUUM INTO 'kprof-user-query-copy.db'",
       "--sql: 'VACUUM INTO 'kprof-user-query-copy.db'' would change the database or a file"},
      {"VACUUM INTO '" + (dir / "copy.db").string() + "'",
       "--sql: '" + std::string("VACUUM INTO '" + (dir / "copy.db").string() + "'").substr(0, 60) +
           (("VACUUM INTO '" + (dir / "copy.db").string() + "'").size() > 60 ? "..." : "") +
           "' would change the database or a file"},
      {"VACUUM", "--sql: 'VACUUM' would change the database or a file"},
      {"ATTACH '" + (dir / "other.db").string() + "' AS o", "--sql: ATTACH is not allowed"},
      {"DETACH temp", "--sql: DETACH is not allowed"},
      {"DELETE FROM runs", "--sql: DELETE from runs is not allowed"},
      {"UPDATE runs SET name = 'x'", "--sql: UPDATE of runs is not allowed"},
      {"INSERT INTO strings(text) VALUES ('x')", "--sql: INSERT into strings is not allowed"},
      {"CREATE TEMP TABLE t(x)", "--sql: CREATE/DROP is not allowed"},
      {"CREATE TEMP VIEW v AS SELECT 1", "--sql: CREATE/DROP is not allowed"},
      {"DROP TABLE runs", "--sql: CREATE/DROP is not allowed"},
      {"PRAGMA user_version = 5", "--sql: PRAGMA user_version=5 is not allowed"},
      {"PRAGMA journal_mode = DELETE", "--sql: PRAGMA journal_mode=DELETE is not allowed"},
      {"PRAGMA query_only = 0", "--sql: PRAGMA query_only=0 is not allowed"},
      {"PRAGMA wal_checkpoint", "--sql: PRAGMA wal_checkpoint is not allowed"},
      {"SELECT load_extension('/tmp/x.so')", "--sql: the function load_extension() is not allowed"},
      {"BEGIN", "--sql: a transaction (BEGIN/COMMIT/ROLLBACK) is not allowed"},
      {"SAVEPOINT s", "--sql: SAVEPOINT is not allowed"},
      {"ANALYZE", "--sql: ANALYZE is not allowed"},
      {"REINDEX", "--sql: REINDEX is not allowed"},
  };
  for (const auto& [sql, message] : cases) EXPECT_EQ(refusal(db, sql), message) << sql;
  EXPECT_FALSE(std::filesystem::exists(dir / "copy.db"));
  EXPECT_FALSE(std::filesystem::exists("kprof-user-query-copy.db"));
  EXPECT_FALSE(std::filesystem::exists(dir / "other.db"));
  // The guards are gone with the UserQuery: the store's own statements work as before.
  EXPECT_EQ(db.list_runs().size(), 2u);
}

TEST(UserQuery, RunawayStatementStopsAtTheTimeout) {
  Fixture f;
  CaptureDb db(f.path, OpenMode::read_only);
  EXPECT_EQ(refusal(db,
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                    "SELECT count(*) FROM c",
                    300ms),
            "--sql: the statement was stopped after 300ms (--timeout)");
  EXPECT_EQ(count_rows(db, "SELECT 1"), 1);  // the progress handler is gone
}

TEST(UserQuery, HugeValuesAreRefused) {
  Fixture f;
  CaptureDb db(f.path, OpenMode::read_only);
  EXPECT_EQ(refusal(db, "SELECT zeroblob(1000000000)"), "SQL error: string or blob too big");
}

}  // namespace
}  // namespace kprof::store
