// Counter values joined onto trace dispatches, streamed (joined_stream.hpp).
#include "core/analysis/joined_stream.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "core/base/error.hpp"

namespace kprof::analysis {

JoinedCounterStream::JoinedCounterStream(store::CaptureDb& db, const RunCounts& counts,
                                         bool use_unreliable) {
  if (counts.counters.empty() || !detail::has_table(db, "analysis_join")) return;
  std::set<int64_t> excluded;
  if (!use_unreliable)
    for (const auto& j : read_joins(db, counts))
      if (!j.reliable) excluded.insert(j.counter_pass_id);
  m_excluded.assign(excluded.begin(), excluded.end());
  std::vector<int64_t> passes;
  std::string in;
  for (const auto& c : counts.counters) {
    if (excluded.count(c.pass_id)) continue;
    passes.push_back(c.pass_id);
    in += in.empty() ? "?" : ", ?";
  }
  if (passes.empty()) return;
  // The passes' ordinals, for the order of one dispatch's samples (take).
  SQLite::Statement ord(db.sql(), "SELECT id, ordinal FROM passes WHERE id IN (" + in + ")");
  for (size_t i = 0; i < passes.size(); ++i) ord.bind(static_cast<int>(i) + 1, passes[i]);
  while (ord.executeStep()) m_ordinal[ord.getColumn(0).getInt64()] = ord.getColumn(1).getInt64();
  // The mapping is read through its trace index (analysis_join_by_trace), so rows come in the
  // trace's (pid, Dispatch_Id) order with no sort at all ("SEARCH j USING COVERING INDEX"); take
  // puts each trace dispatch's few rows in the order of (pass ordinal, counter pid, counter
  // Dispatch_Id, counter name) itself. Letting SQLite do that (ORDER BY over passes and strings
  // joined in, "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY") cost 2.1 CPU s at 1M dispatches
  // with 4 counters each, 0.8 s without (sqlite3 shell). The unary + keeps the planner from
  // starting at the counter passes' primary key instead, which would sort every joined value at
  // once (https://www.sqlite.org/optoverview.html, "Disqualifying WHERE clause terms using
  // unary-+").
  m_q = std::make_unique<SQLite::Statement>(
      db.sql(),
      "SELECT j.trace_pid, j.trace_dispatch_id, j.counter_pass_id, j.counter_pid, "
      "j.counter_dispatch_id, c.counter_id, c.value "
      "FROM analysis_join j "
      "JOIN counter_values c ON c.pass_id = j.counter_pass_id AND c.pid = j.counter_pid "
      "AND c.dispatch_id = j.counter_dispatch_id "
      "WHERE j.trace_pass_id = ? AND +j.counter_pass_id IN (" +
          in + ") ORDER BY j.trace_pid, j.trace_dispatch_id");
  m_name = std::make_unique<SQLite::Statement>(db.sql(), "SELECT value FROM strings WHERE id = ?");
  int k = 1;
  m_q->bind(k++, counts.trace.pass_id);
  for (int64_t p : passes) m_q->bind(k++, p);
  m_row = m_q->executeStep();
}

JoinedCounterStream::~JoinedCounterStream() = default;

std::vector<CounterSample> JoinedCounterStream::take(int64_t pid, int64_t dispatch_id,
                                                     NameTable& names) {
  std::vector<CounterSample> out;
  const std::pair<int64_t, int64_t> want{pid, dispatch_id};
  auto key = [&] {
    return std::pair<int64_t, int64_t>{m_q->getColumn(0).getInt64(), m_q->getColumn(1).getInt64()};
  };
  while (m_row && key() < want) m_row = m_q->executeStep();
  if (m_names != &names) m_ids.clear(), m_names = &names;
  m_rows.clear();
  while (m_row && key() == want) {
    Row r;
    r.pass = m_q->getColumn(2).getInt64();
    r.ordinal = m_ordinal.at(r.pass);
    r.pid = m_q->getColumn(3).getInt64();
    r.dispatch = m_q->getColumn(4).getInt64();
    // The name is read and interned once per counter (strings.id), not on every row.
    auto [id, added] = m_ids.try_emplace(m_q->getColumn(5).getInt64(), 0);
    if (added) {
      m_name->reset();
      m_name->bind(1, id->first);
      if (!m_name->executeStep())
        throw Error::runtime("counter value of pass " + std::to_string(r.pass) +
                                 " names counter id " + std::to_string(id->first) +
                                 ", which the strings table does not hold",
                             "the database is damaged: ingest that pass again (kprof ingest "
                             "--replace) or run `sqlite3 DB 'PRAGMA integrity_check'`");
      id->second = names.intern(m_name->getColumn(0).getString());
    }
    r.counter = id->second;
    r.value = m_q->getColumn(6).getDouble();
    m_rows.push_back(r);
    m_row = m_q->executeStep();
  }
  // The order the stream promises (passes by ordinal; counter-side (pid, Dispatch_Id); counter
  // name, compared as SQLite's BINARY collation does: bytes, then length). The key is unique: a
  // counter dispatch is joined once and holds one value per counter.
  std::sort(m_rows.begin(), m_rows.end(), [&](const Row& a, const Row& b) {
    if (a.ordinal != b.ordinal) return a.ordinal < b.ordinal;
    if (a.pass != b.pass) return a.pass < b.pass;
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.dispatch != b.dispatch) return a.dispatch < b.dispatch;
    return names.name(a.counter) < names.name(b.counter);
  });
  // Counter-side dispatches of this trace dispatch, numbered in that order.
  out.reserve(m_rows.size());
  int64_t launches = 0;
  for (size_t i = 0; i < m_rows.size(); ++i) {
    const Row& r = m_rows[i];
    if (i > 0 && (r.pass != m_rows[i - 1].pass || r.pid != m_rows[i - 1].pid ||
                  r.dispatch != m_rows[i - 1].dispatch))
      ++launches;
    out.push_back({r.counter, r.value, r.pass, launches});
  }
  return out;
}

}  // namespace kprof::analysis
