// A capture database as sorted text lines, one per row ("table: column=value ..."), for tests that
// compare a database with an uninterrupted run's: the end-to-end executor tests
// (tests/exec/executor_e2e.hpp: resume vs one run) and the crash test
// (tests/crash/crash_harness.cpp: recovery after kill -9 vs one run). Left out is only what differs
// between any two runs by nature:
//   - wall-clock times (*_ms columns), host names, absolute paths (runbook_path, output_dir,
//     log_path, ingest_stats.path) and what embeds them (passes.argv, passes.env);
//   - process and thread ids (pid, tid, owner_pid, owner_host) and what embeds them
//     (passes.log_excerpt, and ingest_stats.sha256/size_bytes of files whose rows carry
//     Process_Id/Thread_Id);
//   - passes.attempts (a pass whose kprof was killed was started once more) and the run lock
//     table (run_lock);
//   - runs.runbook_text/runbook_sha256: two runs' runbooks name workloads in different folders;
//   - the analysis' results (analysis_* tables: the join and outline `kprof run` stores), derived
//     from the rows compared here and keyed by their pids and ingest_stats rows.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace kprof::test_db {

inline std::vector<std::string> canonical_dump(const std::filesystem::path& db_path) {
  static const std::set<std::string> k_skip = {
      "runbook_path", "host",   "output_dir", "log_path",     "path",          "argv",
      "env",          "pid",    "tid",        "owner_pid",    "owner_host",    "attempts",
      "log_excerpt",  "sha256", "size_bytes", "runbook_text", "runbook_sha256"};
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  std::vector<std::string> tables;
  SQLite::Statement t(
      db,
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
      "'sqlite_%' AND name NOT LIKE 'analysis_%' AND name <> 'run_lock' ORDER BY name");
  while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
  std::vector<std::string> lines;
  for (const auto& table : tables) {
    SQLite::Statement q(db, "SELECT * FROM \"" + table + "\"");
    std::vector<int> keep;
    for (int c = 0; c < q.getColumnCount(); ++c) {
      const std::string name = q.getColumnName(c);
      const bool time = name.size() > 3 && name.compare(name.size() - 3, 3, "_ms") == 0;
      if (!k_skip.count(name) && !time) keep.push_back(c);
    }
    while (q.executeStep()) {
      std::string line = table + ":";
      for (int c : keep) {
        line += ' ';
        line += q.getColumnName(c);
        line += '=';
        line += q.getColumn(c).isNull() ? std::string("NULL") : q.getColumn(c).getString();
      }
      lines.push_back(std::move(line));
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace kprof::test_db
