// Helpers shared by the store tests: a temporary folder and a dump of every table.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "core/store/capture_db.hpp"
#include "core/store/schema_files.hpp"

namespace kprof::store::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("kprof-store-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

// Every row of every table, in a deterministic order: two dumps are equal exactly when the
// databases hold the same data.
inline std::string dump_all_tables(SQLite::Database& db) {
  std::string out;
  SQLite::Statement tables(db,
                           "SELECT name FROM sqlite_schema WHERE type = 'table' AND "
                           "name NOT LIKE 'sqlite_%' ORDER BY name");
  while (tables.executeStep()) {
    const std::string name = tables.getColumn(0).getString();
    out += "== " + name + "\n";
    SQLite::Statement rows(db, "SELECT * FROM \"" + name + "\"");
    const int n = rows.getColumnCount();
    std::string order;
    for (int i = 1; i <= n; ++i) order += (i > 1 ? "," : "") + std::to_string(i);
    SQLite::Statement sorted(db, "SELECT * FROM \"" + name + "\" ORDER BY " + order);
    while (sorted.executeStep()) {
      for (int i = 0; i < n; ++i) {
        auto c = sorted.getColumn(i);
        out += c.isNull() ? std::string("NULL") : c.getString();
        out += '|';
      }
      out += '\n';
    }
  }
  return out;
}

// A database file at schema `version`, made as the kprof of that version made it: the embedded
// migrations 1..version applied and recorded. Rows go in with SQL (CaptureDb would migrate it).
inline void make_db_at_version(const std::filesystem::path& path, int64_t version) {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA journal_mode=WAL");
  for (const auto& f : schema_files()) {
    if (f.version > version) break;
    db.exec(f.sql);
    db.exec("INSERT INTO schema_version(version, applied_ms) VALUES (" + std::to_string(f.version) +
            ", 0)");
  }
}

inline int64_t make_run(CaptureDb& db, const std::string& name = "r") {
  return db.create_run(
      {name, "/rb.yaml", std::string(64, 'a'), "name: r\n", "hostA", "0.1.0", true, 7});
}

inline int64_t make_pass(CaptureDb& db, int64_t run, int64_t ordinal,
                         PassKind kind = PassKind::trace) {
  PlannedPass p;
  p.ordinal = ordinal;
  p.kind = kind;
  return db.add_planned_pass(run, p);
}

}  // namespace kprof::store::testing
