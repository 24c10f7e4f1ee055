// A statement a user wrote (`kprof query --sql`), run so that it can only read and only for so
// long. Three guards, each citing the SQLite interface it rests on:
//  - exactly one statement: the text after the first must hold nothing but spaces and comments
//    (`SELECT 1; DELETE FROM runs` used to run the SELECT and drop the rest silently);
//  - reads only: an authorizer allows SELECT, reading tables and views, recursive CTEs, functions
//    without side effects and a few introspection PRAGMAs, and denies everything else — writes,
//    ATTACH, transactions, PRAGMA assignments, load_extension
//    (https://sqlite.org/c3ref/set_authorizer.html); and sqlite3_stmt_readonly() must say the
//    statement changes no file, which also catches VACUUM [INTO], which has no authorizer action
//    code (https://sqlite.org/c3ref/stmt_readonly.html);
//  - a time limit: a progress handler interrupts the statement once `timeout` has passed since it
//    was prepared (https://sqlite.org/c3ref/progress_handler.html), so a runaway recursive CTE
//    ends.
// The guards hold while the UserQuery lives and are removed by its destructor.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/store/capture_db.hpp"

namespace SQLite {
class Statement;
}

namespace kprof::store {

// A value of a result row as SQLite typed it: NULL, INTEGER, REAL, or TEXT (a BLOB as its bytes).
using UserValue = std::variant<std::monostate, int64_t, double, std::string>;

class UserQuery {
 public:
  // Throws Error(input): no statement, more than one, a denied action (named), or an SQL error.
  UserQuery(CaptureDb& db, std::string_view sql, std::chrono::milliseconds timeout);
  ~UserQuery();
  UserQuery(const UserQuery&) = delete;
  UserQuery& operator=(const UserQuery&) = delete;

  // The prepared statement: read its columns; step with step().
  SQLite::Statement& statement();
  // The next row (false at the end). Throws Error(input) when the time limit stopped the statement,
  // or for an SQL error while running.
  bool step();
  // The result's column names, and the current row's values (after step() returned true).
  std::vector<std::string> column_names() const;
  std::vector<UserValue> row() const;

  struct Guard;  // the authorizer's and progress handler's state (user_query.cpp)

 private:
  CaptureDb& m_db;
  std::unique_ptr<Guard> m_guard;
  std::unique_ptr<SQLite::Statement> m_statement;
};

}  // namespace kprof::store
