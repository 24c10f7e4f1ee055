// The column tables (core/store/row_columns.hpp) against the schema a new database gets: each
// table's columns are exactly the schema's, besides the ones the loader binds itself (pass_id, a
// row's own id, file_id, variant_id). A column added to a .sql file and not to its row's table, or
// misspelled there, fails here rather than as a silently unread column.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/store/row_columns.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

std::set<std::string> schema_columns(CaptureDb& db, const std::string& table) {
  SQLite::Statement st(db.sql(), "SELECT name FROM pragma_table_info(?)");
  st.bind(1, table);
  std::set<std::string> out;
  while (st.executeStep()) out.insert(st.getColumn(0).getString());
  return out;
}

template <class Tbl>
void expect_matches_schema(CaptureDb& db, const Tbl& t, std::set<std::string> bound_by_loader) {
  std::set<std::string> mapped;
  columns::for_each(t, [&](const auto& c) {
    EXPECT_TRUE(mapped.insert(c.name).second) << t.name << "." << c.name << " is listed twice";
  });
  std::set<std::string> expected = mapped;
  expected.insert(bound_by_loader.begin(), bound_by_loader.end());
  EXPECT_EQ(schema_columns(db, t.name), expected) << t.name;
}

TEST(RowColumns, EveryTableMapsExactlyItsSchemaColumns) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  expect_matches_schema(db, columns::agents, {"pass_id"});
  expect_matches_schema(db, columns::kernel_stats, {"pass_id", "file_id"});
  expect_matches_schema(db, columns::memory_copies, {"pass_id"});
  expect_matches_schema(db, columns::memory_allocations, {"pass_id"});
  expect_matches_schema(db, columns::api_calls, {"pass_id"});
  expect_matches_schema(db, columns::counter_values, {"pass_id"});
  expect_matches_schema(db, columns::kernel_variants, {"pass_id", "id"});
  expect_matches_schema(db, columns::dispatch_rows, {"pass_id", "variant_id"});
  expect_matches_schema(db, columns::dispatches, {"pass_id"});
  expect_matches_schema(db, columns::ingest_stats, {});
}

TEST(RowColumns, StatementsAreMadeFromTheTable) {
  EXPECT_EQ(columns::insert_sql(columns::counter_values, {"pass_id"}, " ON CONFLICT DO NOTHING"),
            "INSERT INTO counter_values(pass_id, pid, dispatch_id, counter_id, value) VALUES (?1, "
            "?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING");
  EXPECT_EQ(columns::select_sql(columns::counter_values, "WHERE t.pass_id = ?"),
            "SELECT t.pid, t.dispatch_id, s_counter.value, t.value FROM counter_values t JOIN "
            "strings s_counter ON s_counter.id = t.counter_id WHERE t.pass_id = ?");
}

}  // namespace
}  // namespace kprof::store
