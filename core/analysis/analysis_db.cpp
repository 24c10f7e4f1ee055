#include "core/analysis/analysis_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "core/analysis/join.hpp"
#include "core/analysis/phases.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {
namespace {

bool has_table(SQLite::Database& sql, const char* name) {
  SQLite::Statement q(sql, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  q.bind(1, name);
  return q.executeStep();
}

// Reads a pass's dispatches with one statement of our own rather than store::for_each_dispatch:
// that builds a std::string kernel name per row, which is most of the time of a query on 10M
// dispatches; here names are resolved once per distinct kernel_name_id.
PassData load_pass(store::CaptureDb& db, const store::PassInfo& p, NameTable& names) {
  PassData out;
  out.pass_id = p.id;
  out.ordinal = static_cast<int>(p.ordinal);
  out.kind = std::string(store::to_string(p.kind));
  auto& sql = db.sql();
  std::unordered_map<int64_t, uint32_t> name_of;
  SQLite::Statement q(
      sql,
      "SELECT dispatch_id, kernel_id, kernel_name_id, pid, agent, start_ns, end_ns, "
      "grid_x, grid_y, grid_z, wg_x, wg_y, wg_z, lds, scratch, vgpr, agpr, sgpr, queue_id "
      "FROM dispatches WHERE pass_id = ? ORDER BY pid, dispatch_id");
  q.bind(1, p.id);
  SQLite::Statement name_q(sql, "SELECT value FROM strings WHERE id = ?");
  auto opt_int = [&](int col) {
    const auto c = q.getColumn(col);
    return c.isNull() ? int64_t{-1} : c.getInt64();
  };
  while (q.executeStep()) {
    Dispatch d;
    d.dispatch_id = q.getColumn(0).getInt64();
    d.kernel_id = q.getColumn(1).getInt64();
    const int64_t name_id = q.getColumn(2).getInt64();
    auto it = name_of.find(name_id);
    if (it == name_of.end()) {
      name_q.bind(1, name_id);
      std::string name = name_q.executeStep() ? name_q.getColumn(0).getString() : std::string();
      name_q.reset();
      it = name_of.emplace(name_id, names.intern(name)).first;
    }
    d.name = it->second;
    d.pid = q.getColumn(3).getInt64();
    d.agent = q.getColumn(4).getInt64();
    d.start_ns = q.getColumn(5).getInt64();
    d.end_ns = q.getColumn(6).getInt64();
    for (int i = 0; i < 3; ++i) d.grid[i] = q.getColumn(7 + i).getInt64();
    for (int i = 0; i < 3; ++i) d.wg[i] = q.getColumn(10 + i).getInt64();
    d.lds = q.getColumn(13).getInt64();
    d.scratch = q.getColumn(14).getInt64();
    d.vgpr = opt_int(15);
    d.agpr = opt_int(16);
    d.sgpr = opt_int(17);
    d.queue = q.getColumn(18).getInt64();
    out.dispatches.push_back(d);
  }
  return out;
}

int64_t stored_count(SQLite::Database& sql, int64_t pass_id) {
  SQLite::Statement q(sql, "SELECT count(*) FROM dispatches WHERE pass_id = ?");
  q.bind(1, pass_id);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

}  // namespace

RunTrace find_run_trace(store::CaptureDb& db, std::optional<int64_t> run_id) {
  auto run = run_id ? db.find_run(*run_id) : db.find_last_run();
  if (!run) {
    throw Error::input(
        run_id ? "no run " + std::to_string(*run_id) + " in " + db.path().string()
               : "no run in " + db.path().string(),
        run_id ? "'kprof status DB' lists the runs" : "run 'kprof run' or 'kprof ingest' first");
  }
  RunTrace out;
  out.run = *run;
  out.passes = db.list_passes(run->id);
  const store::PassInfo* trace = nullptr;
  for (const auto& p : out.passes)
    if (p.kind == store::PassKind::trace && (!trace || p.ordinal < trace->ordinal)) trace = &p;
  const std::string run_text = "run " + std::to_string(run->id) + " ('" + run->name + "')";
  if (!trace) {
    throw Error::input(run_text + " has no trace pass, only counter passes",
                       "the explanation needs a kernel trace (rocprofv3 --kernel-trace; "
                       "passes.trace in a runbook): load one into this run with 'kprof ingest DB "
                       "FILE --run \"" +
                           run->name + "\"'");
  }
  out.trace = *trace;
  return out;
}

void no_dispatches(store::CaptureDb& db, const store::RunInfo& run, int64_t trace_pass_id) {
  std::set<std::string> kinds;
  for (const auto& f : db.ingest_files(trace_pass_id)) kinds.insert(f.kind);
  throw Error::input(
      "the trace pass of run " + std::to_string(run.id) + " ('" + run.name +
          "') holds no kernel dispatches" +
          (kinds.empty()
               ? std::string()
               : " (it holds " + join(std::vector<std::string>(kinds.begin(), kinds.end()), ", ") +
                     ", but no kernel_trace.csv)"),
      "the explanation needs per-dispatch kernel trace rows (rocprofv3 --kernel-trace): ingest "
      "one into this run with 'kprof ingest DB FILE --run \"" +
          run.name + "\"'");
}

Capture load_capture(store::CaptureDb& db, std::optional<int64_t> run_id) {
  Capture cap;
  RunTrace rt = find_run_trace(db, run_id);
  cap.run = std::move(rt.run);
  cap.passes = std::move(rt.passes);
  const store::PassInfo* trace = &rt.trace;
  cap.trace = load_pass(db, *trace, cap.names);
  if (cap.trace.dispatches.empty()) no_dispatches(db, cap.run, trace->id);
  for (const auto& p : cap.passes) {
    if (p.kind != store::PassKind::counters) continue;
    auto pd = load_pass(db, p, cap.names);
    if (!pd.dispatches.empty()) cap.counters.push_back(std::move(pd));
  }
  for (const auto& a : db.agents(trace->id)) {
    if (a.type != "GPU") continue;
    if (a.logical_node_id == cap.trace.dispatches.front().agent ||
        a.node_id == cap.trace.dispatches.front().agent || cap.arch.empty()) {
      cap.arch = a.name;
      cap.product = a.product_name;
      if (a.wave_front_size > 0) cap.wave_size = static_cast<int>(a.wave_front_size);
    }
  }
  return cap;
}

bool joins_current(store::CaptureDb& db, const Capture& cap) {
  auto& sql = db.sql();
  if (!has_table(sql, "analysis_join_passes") || !has_table(sql, "analysis_join_checks"))
    return cap.counters.empty();
  for (const auto& c : cap.counters) {
    SQLite::Statement chk(sql, "SELECT 1 FROM analysis_join_checks WHERE counter_pass_id = ?");
    chk.bind(1, c.pass_id);
    if (!chk.executeStep()) return false;
    SQLite::Statement q(sql,
                        "SELECT counter_dispatches, trace_dispatches, trace_pass_id FROM "
                        "analysis_join_passes WHERE counter_pass_id = ?");
    q.bind(1, c.pass_id);
    if (!q.executeStep()) return false;
    if (q.getColumn(0).getInt64() != static_cast<int64_t>(c.dispatches.size()) ||
        q.getColumn(1).getInt64() != static_cast<int64_t>(cap.trace.dispatches.size()) ||
        q.getColumn(2).getInt64() != cap.trace.pass_id)
      return false;
  }
  return true;
}

namespace {

// The self-check's bound: one step of the trace when steps are established, else a twentieth of
// the trace (at least 64 dispatches).
int64_t join_jump_bound(const Capture& cap) {
  if (cap.counters.empty()) return 0;
  const PhaseModel pm = detect_phases(cap.trace, &cap.names);
  return pm.step_period > 0
             ? static_cast<int64_t>(pm.step_period)
             : std::max<int64_t>(64, static_cast<int64_t>(cap.trace.dispatches.size()) / 20);
}

JoinSummary summarize(const Capture& cap, const PassData& c, const JoinResult& r) {
  JoinSummary s;
  s.counter_pass_id = c.pass_id;
  s.ordinal = c.ordinal;
  s.trace_pass_id = cap.trace.pass_id;
  s.counter_dispatches = static_cast<int64_t>(c.dispatches.size());
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
  return s;
}

// Replaces the stored mapping of one counter pass (the caller holds the transaction).
void store_join(SQLite::Database& sql, const Capture& cap, const PassData& c, const JoinResult& r) {
  for (const char* table :
       {"analysis_join", "analysis_unmatched", "analysis_join_passes", "analysis_join_checks"}) {
    SQLite::Statement del(sql, std::string("DELETE FROM ") + table + " WHERE counter_pass_id = ?");
    del.bind(1, c.pass_id);
    del.exec();
  }
  SQLite::Statement ins(sql, "INSERT INTO analysis_join VALUES (?, ?, ?, ?, ?, ?)");
  for (const auto& m : r.matches) {
    ins.bind(1, c.pass_id);
    ins.bind(2, m.counter.pid);
    ins.bind(3, m.counter.dispatch_id);
    ins.bind(4, cap.trace.pass_id);
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
  sum.bind(2, cap.trace.pass_id);
  sum.bind(3, static_cast<int64_t>(c.dispatches.size()));
  sum.bind(4, static_cast<int64_t>(cap.trace.dispatches.size()));
  sum.bind(5, static_cast<int64_t>(r.trace_considered));
  sum.bind(6, static_cast<int64_t>(r.matches.size()));
  sum.bind(7, r.matched_share());
  sum.bind(8, r.filtered ? 1 : 0);
  sum.bind(9, static_cast<int64_t>(r.streams.size()));
  sum.bind(10, store::now_unix_ms());
  sum.exec();
  SQLite::Statement ck(sql, "INSERT INTO analysis_join_checks VALUES (?, ?, ?, ?, ?, ?, ?)");
  ck.bind(1, c.pass_id);
  ck.bind(2, r.method);
  ck.bind(3, r.monotone ? 1 : 0);
  ck.bind(4, r.jump_bound);
  ck.bind(5, r.jumps);
  ck.bind(6, r.max_jump);
  ck.bind(7, r.reliable() ? 1 : 0);
  ck.exec();
}

}  // namespace

std::vector<JoinSummary> ensure_joins(store::CaptureDb& db, const Capture& cap) {
  auto& sql = db.sql();
  const int64_t jump_bound = join_jump_bound(cap);
  const bool has_tables = has_table(sql, "analysis_join_passes") &&
                          has_table(sql, "analysis_join_checks") &&
                          has_table(sql, "analysis_join") && has_table(sql, "analysis_unmatched");
  // The stale passes are joined first (reads only); then the analysis tables and every new
  // mapping are written in one transaction: a failure or a kill leaves the joins as they were.
  std::vector<std::pair<const PassData*, JoinResult>> stale;
  for (const auto& c : cap.counters) {
    if (has_tables) {
      SQLite::Statement chk(sql, "SELECT 1 FROM analysis_join_checks WHERE counter_pass_id = ?");
      chk.bind(1, c.pass_id);
      const bool checked = chk.executeStep();
      SQLite::Statement q(sql,
                          "SELECT counter_dispatches, trace_dispatches, trace_pass_id FROM "
                          "analysis_join_passes WHERE counter_pass_id = ?");
      q.bind(1, c.pass_id);
      if (q.executeStep() &&
          q.getColumn(0).getInt64() == static_cast<int64_t>(c.dispatches.size()) &&
          q.getColumn(1).getInt64() == static_cast<int64_t>(cap.trace.dispatches.size()) &&
          q.getColumn(2).getInt64() == cap.trace.pass_id &&
          stored_count(sql, c.pass_id) == static_cast<int64_t>(c.dispatches.size()) && checked)
        continue;
    }
    stale.emplace_back(&c, join_pass(cap.trace, c, jump_bound));
  }
  {
    store::WriteTransaction tx(db);
    sql.exec(analysis_schema_sql());
    for (const auto& [c, r] : stale) store_join(sql, cap, *c, r);
    tx.commit();
  }
  return read_joins(db, cap);
}

ComputedJoins compute_joins(const Capture& cap) {
  ComputedJoins out;
  const int64_t jump_bound = join_jump_bound(cap);
  for (const auto& c : cap.counters) {
    JoinResult r = join_pass(cap.trace, c, jump_bound);
    out.summaries.push_back(summarize(cap, c, r));
    out.results.emplace(c.pass_id, std::move(r));
  }
  return out;
}

bool try_store_joins(store::CaptureDb& db, const Capture& cap, const ComputedJoins& joins) {
  auto& sql = db.sql();
  // Never wait for another writer: a `kprof run` or `kprof ingest` holding the write lock makes
  // BEGIN IMMEDIATE fail with SQLITE_BUSY at once when the busy timeout is 0
  // (https://sqlite.org/lang_transaction.html, https://sqlite.org/c3ref/busy_timeout.html).
  sql.setBusyTimeout(0);
  try {
    SQLite::Transaction tx(sql, SQLite::TransactionBehavior::IMMEDIATE);
    sql.exec(analysis_schema_sql());
    for (const auto& c : cap.counters) {
      auto it = joins.results.find(c.pass_id);
      if (it != joins.results.end()) store_join(sql, cap, c, it->second);
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    if ((e.getErrorCode() & 0xff) == SQLITE_BUSY) return false;
    throw;
  }
  return true;
}

std::vector<JoinSummary> read_joins(store::CaptureDb& db, const Capture& cap) {
  std::vector<JoinSummary> out;
  auto& sql = db.sql();
  if (!has_table(sql, "analysis_join_passes")) return out;
  for (const auto& c : cap.counters) {
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
    if (has_table(sql, "analysis_join_checks")) {
      SQLite::Statement ck(sql,
                           "SELECT method, monotone, jump_bound, jumps, max_jump, reliable FROM "
                           "analysis_join_checks WHERE counter_pass_id = ?");
      ck.bind(1, c.pass_id);
      if (ck.executeStep()) {
        s.method = ck.getColumn(0).getString();
        s.monotone = ck.getColumn(1).getInt() != 0;
        s.jump_bound = ck.getColumn(2).getInt64();
        s.jumps = ck.getColumn(3).getInt64();
        s.max_jump = ck.getColumn(4).getInt64();
        s.reliable = ck.getColumn(5).getInt() != 0;
      }
    }
    out.push_back(s);
  }
  return out;
}

std::string join_check_text(const JoinSummary& j) {
  std::string out = j.method == "by_id"
                        ? "matched by Dispatch_Id: the trace's own invocation (same ids, pids and "
                          "times)"
                        : "aligned by launch order: another run of the application";
  if (!j.reliable) {
    out += "; UNRELIABLE: ";
    if (!j.monotone) out += "matches leave program order; ";
    if (j.jumps > 0)
      out += std::to_string(j.jumps) + " match(es) skip more than " + std::to_string(j.jump_bound) +
             " trace dispatches (one step) beyond the counter " + "pass's own gap, up to " +
             std::to_string(j.max_jump) +
             ": its counters are not used for metrics (--force-join uses them)";
  }
  return out;
}

namespace {
using DispatchKey = std::pair<int64_t, int64_t>;  // (pid, dispatch id)

// Trace dispatch index by (pid, dispatch id).
std::map<DispatchKey, size_t> trace_index_of(const Capture& cap) {
  std::map<DispatchKey, size_t> index;
  for (size_t i = 0; i < cap.trace.dispatches.size(); ++i) {
    const auto& d = cap.trace.dispatches[i];
    index[{d.pid, d.dispatch_id}] = i;
  }
  return index;
}

// Appends counter pass `pass_id`'s values to the trace dispatches `to_trace` maps them onto. Each
// counter-side dispatch is one launch; a trace dispatch that gets two launches of one pass marks
// repeated_launches (rotated or replayed passes).
void attach_counters(store::CaptureDb& db, int64_t pass_id,
                     const std::map<DispatchKey, size_t>& to_trace, int64_t& next_launch,
                     JoinedCounters& jc) {
  std::map<DispatchKey, int64_t> launch_ids;
  db.for_each_counter(pass_id, [&](const store::CounterRow& r) {
    auto it = to_trace.find({r.pid, r.dispatch_id});
    if (it == to_trace.end()) return;
    const auto [l, fresh] = launch_ids.try_emplace({r.pid, r.dispatch_id}, next_launch);
    if (fresh) ++next_launch;
    auto& samples = jc.by_dispatch[it->second];
    if (!samples.empty() && samples.back().pass_id == pass_id && samples.back().launch != l->second)
      jc.repeated_launches = true;
    samples.push_back({jc.counters.intern(r.counter), r.value, pass_id, l->second});
  });
}

void exclude_unreliable(const std::vector<JoinSummary>& joins, bool use_unreliable,
                        std::set<int64_t>& excluded, JoinedCounters& jc) {
  if (!use_unreliable)
    for (const auto& j : joins)
      if (!j.reliable) excluded.insert(j.counter_pass_id);
  jc.excluded_passes.assign(excluded.begin(), excluded.end());
}
}  // namespace

JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap, bool use_unreliable) {
  JoinedCounters jc;
  jc.by_dispatch.resize(cap.trace.dispatches.size());
  auto& sql = db.sql();
  if (!has_table(sql, "analysis_join")) return jc;
  std::set<int64_t> excluded;
  exclude_unreliable(read_joins(db, cap), use_unreliable, excluded, jc);
  int64_t next_launch = 0;
  const auto trace_index = trace_index_of(cap);
  for (const auto& c : cap.counters) {
    if (excluded.count(c.pass_id)) continue;
    std::map<DispatchKey, size_t> to_trace;
    SQLite::Statement q(sql,
                        "SELECT counter_pid, counter_dispatch_id, trace_pid, trace_dispatch_id "
                        "FROM analysis_join WHERE counter_pass_id = ? AND trace_pass_id = ?");
    q.bind(1, c.pass_id);
    q.bind(2, cap.trace.pass_id);
    while (q.executeStep()) {
      auto it = trace_index.find({q.getColumn(2).getInt64(), q.getColumn(3).getInt64()});
      if (it != trace_index.end())
        to_trace[{q.getColumn(0).getInt64(), q.getColumn(1).getInt64()}] = it->second;
    }
    attach_counters(db, c.pass_id, to_trace, next_launch, jc);
  }
  return jc;
}

JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap,
                                    const ComputedJoins& joins, bool use_unreliable) {
  JoinedCounters jc;
  jc.by_dispatch.resize(cap.trace.dispatches.size());
  std::set<int64_t> excluded;
  exclude_unreliable(joins.summaries, use_unreliable, excluded, jc);
  int64_t next_launch = 0;
  const auto trace_index = trace_index_of(cap);
  for (const auto& c : cap.counters) {
    auto res = joins.results.find(c.pass_id);
    if (excluded.count(c.pass_id) || res == joins.results.end()) continue;
    std::map<DispatchKey, size_t> to_trace;
    for (const auto& m : res->second.matches) {
      auto it = trace_index.find({m.trace.pid, m.trace.dispatch_id});
      if (it != trace_index.end()) to_trace[{m.counter.pid, m.counter.dispatch_id}] = it->second;
    }
    attach_counters(db, c.pass_id, to_trace, next_launch, jc);
  }
  return jc;
}

}  // namespace kprof::analysis
