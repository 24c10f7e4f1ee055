// Reading a row of a column table (row_columns.hpp) from a statement made by
// columns::select_sql. Internal to core/store.
#pragma once

#include <optional>
#include <string>

#include "core/store/capture_db_impl.hpp"
#include "core/store/row_columns.hpp"

namespace kprof::store::columns {

// One column into one field, by the field's type.
inline void get(const SQLite::Statement& st, int i, int64_t& v) { v = st.getColumn(i).getInt64(); }
inline void get(const SQLite::Statement& st, int i, double& v) { v = st.getColumn(i).getDouble(); }
inline void get(const SQLite::Statement& st, int i, std::string& v) {
  v = st.getColumn(i).getString();
}
inline void get(const SQLite::Statement& st, int i, bool& v) {
  v = st.getColumn(i).getInt64() != 0;
}
inline void get(const SQLite::Statement& st, int i, std::optional<int64_t>& v) {
  v = column_opt(st, i);
}

// The same through SQLite's own calls, for reads of millions of rows: SQLiteCpp's getColumn copies
// a shared pointer to the statement on every call.
inline void get(sqlite3_stmt* st, int i, int64_t& v) { v = sqlite3_column_int64(st, i); }
inline void get(sqlite3_stmt* st, int i, std::optional<int64_t>& v) {
  if (sqlite3_column_type(st, i) == SQLITE_NULL) {
    v.reset();
  } else {
    v = sqlite3_column_int64(st, i);
  }
}

// The current row into `row`: the columns of `t`, in order, as select_sql(t) lists them, from
// column `first` on (a statement may select leading columns of its own, such as an id).
template <class Tbl, class Row, class Stmt>
void read_row(const Stmt& st, const Tbl& t, Row& row, int first = 0) {
  int i = first;
  for_each(t, [&](const auto& c) { get(st, i++, row.*c.field); });
}

}  // namespace kprof::store::columns
