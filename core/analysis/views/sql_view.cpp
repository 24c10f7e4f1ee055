// `--sql`: one read-only SELECT as a Table.
#include "core/analysis/views/views.hpp"
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
  t.columns = uq.column_names();
  while (uq.step()) {
    std::vector<Cell> row;
    for (auto& v : uq.row()) {
      if (auto* i = std::get_if<int64_t>(&v))
        row.emplace_back(*i);
      else if (auto* d = std::get_if<double>(&v))
        row.emplace_back(*d);
      else if (auto* s = std::get_if<std::string>(&v))
        row.emplace_back(std::move(*s));
      else
        row.emplace_back();
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kprof::analysis
