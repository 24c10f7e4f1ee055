// The join mapping in the capture database: computed per counter pass (join.hpp), stored in the
// analysis tables, read back, and redone when a pass's dispatch count changed since or a pass was
// ingested again after the join.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <functional>

#include "core/analysis/analysis_db.hpp"
#include "core/analysis/join.hpp"
#include "core/analysis/phases.hpp"

namespace kprof::analysis {
namespace {

int64_t stored_count(SQLite::Database& sql, int64_t pass_id) {
  SQLite::Statement q(sql, "SELECT count(*) FROM dispatches WHERE pass_id = ?");
  q.bind(1, pass_id);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

// Whether the stored mapping was made from the files `pass` holds now: `kprof ingest --replace`
// reloads a pass under the same id, and a re-run's capture often has as many dispatches (the same
// workload) but other dispatch ids, so equal counts do not make a stored join current. The pass's
// ingest_stats rows (pass_files_fingerprint) as they were at the join must still be there; no clock
// is compared, so a database copied between machines or a clock set back changes nothing.
bool same_files(store::CaptureDb& db, int64_t counter_pass_id, int64_t pass_id) {
  SQLite::Statement q(db.sql(),
                      "SELECT files FROM analysis_join_files WHERE counter_pass_id = ? AND "
                      "pass_id = ?");
  q.bind(1, counter_pass_id);
  q.bind(2, pass_id);
  return q.executeStep() && q.getColumn(0).getString() == pass_files_fingerprint(db, pass_id);
}

}  // namespace

int64_t join_jump_bound(size_t step_period, int64_t trace_dispatches) {
  return step_period > 0 ? static_cast<int64_t>(step_period)
                         : std::max<int64_t>(64, trace_dispatches / 20);
}

bool joins_current(store::CaptureDb& db, const Capture& cap) {
  return joins_current(db, run_counts(cap));
}

bool pass_join_current(store::CaptureDb& db, const PassCount& counter, const PassCount& trace) {
  auto& sql = db.sql();
  SQLite::Statement chk(sql, "SELECT 1 FROM analysis_join_proofs WHERE counter_pass_id = ?");
  chk.bind(1, counter.pass_id);
  if (!chk.executeStep()) return false;
  SQLite::Statement q(sql,
                      "SELECT counter_dispatches, trace_dispatches, trace_pass_id "
                      "FROM analysis_join_passes WHERE counter_pass_id = ?");
  q.bind(1, counter.pass_id);
  if (!q.executeStep() || q.getColumn(0).getInt64() != counter.dispatches ||
      q.getColumn(1).getInt64() != trace.dispatches || q.getColumn(2).getInt64() != trace.pass_id)
    return false;
  return same_files(db, counter.pass_id, counter.pass_id) &&
         same_files(db, counter.pass_id, trace.pass_id);
}

bool joins_current(store::CaptureDb& db, const RunCounts& counts) {
  if (!detail::has_table(db, "analysis_join_passes") ||
      !detail::has_table(db, "analysis_join_proofs") ||
      !detail::has_table(db, "analysis_join_files"))
    return counts.counters.empty();
  for (const auto& c : counts.counters)
    if (!pass_join_current(db, c, counts.trace)) return false;
  return true;
}

namespace {

int64_t capture_jump_bound(const Capture& cap) {
  if (cap.counters.empty()) return 0;
  const PhaseModel pm = detect_phases(cap.trace, &cap.names);
  return analysis::join_jump_bound(pm.step_period,
                                   static_cast<int64_t>(cap.trace.dispatches.size()));
}

JoinSummary summarize(const PassCount& trace, const PassCount& c, const JoinResult& r) {
  JoinSummary s;
  s.counter_pass_id = c.pass_id;
  s.ordinal = c.ordinal;
  s.trace_pass_id = trace.pass_id;
  s.counter_dispatches = c.dispatches;
  s.trace_considered = static_cast<int64_t>(r.trace_considered);
  s.matched = static_cast<int64_t>(r.matches.size());
  s.matched_share = r.matched_share();
  s.filtered = r.filtered;
  s.streams = static_cast<int64_t>(r.streams.size());
  s.unmatched_counter = static_cast<int64_t>(r.unmatched_counter.size());
  s.unmatched_trace = static_cast<int64_t>(r.unmatched_trace.size());
  s.computed_now = true;
  s.method = r.method;
  s.monotone = r.monotone;
  s.reliable = r.reliable();
  s.jump_bound = r.jump_bound;
  s.jumps = r.jumps;
  s.max_jump = r.max_jump;
  s.offset_streams = static_cast<int64_t>(r.offset_streams);
  s.offset = r.offset;
  return s;
}

// Replaces the stored mapping of one counter pass (the caller holds the transaction).
void store_join(store::CaptureDb& db, const PassCount& trace, const PassCount& c,
                const JoinResult& r) {
  auto& sql = db.sql();
  for (const char* table : {"analysis_join", "analysis_unmatched", "analysis_join_passes",
                            "analysis_join_proofs", "analysis_join_files"}) {
    SQLite::Statement del(sql, std::string("DELETE FROM ") + table + " WHERE counter_pass_id = ?");
    del.bind(1, c.pass_id);
    del.exec();
  }
  SQLite::Statement ins(sql, "INSERT INTO analysis_join VALUES (?, ?, ?, ?, ?, ?)");
  for (const auto& m : r.matches) {
    ins.bind(1, c.pass_id);
    ins.bind(2, m.counter.pid);
    ins.bind(3, m.counter.dispatch_id);
    ins.bind(4, trace.pass_id);
    ins.bind(5, m.trace.pid);
    ins.bind(6, m.trace.dispatch_id);
    ins.exec();
    ins.reset();
  }
  SQLite::Statement um(sql, "INSERT INTO analysis_unmatched VALUES (?, ?, ?, ?)");
  auto put = [&](const char* side, const DispatchRef& d) {
    um.bind(1, c.pass_id);
    um.bind(2, side);
    um.bind(3, d.pid);
    um.bind(4, d.dispatch_id);
    um.exec();
    um.reset();
  };
  for (const auto& d : r.unmatched_counter) put("counter", d);
  for (const auto& d : r.unmatched_trace) put("trace", d);
  SQLite::Statement sum(sql,
                        "INSERT INTO analysis_join_passes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  sum.bind(1, c.pass_id);
  sum.bind(2, trace.pass_id);
  sum.bind(3, c.dispatches);
  sum.bind(4, trace.dispatches);
  sum.bind(5, static_cast<int64_t>(r.trace_considered));
  sum.bind(6, static_cast<int64_t>(r.matches.size()));
  sum.bind(7, r.matched_share());
  sum.bind(8, r.filtered ? 1 : 0);
  sum.bind(9, static_cast<int64_t>(r.streams.size()));
  sum.bind(10, store::now_unix_ms());
  sum.exec();
  SQLite::Statement ck(sql, "INSERT INTO analysis_join_proofs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  ck.bind(1, c.pass_id);
  ck.bind(2, r.method);
  ck.bind(3, r.monotone ? 1 : 0);
  ck.bind(4, r.jump_bound);
  ck.bind(5, r.jumps);
  ck.bind(6, r.max_jump);
  ck.bind(7, r.reliable() ? 1 : 0);
  ck.bind(8, static_cast<int64_t>(r.offset_streams));
  ck.bind(9, r.offset);
  ck.exec();
  SQLite::Statement files(sql, "INSERT INTO analysis_join_files VALUES (?, ?, ?)");
  for (const int64_t pass_id : {c.pass_id, trace.pass_id}) {
    files.bind(1, c.pass_id);
    files.bind(2, pass_id);
    files.bind(3, pass_files_fingerprint(db, pass_id));
    files.exec();
    files.reset();
  }
}

bool has_join_tables(store::CaptureDb& db) {
  return detail::has_table(db, "analysis_join_passes") &&
         detail::has_table(db, "analysis_join_proofs") && detail::has_table(db, "analysis_join") &&
         detail::has_table(db, "analysis_unmatched") &&
         detail::has_table(db, "analysis_join_files");
}

// Creates the analysis tables and runs `store` in one transaction if the write lock is free right
// now; false, having changed nothing, when another connection holds it. Never waits for another
// writer: a `kprof run` or `kprof ingest` holding the write lock makes BEGIN IMMEDIATE fail with
// SQLITE_BUSY at once when the busy timeout is 0 (https://sqlite.org/lang_transaction.html,
// https://sqlite.org/c3ref/busy_timeout.html).
bool try_write_joins(store::CaptureDb& db, const std::function<void()>& store) {
  auto& sql = db.sql();
  sql.setBusyTimeout(0);
  try {
    SQLite::Transaction tx(sql, SQLite::TransactionBehavior::IMMEDIATE);
    sql.exec(analysis_schema_sql());
    store();
    tx.commit();
  } catch (const SQLite::Exception& e) {
    if ((e.getErrorCode() & 0xff) == SQLITE_BUSY) return false;
    throw;
  }
  return true;
}

}  // namespace

std::vector<JoinSummary> ensure_joins(store::CaptureDb& db, const Capture& cap) {
  auto& sql = db.sql();
  const int64_t jump_bound = capture_jump_bound(cap);
  const bool has_tables = has_join_tables(db);
  // The stale passes are joined first (reads only); then the analysis tables and every new
  // mapping are written in one transaction: a failure or a kill leaves the joins as they were.
  const RunCounts counts = run_counts(cap);
  std::vector<std::pair<PassCount, JoinResult>> stale;
  for (size_t i = 0; i < cap.counters.size(); ++i) {
    const PassCount& c = counts.counters[i];
    if (has_tables && pass_join_current(db, c, counts.trace) &&
        stored_count(sql, c.pass_id) == c.dispatches)
      continue;
    stale.emplace_back(c, join_pass(cap.trace, cap.counters[i], jump_bound));
  }
  {
    store::WriteTransaction tx(db);
    sql.exec(analysis_schema_sql());
    for (const auto& [c, r] : stale) store_join(db, counts.trace, c, r);
    tx.commit();
  }
  return read_joins(db, cap);
}

ComputedJoins compute_joins(const Capture& cap) {
  ComputedJoins out;
  const int64_t jump_bound = capture_jump_bound(cap);
  const RunCounts counts = run_counts(cap);
  for (size_t i = 0; i < cap.counters.size(); ++i) {
    JoinResult r = join_pass(cap.trace, cap.counters[i], jump_bound);
    out.summaries.push_back(summarize(counts.trace, counts.counters[i], r));
    out.results.emplace(cap.counters[i].pass_id, std::move(r));
  }
  return out;
}

bool try_store_joins(store::CaptureDb& db, const Capture& cap, const ComputedJoins& joins) {
  const RunCounts counts = run_counts(cap);
  return try_write_joins(db, [&] {
    for (const auto& c : counts.counters) {
      auto it = joins.results.find(c.pass_id);
      if (it != joins.results.end()) store_join(db, counts.trace, c, it->second);
    }
  });
}

std::optional<std::vector<JoinSummary>> try_join_stored(store::CaptureDb& db,
                                                        const RunCounts& counts, int64_t jump_bound,
                                                        size_t memory_bytes) {
  const bool has_tables = has_join_tables(db);
  // Joined first with reads only (the results spill past memory_bytes), then stored in one
  // transaction, as ensure_joins does: the write lock is held for the inserts, not the alignment.
  NameTable names;
  const auto trace = stored_join_input(db, counts.trace, names);
  std::vector<std::pair<PassCount, JoinResult>> stale;
  std::vector<JoinSummary> out;
  for (const auto& c : counts.counters) {
    if (has_tables && pass_join_current(db, c, counts.trace)) continue;
    JoinResult r = join_pass(*trace, *stored_join_input(db, c, names), jump_bound, memory_bytes);
    out.push_back(summarize(counts.trace, c, r));
    stale.emplace_back(c, std::move(r));
  }
  if (!try_write_joins(db, [&] {
        for (const auto& [c, r] : stale) store_join(db, counts.trace, c, r);
      }))
    return std::nullopt;
  return out;
}

std::vector<JoinSummary> read_joins(store::CaptureDb& db, const Capture& cap) {
  return read_joins(db, run_counts(cap));
}

std::vector<JoinSummary> read_joins(store::CaptureDb& db, const RunCounts& counts) {
  std::vector<JoinSummary> out;
  auto& sql = db.sql();
  if (!detail::has_table(db, "analysis_join_passes")) return out;
  for (const auto& c : counts.counters) {
    SQLite::Statement q(sql,
                        "SELECT trace_pass_id, counter_dispatches, trace_considered, matched, "
                        "matched_share, filtered, streams, "
                        "(SELECT count(*) FROM analysis_unmatched u WHERE u.counter_pass_id = "
                        "j.counter_pass_id AND side = 'counter'), "
                        "(SELECT count(*) FROM analysis_unmatched u WHERE u.counter_pass_id = "
                        "j.counter_pass_id AND side = 'trace') "
                        "FROM analysis_join_passes j WHERE counter_pass_id = ?");
    q.bind(1, c.pass_id);
    if (!q.executeStep()) continue;
    JoinSummary s;
    s.counter_pass_id = c.pass_id;
    s.ordinal = c.ordinal;
    s.trace_pass_id = q.getColumn(0).getInt64();
    s.counter_dispatches = q.getColumn(1).getInt64();
    s.trace_considered = q.getColumn(2).getInt64();
    s.matched = q.getColumn(3).getInt64();
    s.matched_share = q.getColumn(4).getDouble();
    s.filtered = q.getColumn(5).getInt() != 0;
    s.streams = q.getColumn(6).getInt64();
    s.unmatched_counter = q.getColumn(7).getInt64();
    s.unmatched_trace = q.getColumn(8).getInt64();
    if (detail::has_table(db, "analysis_join_proofs")) {
      SQLite::Statement ck(sql,
                           "SELECT method, monotone, jump_bound, jumps, max_jump, reliable, "
                           "offset_streams, id_offset FROM analysis_join_proofs WHERE "
                           "counter_pass_id = ?");
      ck.bind(1, c.pass_id);
      if (ck.executeStep()) {
        s.method = ck.getColumn(0).getString();
        s.monotone = ck.getColumn(1).getInt() != 0;
        s.jump_bound = ck.getColumn(2).getInt64();
        s.jumps = ck.getColumn(3).getInt64();
        s.max_jump = ck.getColumn(4).getInt64();
        s.reliable = ck.getColumn(5).getInt() != 0;
        s.offset_streams = ck.getColumn(6).getInt64();
        s.offset = ck.getColumn(7).getInt64();
      }
    }
    out.push_back(s);
  }
  return out;
}

std::string join_check_text(const JoinSummary& j) {
  std::string out;
  if (j.method == "by_id")
    out = "matched by Dispatch_Id: the trace's own invocation (same ids, pids and times)";
  else if (j.method == "offset")
    out = "matched exactly by a constant Dispatch_Id offset (trace id = counter id " +
          std::string(j.offset < 0 ? "- " : "+ ") +
          std::to_string(j.offset < 0 ? -j.offset : j.offset) +
          "): every matched pair has the same kernel, grid and workgroup";
  else
    out =
        "aligned by launch order: another run of the application (no constant Dispatch_Id "
        "offset matches it exactly)";
  if (!j.reliable) {
    out += "; UNRELIABLE: ";
    if (!j.monotone) out += "matches leave program order; ";
    if (j.jumps > 0)
      out += std::to_string(j.jumps) + " match(es) skip more than " + std::to_string(j.jump_bound) +
             " trace dispatches beyond the counter pass's own gap, up to " +
             std::to_string(j.max_jump) +
             " (the pairs before and after disagree on where the counter pass is in the trace): " +
             "its counters are not used for metrics (--force-join uses them)";
  }
  return out;
}

}  // namespace kprof::analysis
