// A run's runbook hints (runbook_hints.hpp) in run_runbook_hints, run_family_rules and
// run_metric_sets. Written in a savepoint, so that a caller's open transaction (merge's) holds it
// and a lone call is still all or nothing.
#include "core/store/runbook_hints.hpp"

#include <SQLiteCpp/Savepoint.h>
#include <SQLiteCpp/VariadicBind.h>

#include "core/store/capture_db.hpp"
#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

namespace {

std::optional<int> optional_int(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt();
}

void bind_optional(SQLite::Statement& st, int index, const std::optional<int>& v) {
  if (v)
    st.bind(index, *v);
  else
    st.bind(index);
}

}  // namespace

void store_runbook_hints(CaptureDb& db, int64_t run_id, const RunbookHints& hints) {
  auto& sql = db.sql();
  guarded(db, "recording a run's runbook hints", [&] {
    if (!db.find_run(run_id))
      throw Error::runtime(
          "run " + std::to_string(run_id) + " is not in '" + db.path().string() + "'",
          "record the run before its runbook hints");
    SQLite::Savepoint save(sql, "runbook_hints");
    for (const char* table : {"run_family_rules", "run_metric_sets", "run_runbook_hints"}) {
      SQLite::Statement del(sql, std::string("DELETE FROM ") + table + " WHERE run_id = ?");
      del.bind(1, run_id);
      del.exec();
    }
    SQLite::Statement head(
        sql,
        "INSERT INTO run_runbook_hints (run_id, layers, output_tokens, ranks) VALUES (?, ?, ?, ?)");
    head.bind(1, run_id);
    bind_optional(head, 2, hints.layers);
    bind_optional(head, 3, hints.output_tokens);
    bind_optional(head, 4, hints.ranks);
    head.exec();
    SQLite::Statement rule(sql,
                           "INSERT INTO run_family_rules (run_id, ordinal, match, family, file, "
                           "line, col) VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (size_t i = 0; i < hints.family_rules.size(); ++i) {
      const auto& r = hints.family_rules[i];
      rule.reset();
      SQLite::bind(rule, run_id, static_cast<int64_t>(i), r.match, r.family, r.pos.file, r.pos.line,
                   r.pos.col);
      rule.exec();
    }
    SQLite::Statement set(sql,
                          "INSERT INTO run_metric_sets (run_id, ordinal, name) VALUES (?, ?, ?)");
    for (size_t i = 0; i < hints.metric_sets.size(); ++i) {
      set.reset();
      SQLite::bind(set, run_id, static_cast<int64_t>(i), hints.metric_sets[i]);
      set.exec();
    }
    save.release();
  });
}

std::optional<RunbookHints> runbook_hints(CaptureDb& db, int64_t run_id) {
  auto& sql = db.sql();
  return guarded(db, "reading a run's runbook hints", [&]() -> std::optional<RunbookHints> {
    SQLite::Statement head(
        sql, "SELECT layers, output_tokens, ranks FROM run_runbook_hints WHERE run_id = ?");
    head.bind(1, run_id);
    if (!head.executeStep()) return std::nullopt;
    RunbookHints f;
    f.layers = optional_int(head.getColumn(0));
    f.output_tokens = optional_int(head.getColumn(1));
    f.ranks = optional_int(head.getColumn(2));
    SQLite::Statement rules(sql,
                            "SELECT match, family, file, line, col FROM run_family_rules WHERE "
                            "run_id = ? ORDER BY ordinal");
    rules.bind(1, run_id);
    while (rules.executeStep())
      f.family_rules.push_back({rules.getColumn(0).getString(),
                                rules.getColumn(1).getString(),
                                {rules.getColumn(2).getString(), rules.getColumn(3).getInt(),
                                 rules.getColumn(4).getInt()}});
    SQLite::Statement sets(sql,
                           "SELECT name FROM run_metric_sets WHERE run_id = ? ORDER BY ordinal");
    sets.bind(1, run_id);
    while (sets.executeStep()) f.metric_sets.push_back(sets.getColumn(0).getString());
    return f;
  });
}

}  // namespace kprof::store
