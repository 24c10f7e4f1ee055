// kprof merge's row copying (merge_rows.hpp). The table layout is read from the target's schema,
// so this file names no table of pass rows.
#include "core/store/merge_rows.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <regex>
#include <set>

#include "core/store/capture_db_impl.hpp"
#include "core/store/schema_files.hpp"

namespace kprof::store::merge_rows {

namespace {

// Columns that record where and when a file was loaded rather than what it held; two nodes that
// ingested the same bytes from different mount points captured the same pass.
bool is_provenance(const std::string& column) { return column == "path" || column == "loaded_ms"; }

std::string select_list(const Table& t) {
  std::string s;
  for (const auto& c : t.columns) s += (s.empty() ? "\"" : ", \"") + c.name + "\"";
  return s;
}

// A value as text for the digest, with its type so 1 and '1' differ.
std::string value_text(const SQLite::Column& v) {
  switch (v.getType()) {
    case SQLITE_INTEGER:
      return "i" + std::to_string(v.getInt64());
    case SQLITE_FLOAT: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "f%.17g", v.getDouble());
      return buf;
    }
    case SQLITE_NULL:
      return "n";
    default:
      return "t" + v.getString();
  }
}

// The tables the store's own schema creates (core/store/schema/*.sql, every migration in order):
// the capture. The analysis' results (`analysis_*`, schema/0007_analysis_results.sql: the join
// and outline) are derived from it and never merged as data.
const std::set<std::string>& capture_tables() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    const std::regex create(R"(CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+))",
                            std::regex::icase);
    const std::regex drop(R"(DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?"?(\w+))", std::regex::icase);
    for (const auto& f : schema_files()) {
      const std::string sql = f.sql;
      for (std::sregex_iterator it(sql.begin(), sql.end(), create), end; it != end; ++it)
        if ((*it)[1].str().rfind("analysis_", 0) != 0) out.insert((*it)[1]);
      for (std::sregex_iterator it(sql.begin(), sql.end(), drop), end; it != end; ++it)
        out.erase((*it)[1]);
    }
    return out;
  }();
  return names;
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: spreads a hash before the xor-sum
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<Table> pass_tables(SQLite::Database& db) {
  std::vector<Table> found;
  SQLite::Statement names(db,
                          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
                          "'sqlite_%' ORDER BY name");
  while (names.executeStep()) {
    Table t{names.getColumn(0).getString(), {}};
    if (!capture_tables().count(t.name)) continue;
    std::map<std::string, std::string> refs;  // column → referenced table
    SQLite::Statement fk(db, "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?)");
    fk.bind(1, t.name);
    while (fk.executeStep()) refs[fk.getColumn(0).getString()] = fk.getColumn(1).getString();
    SQLite::Statement info(db, "SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid");
    info.bind(1, t.name);
    bool has_pass_key = false;
    while (info.executeStep()) {
      Column c;
      c.name = info.getColumn(0).getString();
      const auto ref = refs.count(c.name) ? refs[c.name] : std::string();
      c.own_id = c.name == "id" && info.getColumn(2).getInt() == 1 &&
                 info.getColumn(1).getString() == "INTEGER";
      c.pass_key = c.name == "pass_id" && ref == "passes";
      c.string_ref = ref == "strings";
      if (!c.pass_key && !c.string_ref && !ref.empty() && ref != "passes" && ref != "runs")
        c.data_ref = ref;
      c.provenance = is_provenance(c.name);
      has_pass_key = has_pass_key || c.pass_key;
      t.columns.push_back(c);
    }
    if (has_pass_key) found.push_back(std::move(t));
  }
  std::vector<Table> ordered;
  std::set<std::string> placed;
  while (!found.empty()) {
    auto ready = std::find_if(found.begin(), found.end(), [&](const Table& t) {
      return std::all_of(t.columns.begin(), t.columns.end(), [&](const Column& c) {
        return c.data_ref.empty() || placed.count(c.data_ref) || c.data_ref == t.name;
      });
    });
    if (ready == found.end()) ready = found.begin();  // a cycle: the schema never makes one
    placed.insert(ready->name);
    ordered.push_back(std::move(*ready));
    found.erase(ready);
  }
  return ordered;
}

PassDigest digest_pass(SQLite::Database& db, const std::vector<Table>& tables, int64_t pass_id) {
  PassDigest d;
  std::map<int64_t, std::string> strings;
  auto string_of = [&](int64_t id) -> const std::string& {
    auto it = strings.find(id);
    if (it != strings.end()) return it->second;
    SQLite::Statement q(db, "SELECT value FROM strings WHERE id = ?");
    q.bind(1, id);
    return strings[id] = q.executeStep() ? q.getColumn(0).getString() : std::string("?");
  };
  std::map<std::string, std::map<int64_t, std::string>> row_text;  // table → id → its text
  for (const auto& t : tables) {
    SQLite::Statement q(db,
                        "SELECT " + select_list(t) + " FROM \"" + t.name + "\" WHERE pass_id = ?");
    q.bind(1, pass_id);
    auto& [count, sum, xsum] = d.tables[t.name];
    while (q.executeStep()) {
      std::string text;
      std::optional<int64_t> own;
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const auto& c = t.columns[i];
        const auto v = q.getColumn(static_cast<int>(i));
        if (c.own_id) own = v.getInt64();
        if (c.own_id || c.pass_key || c.provenance) continue;
        if (c.string_ref && !v.isNull())
          text += "s" + string_of(v.getInt64());
        else if (!c.data_ref.empty() && !v.isNull())
          text += "r" + row_text[c.data_ref][v.getInt64()];
        else
          text += value_text(v);
        text += '\x1f';
      }
      if (own) row_text[t.name][*own] = text;
      const uint64_t h = std::hash<std::string>{}(text);
      ++count;
      sum += h;
      xsum ^= mix(h);
    }
  }
  return d;
}

int64_t copy_pass_rows(SQLite::Database& src, CaptureDb& target, const std::vector<Table>& tables,
                       int64_t src_pass, int64_t dst_pass) {
  SQLite::Database& dst = target.sql();
  std::map<int64_t, int64_t> strings;  // source string id → target's
  auto string_id = [&](int64_t id) {
    auto it = strings.find(id);
    if (it != strings.end()) return it->second;
    SQLite::Statement q(src, "SELECT value FROM strings WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep()) {
      throw Error::input(
          "capture database '" + src.getFilename() + "' refers to string id " + std::to_string(id) +
              ", which it does not hold",
          "the file is damaged; check it with `sqlite3 FILE 'PRAGMA integrity_check'`");
    }
    return strings[id] = target.intern(q.getColumn(0).getString());
  };
  std::map<std::string, std::map<int64_t, int64_t>> new_ids;  // table → source id → target id
  int64_t rows = 0;
  for (const auto& t : tables) {
    std::string names, marks;
    for (const auto& c : t.columns) {
      if (c.own_id) continue;
      names += (names.empty() ? "\"" : ", \"") + c.name + "\"";
      marks += marks.empty() ? "?" : ", ?";
    }
    SQLite::Statement ins(dst,
                          "INSERT INTO \"" + t.name + "\" (" + names + ") VALUES (" + marks + ")");
    SQLite::Statement q(src,
                        "SELECT " + select_list(t) + " FROM \"" + t.name + "\" WHERE pass_id = ?");
    q.bind(1, src_pass);
    while (q.executeStep()) {
      int at = 1;
      std::optional<int64_t> own;
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const auto& c = t.columns[i];
        const auto v = q.getColumn(static_cast<int>(i));
        if (c.own_id) {
          own = v.getInt64();
          continue;
        }
        if (c.pass_key) {
          ins.bind(at++, dst_pass);
        } else if (v.isNull()) {
          ins.bind(at++);
        } else if (c.string_ref) {
          ins.bind(at++, string_id(v.getInt64()));
        } else if (!c.data_ref.empty()) {
          ins.bind(at++, new_ids[c.data_ref].at(v.getInt64()));
        } else if (v.getType() == SQLITE_INTEGER) {
          ins.bind(at++, v.getInt64());
        } else if (v.getType() == SQLITE_FLOAT) {
          ins.bind(at++, v.getDouble());
        } else if (v.getType() == SQLITE_BLOB) {
          ins.bind(at++, v.getBlob(), v.getBytes());
        } else {
          ins.bind(at++, v.getString());
        }
      }
      ins.exec();
      ins.reset();
      if (own) new_ids[t.name][*own] = dst.getLastInsertRowid();
      ++rows;
    }
  }
  return rows;
}

void drop_derived_results(SQLite::Database& db, int64_t run_id) {
  struct Ref {
    std::string table, column, to_table, to_column;
  };
  std::vector<Ref> refs;
  SQLite::Statement names(db,
                          "SELECT m.name, f.\"from\", f.\"table\", f.\"to\" FROM sqlite_schema "
                          "m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'");
  while (names.executeStep()) {
    Ref r{names.getColumn(0).getString(), names.getColumn(1).getString(),
          names.getColumn(2).getString(), names.getColumn(3).getString()};
    if (!capture_tables().count(r.table)) refs.push_back(std::move(r));
  }
  // Results about the run's passes, then (foreign keys may be off in this transaction) results
  // that referred to those, until none is left pointing at nothing.
  for (const auto& r : refs) {
    if (r.to_table != "passes") continue;
    SQLite::Statement del(db, "DELETE FROM \"" + r.table + "\" WHERE \"" + r.column +
                                  "\" IN (SELECT id FROM passes WHERE run_id = ?)");
    del.bind(1, run_id);
    del.exec();
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& r : refs) {
      if (capture_tables().count(r.to_table)) continue;
      const std::string to = r.to_column.empty() ? "rowid" : "\"" + r.to_column + "\"";
      changed = db.exec("DELETE FROM \"" + r.table + "\" WHERE \"" + r.column +
                        "\" NOT IN (SELECT " + to + " FROM \"" + r.to_table + "\")") > 0 ||
                changed;
    }
  }
}

void copy_pass_record(SQLite::Database& src, SQLite::Database& dst, int64_t src_pass,
                      int64_t dst_pass) {
  static const char* const k_cols[] = {"state",  "attempts",   "exit_code",   "signal",
                                       "reason", "started_ms", "finished_ms", "argv",
                                       "env",    "output_dir", "log_path",    "log_excerpt"};
  std::string sel, set;
  for (const char* c : k_cols) {
    sel += std::string(sel.empty() ? "" : ", ") + c;
    set += std::string(set.empty() ? "" : ", ") + c + " = ?";
  }
  SQLite::Statement q(src, "SELECT " + sel + " FROM passes WHERE id = ?");
  q.bind(1, src_pass);
  q.executeStep();
  SQLite::Statement up(
      dst, "UPDATE passes SET " + set + ", owner_pid = NULL, owner_host = '' WHERE id = ?");
  int at = 1;
  for (int i = 0; i < static_cast<int>(std::size(k_cols)); ++i) {
    const auto v = q.getColumn(i);
    if (v.isNull())
      up.bind(at++);
    else if (v.getType() == SQLITE_INTEGER)
      up.bind(at++, v.getInt64());
    else
      up.bind(at++, v.getString());
  }
  up.bind(at, dst_pass);
  up.exec();
}

}  // namespace kprof::store::merge_rows
