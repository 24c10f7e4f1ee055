// Counter values joined onto trace dispatches, streamed (joined_stream.hpp).
#include "core/analysis/join/joined_stream.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "core/base/error.hpp"

namespace kprof::analysis {

JoinedCounterStream::JoinedCounterStream(store::CaptureDb& db, const RunCounts& counts,
                                         bool use_unreliable)
    : m_db(&db) {
  if (counts.counters.empty()) return;
  std::set<int64_t> excluded;
  if (!use_unreliable)
    for (const auto& j : read_joins(db, counts))
      if (!j.reliable) excluded.insert(j.counter_pass_id);
  m_excluded.assign(excluded.begin(), excluded.end());
  std::vector<int64_t> passes;
  for (const auto& c : counts.counters) {
    if (excluded.count(c.pass_id)) continue;
    passes.push_back(c.pass_id);
    // The passes' ordinals, for the order of one dispatch's samples (take).
    m_ordinal[c.pass_id] = c.ordinal;
  }
  if (passes.empty()) return;
  // Rows come in the trace's (pid, Dispatch_Id) order (store::JoinedValueReader says why not
  // sorted further); take puts each trace dispatch's few rows in the order of (pass ordinal,
  // counter pid, counter Dispatch_Id, counter name) itself.
  m_q = std::make_unique<store::JoinedValueReader>(db, counts.trace.pass_id, passes);
  m_row = m_q->next(m_cur);
}

JoinedCounterStream::~JoinedCounterStream() = default;

std::vector<CounterSample> JoinedCounterStream::take(int64_t pid, int64_t dispatch_id,
                                                     NameTable& names) {
  std::vector<CounterSample> out;
  const std::pair<int64_t, int64_t> want{pid, dispatch_id};
  auto key = [&] { return std::pair<int64_t, int64_t>{m_cur.trace_pid, m_cur.trace_dispatch_id}; };
  while (m_row && key() < want) m_row = m_q->next(m_cur);
  if (m_names != &names) m_ids.clear(), m_names = &names;
  m_rows.clear();
  while (m_row && key() == want) {
    Row r;
    r.pass = m_cur.counter_pass_id;
    r.ordinal = m_ordinal.at(r.pass);
    r.pid = m_cur.counter_pid;
    r.dispatch = m_cur.counter_dispatch_id;
    // The name is read and interned once per counter (strings.id), not on every row.
    auto [id, added] = m_ids.try_emplace(m_cur.counter_id, 0);
    if (added) {
      const auto name = m_db->string_by_id(id->first);
      if (!name)
        throw Error::runtime("counter value of pass " + std::to_string(r.pass) +
                                 " names counter id " + std::to_string(id->first) +
                                 ", which the strings table does not hold",
                             "the database is damaged: ingest that pass again (kprof ingest "
                             "--replace) or run `sqlite3 DB 'PRAGMA integrity_check'`");
      id->second = names.intern(*name);
    }
    r.counter = id->second;
    r.value = m_cur.value;
    m_rows.push_back(r);
    m_row = m_q->next(m_cur);
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
