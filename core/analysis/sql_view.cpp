// `--sql`: one read-only SELECT as a Table.
#include "core/analysis/views.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "core/store/user_query.hpp"

namespace kprof::analysis {

Table sql_table(store::CaptureDb& db, const std::string& select, bool simulated, int64_t run_id,
                std::chrono::milliseconds timeout) {
  Table t;
  t.title = "sql";
  t.simulated = simulated;
  t.run_id = run_id;
  // One statement, reads only, stopped after `timeout` (core/store/user_query.hpp).
  store::UserQuery uq(db, select, timeout);
  SQLite::Statement& q = uq.statement();
  for (int i = 0; i < q.getColumnCount(); ++i) t.columns.push_back(q.getColumnName(i));
  while (uq.step()) {
    std::vector<Cell> row;
    for (int i = 0; i < q.getColumnCount(); ++i) {
      const auto c = q.getColumn(i);
      if (c.isNull())
        row.emplace_back();
      else if (c.isInteger())
        row.emplace_back(c.getInt64());
      else if (c.isFloat())
        row.emplace_back(c.getDouble());
      else
        row.emplace_back(c.getString());
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kprof::analysis
