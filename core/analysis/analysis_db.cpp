#include "core/analysis/analysis_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
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

// Reads a pass's launch configurations (kernel_variants, a few hundred) and then its narrow
// dispatch rows, reserved to the count so the vector is never reallocated (a grown vector holds
// up to twice its rows at the copy). Names are resolved once per variant, never per row.
PassData load_pass(store::CaptureDb& db, const store::PassInfo& p, NameTable& names) {
  PassData out;
  out.pass_id = p.id;
  out.ordinal = static_cast<int>(p.ordinal);
  out.kind = std::string(store::to_string(p.kind));
  auto& sql = db.sql();
  std::unordered_map<int64_t, uint32_t> shape_of;  // kernel_variants.id -> out.shapes index
  {
    SQLite::Statement q(sql,
                        "SELECT v.id, v.kernel_id, s.value, v.grid_x, v.grid_y, v.grid_z, v.wg_x, "
                        "v.wg_y, v.wg_z, v.lds, v.scratch, v.vgpr, v.agpr, v.sgpr "
                        "FROM kernel_variants v JOIN strings s ON s.id = v.kernel_name_id "
                        "WHERE v.pass_id = ? ORDER BY v.id");
    q.bind(1, p.id);
    auto opt_int = [&](int col) {
      const auto c = q.getColumn(col);
      return c.isNull() ? int64_t{-1} : c.getInt64();
    };
    while (q.executeStep()) {
      KernelShape s;
      s.kernel_id = q.getColumn(1).getInt64();
      s.name = names.intern(q.getColumn(2).getString());
      for (int i = 0; i < 3; ++i) s.grid[i] = q.getColumn(3 + i).getInt64();
      for (int i = 0; i < 3; ++i) s.wg[i] = q.getColumn(6 + i).getInt64();
      s.lds = q.getColumn(9).getInt64();
      s.scratch = q.getColumn(10).getInt64();
      s.vgpr = opt_int(11);
      s.agpr = opt_int(12);
      s.sgpr = opt_int(13);
      shape_of.emplace(q.getColumn(0).getInt64(), static_cast<uint32_t>(out.shapes.size()));
      out.shapes.push_back(s);
    }
  }
  {
    SQLite::Statement n(sql, "SELECT count(*) FROM dispatch_rows WHERE pass_id = ?");
    n.bind(1, p.id);
    if (n.executeStep()) out.dispatches.reserve(static_cast<size_t>(n.getColumn(0).getInt64()));
  }
  SQLite::Statement q(sql,
                      "SELECT dispatch_id, variant_id, pid, agent, queue_id, start_ns, end_ns "
                      "FROM dispatch_rows WHERE pass_id = ? ORDER BY pid, dispatch_id");
  q.bind(1, p.id);
  Lane last_lane{-1, -1};
  uint32_t last_lane_index = 0;
  while (q.executeStep()) {
    Dispatch d;
    d.dispatch_id = q.getColumn(0).getInt64();
    const auto shape = shape_of.find(q.getColumn(1).getInt64());
    if (shape == shape_of.end()) continue;  // the foreign key forbids it
    d.shape = shape->second;
    d.name = out.shapes[d.shape].name;
    const int64_t pid = q.getColumn(2).getInt64();
    if (pid < INT32_MIN || pid > INT32_MAX) {
      throw Error::input("pass " + std::to_string(p.ordinal) + " of " + db.path().string() +
                             " holds Process_Id " + std::to_string(pid) +
                             ", which no Linux process has (pid_max is at most 2^22)",
                         "re-ingest the pass from the profiler's own output files");
    }
    d.pid = static_cast<int32_t>(pid);
    const Lane lane{q.getColumn(3).getInt64(), q.getColumn(4).getInt64()};
    if (!(lane == last_lane)) {
      last_lane = lane;
      last_lane_index = out.intern(lane);
    }
    d.lane = last_lane_index;
    d.start_ns = q.getColumn(5).getInt64();
    d.end_ns = q.getColumn(6).getInt64();
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
    const int64_t agent = cap.trace.agent(cap.trace.dispatches.front());
    if (a.logical_node_id == agent || a.node_id == agent || cap.arch.empty()) {
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

// Trace dispatch index by (pid, dispatch id): a binary search over the dispatches, which the
// loader returns in that order (a hand-made capture in another order gets one sorted index), so
// no per-dispatch node is allocated.
class TraceIndex {
 public:
  explicit TraceIndex(const PassData& trace) : m_d(trace.dispatches) {
    bool sorted = true;
    for (size_t i = 1; i < m_d.size() && sorted; ++i) sorted = !(key(i) < key(i - 1));
    if (sorted) return;
    m_order.resize(m_d.size());
    for (size_t i = 0; i < m_order.size(); ++i) m_order[i] = static_cast<uint32_t>(i);
    std::sort(m_order.begin(), m_order.end(),
              [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  }
  std::optional<size_t> find(const DispatchKey& k) const {
    size_t lo = 0, hi = m_d.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (key(at(mid)) < k)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < m_d.size() && key(at(lo)) == k) return at(lo);
    return std::nullopt;
  }

 private:
  size_t at(size_t pos) const { return m_order.empty() ? pos : m_order[pos]; }
  DispatchKey key(size_t i) const { return {m_d[i].pid, m_d[i].dispatch_id}; }
  const std::vector<Dispatch>& m_d;
  std::vector<uint32_t> m_order;
};

// Counter-pass dispatch -> trace dispatch, sorted by the counter key for binary search; `launch`
// numbers each counter dispatch once it shows up with values.
struct CounterTarget {
  DispatchKey counter;
  size_t trace = 0;
  int64_t launch = -1;
  bool operator<(const CounterTarget& o) const { return counter < o.counter; }
};

// Appends counter pass `pass_id`'s values to the trace dispatches `to_trace` maps them onto. Each
// counter-side dispatch is one launch; a trace dispatch that gets two launches of one pass marks
// repeated_launches (rotated or replayed passes).
void attach_counters(store::CaptureDb& db, int64_t pass_id, std::vector<CounterTarget> to_trace,
                     int64_t& next_launch, JoinedCounters& jc) {
  std::sort(to_trace.begin(), to_trace.end());
  db.for_each_counter(pass_id, [&](const store::CounterRow& r) {
    const CounterTarget probe{{r.pid, r.dispatch_id}};
    auto it = std::lower_bound(to_trace.begin(), to_trace.end(), probe);
    if (it == to_trace.end() || it->counter != probe.counter) return;
    if (it->launch < 0) it->launch = next_launch++;
    auto& samples = jc.by_dispatch[it->trace];
    if (!samples.empty() && samples.back().pass_id == pass_id &&
        samples.back().launch != it->launch)
      jc.repeated_launches = true;
    samples.push_back({jc.counters.intern(r.counter), r.value, pass_id, it->launch});
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
  const TraceIndex trace_index(cap.trace);
  for (const auto& c : cap.counters) {
    if (excluded.count(c.pass_id)) continue;
    std::vector<CounterTarget> to_trace;
    SQLite::Statement q(sql,
                        "SELECT counter_pid, counter_dispatch_id, trace_pid, trace_dispatch_id "
                        "FROM analysis_join WHERE counter_pass_id = ? AND trace_pass_id = ?");
    q.bind(1, c.pass_id);
    q.bind(2, cap.trace.pass_id);
    while (q.executeStep()) {
      if (auto t = trace_index.find({q.getColumn(2).getInt64(), q.getColumn(3).getInt64()}))
        to_trace.push_back({{q.getColumn(0).getInt64(), q.getColumn(1).getInt64()}, *t});
    }
    attach_counters(db, c.pass_id, std::move(to_trace), next_launch, jc);
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
  const TraceIndex trace_index(cap.trace);
  for (const auto& c : cap.counters) {
    auto res = joins.results.find(c.pass_id);
    if (excluded.count(c.pass_id) || res == joins.results.end()) continue;
    std::vector<CounterTarget> to_trace;
    to_trace.reserve(res->second.matches.size());
    for (const auto& m : res->second.matches)
      if (auto t = trace_index.find({m.trace.pid, m.trace.dispatch_id}))
        to_trace.push_back({{m.counter.pid, m.counter.dispatch_id}, *t});
    attach_counters(db, c.pass_id, std::move(to_trace), next_launch, jc);
  }
  return jc;
}

}  // namespace kprof::analysis
