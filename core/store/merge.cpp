// kprof merge: see merge.hpp. All SQL of the merge lives here; the table layout is read from the
// target's schema, so this file names only the bookkeeping tables (runs, passes, strings).
#include "core/store/merge.hpp"

#include <sys/stat.h>

#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

std::string_view to_string(MergeOutcome o) {
  switch (o) {
    case MergeOutcome::added:
      return "added";
    case MergeOutcome::same:
      return "same";
    case MergeOutcome::not_in_source:
      return "not done in source";
  }
  return "?";
}

namespace {

namespace fs = std::filesystem;

struct Column {
  std::string name;
  bool own_id = false;      // the table's INTEGER PRIMARY KEY `id`: a new one is given on insert
  bool pass_key = false;    // `pass_id` → passes(id)
  bool string_ref = false;  // → strings(id): re-interned by value
  std::string data_ref;     // → <pass-data table>(id): follows that row's new id
  bool provenance = false;  // where/when a file was loaded, not what it held: not compared
};

struct Table {
  std::string name;
  std::vector<Column> columns;
};

// Columns that record where and when a file was loaded rather than what it held; two nodes that
// ingested the same bytes from different mount points captured the same pass.
bool is_provenance(const std::string& column) { return column == "path" || column == "loaded_ms"; }

// Every table holding a pass's rows (a `pass_id` column referencing passes), in an order where a
// table comes after those its columns refer to.
std::vector<Table> pass_tables(SQLite::Database& db) {
  std::vector<Table> found;
  SQLite::Statement names(db,
                          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
                          "'sqlite_%' ORDER BY name");
  while (names.executeStep()) {
    Table t{names.getColumn(0).getString(), {}};
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

// An order-independent digest of a pass's rows: per table, the row count and two sums of row
// hashes. Rows are compared by what they hold: interned ids as their strings, references to other
// rows as those rows' text, provenance columns left out.
struct PassDigest {
  std::map<std::string, std::tuple<int64_t, uint64_t, uint64_t>> tables;
  bool operator==(const PassDigest&) const = default;
};

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: spreads a hash before the xor-sum
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
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

// Copies one pass's rows from `src` into `dst` under the target pass id. Returns rows copied.
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

// Rows of tables that refer to a pass through some other column (analysis' join results): they
// describe the pass's old rows, so they go with them.
void drop_derived_rows(SQLite::Database& db, int64_t pass_id) {
  SQLite::Statement names(db,
                          "SELECT m.name, f.\"from\" FROM sqlite_schema m, "
                          "pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND "
                          "f.\"table\" = 'passes' AND f.\"from\" <> 'pass_id'");
  std::vector<std::pair<std::string, std::string>> refs;
  while (names.executeStep())
    refs.emplace_back(names.getColumn(0).getString(), names.getColumn(1).getString());
  for (const auto& [table, column] : refs) {
    SQLite::Statement del(db, "DELETE FROM \"" + table + "\" WHERE \"" + column + "\" = ?");
    del.bind(1, pass_id);
    del.exec();
  }
}

// The pass's bookkeeping as the source recorded it (the owner is cleared: nobody runs it here).
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

std::string describe(const PassInfo& p) {
  std::string s = "pass " + std::to_string(p.ordinal) + " (" + std::string(to_string(p.kind));
  if (!p.counters.empty()) {
    s += ":";
    for (const auto& c : p.counters) s += " " + c;
  }
  return s + ")";
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 12); }

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The run-scoped data (kernels of interest), merged as a whole: copied when the target has none.
void merge_selected(CaptureDb& src, CaptureDb& target, int64_t src_run, int64_t dst_run,
                    const fs::path& src_path) {
  const auto theirs = src.selected_kernels(src_run);
  if (theirs.empty()) return;
  const auto ours = target.selected_kernels(dst_run);
  if (ours.empty()) {
    for (const auto& k : theirs) target.intern(k.name);
    SQLite::Statement ins(target.sql(),
                          "INSERT INTO selected_kernels (run_id, name_id, rank, reason) VALUES "
                          "(?, (SELECT id FROM strings WHERE value = ?), ?, ?)");
    for (const auto& k : theirs) {
      ins.bind(1, dst_run);
      ins.bind(2, k.name);
      ins.bind(3, k.rank);
      ins.bind(4, k.reason);
      ins.exec();
      ins.reset();
    }
    return;
  }
  auto same = [](const SelectedKernel& a, const SelectedKernel& b) {
    return a.name == b.name && a.rank == b.rank;
  };
  if (!std::equal(ours.begin(), ours.end(), theirs.begin(), theirs.end(), same)) {
    throw Error::input("the kernels of interest of run " + std::to_string(dst_run) + " in '" +
                           target.path().string() + "' differ from those of run " +
                           std::to_string(src_run) + " in '" + src_path.string() + "'",
                       "their trace passes chose different kernels: they are not one run");
  }
}

}  // namespace

MergeReport merge_captures(CaptureDb& target, const std::vector<fs::path>& sources) {
  MergeReport report;
  SQLite::Database& dst = target.sql();
  try {
    WriteTransaction tx(target);  // records: every copied row's foreign keys checked as written
    const auto tables = pass_tables(dst);
    std::optional<int64_t> run_id;
    for (const auto& path : sources) {
      if (same_file(path, target.path())) {
        throw Error::input("'" + path.string() + "' is the target database itself",
                           "name the database to merge into first, then the others");
      }
      CaptureDb src(path, OpenMode::read_only);
      const auto src_run = src.find_last_run();
      if (!src_run) {
        throw Error::input("capture database '" + path.string() + "' holds no run",
                           "merge databases written by `kprof run` or `kprof ingest`");
      }
      // The target's run: the one chosen by an earlier source, else the latest of this runbook.
      std::optional<RunInfo> run;
      if (run_id) {
        run = target.find_run(*run_id);
      } else {
        for (const auto& r : target.list_runs())
          if (r.runbook_sha256 == src_run->runbook_sha256) run = r;
      }
      if (!run && !run_id && target.list_runs().empty()) {
        NewRun n{src_run->name,         src_run->runbook_path, src_run->runbook_sha256,
                 src_run->runbook_text, src_run->host,         src_run->kprof_version,
                 src_run->simulated,    src_run->seed,         src_run->profiler_version};
        const int64_t id = target.create_run(n);
        SQLite::Statement up(dst, "UPDATE runs SET started_ms = ? WHERE id = ?");
        up.bind(1, src_run->started_ms);
        up.bind(2, id);
        up.exec();
        run = target.find_run(id);
        report.run_created = true;
      }
      if (!run || run->runbook_sha256 != src_run->runbook_sha256) {
        const auto last = run ? run : target.find_last_run();
        throw Error::input(
            "run " + std::to_string(src_run->id) + " ('" + src_run->name + "') in '" +
                path.string() + "' was made from runbook sha256 " +
                short_sha(src_run->runbook_sha256) + "..., but run " + std::to_string(last->id) +
                " ('" + last->name + "') in '" + target.path().string() + "' from " +
                short_sha(last->runbook_sha256) + "...",
            "merge only databases of one run of one runbook (`kprof status DB` shows a "
            "database's run)");
      }
      if (run->simulated != src_run->simulated) {
        throw Error::input("'" + path.string() + "' holds a " +
                               (src_run->simulated ? "simulated" : "measured") + " run, '" +
                               target.path().string() + "' a " +
                               (run->simulated ? "simulated" : "measured") + " one",
                           "simulated and measured captures are never merged");
      }
      if (!run->profiler_version.empty() && !src_run->profiler_version.empty() &&
          run->profiler_version != src_run->profiler_version) {
        throw Error::input("'" + path.string() + "' was captured with profiler '" +
                               src_run->profiler_version + "', '" + target.path().string() +
                               "' with '" + run->profiler_version + "'",
                           "passes of one run must come from one profiler version (their "
                           "command lines and outputs differ); merge each version separately");
      }
      run_id = run->id;
      auto ours = target.list_passes(run->id);
      const auto theirs = src.list_passes(src_run->id);
      if (ours.empty()) {
        for (const auto& p : theirs)
          target.add_planned_pass(run->id, PlannedPass{p.ordinal, p.kind, p.counters, p.argv, p.env,
                                                       p.output_dir, p.log_path});
        ours = target.list_passes(run->id);
      }
      auto plan_error = [&](const std::string& what) {
        return Error::input(what + ": the plans of run " + std::to_string(src_run->id) + " in '" +
                                path.string() + "' and run " + std::to_string(run->id) + " in '" +
                                target.path().string() + "' differ",
                            "merge only databases of one run (same runbook, same kprof)");
      };
      if (ours.size() != theirs.size()) {
        throw plan_error(std::to_string(theirs.size()) + " passes against " +
                         std::to_string(ours.size()));
      }
      for (size_t i = 0; i < theirs.size(); ++i) {
        const auto& s = theirs[i];
        const auto& t = ours[i];
        if (s.ordinal != t.ordinal || s.kind != t.kind || s.counters != t.counters)
          throw plan_error(describe(s) + " against " + describe(t));
        MergedPass m{path, s.ordinal, MergeOutcome::not_in_source, 0};
        if (s.state == PassState::done && t.state == PassState::done) {
          if (!(digest_pass(src.sql(), tables, s.id) == digest_pass(dst, tables, t.id))) {
            throw Error::input(
                describe(s) + " is done in both '" + path.string() + "' (run " +
                    std::to_string(src_run->id) + ") and '" + target.path().string() + "' (run " +
                    std::to_string(run->id) + ") with different rows: two captures of one pass",
                "keep one: merge without the other database, or re-run the pass with `kprof "
                "resume`");
          }
          m.outcome = MergeOutcome::same;
        } else if (s.state == PassState::done) {
          delete_pass_rows(dst, t.id);
          drop_derived_rows(dst, t.id);
          m.rows = copy_pass_rows(src.sql(), target, tables, s.id, t.id);
          copy_pass_record(src.sql(), dst, s.id, t.id);
          m.outcome = MergeOutcome::added;
        }
        report.passes.push_back(m);
      }
      merge_selected(src, target, src_run->id, run->id, path);
    }
    if (run_id) {
      report.run_id = *run_id;
      const auto passes = target.list_passes(*run_id);
      report.passes_total = static_cast<int64_t>(passes.size());
      int64_t last_end = 0;
      for (const auto& p : passes) {
        if (p.state == PassState::done) ++report.passes_done;
        last_end = std::max(last_end, p.finished_ms.value_or(0));
      }
      if (report.passes_done == report.passes_total && report.passes_total > 0) {
        const auto run = target.find_run(*run_id);
        target.set_run_status(*run_id, RunStatus::done, std::max(last_end, run->started_ms));
      }
      report.status = target.find_run(*run_id)->status;
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    rethrow_sqlite(target.path(), "merging", e);
  }
  return report;
}

}  // namespace kprof::store
