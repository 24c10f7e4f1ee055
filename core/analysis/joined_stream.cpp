// Counter values joined onto trace dispatches, streamed (joined_stream.hpp).
#include "core/analysis/joined_stream.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <set>
#include <string>
#include <utility>

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
  // The mapping is read through its trace index (analysis_join_by_trace), so rows come in the
  // trace's (pid, Dispatch_Id) order and SQLite sorts only each trace dispatch's few rows by the
  // rest of the ORDER BY ("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY",
  // https://www.sqlite.org/eqp.html). The unary + keeps the planner from starting at the counter
  // passes' primary key instead, which sorts every joined value at once
  // (https://www.sqlite.org/optoverview.html, "Disqualifying WHERE clause terms using unary-+").
  // Even that sort is bounded: past its cache the sorter spills to temporary files, which
  // Debian's build (SQLITE_TEMP_STORE=1) keeps on disk (https://www.sqlite.org/tempfiles.html).
  m_q = std::make_unique<SQLite::Statement>(
      db.sql(),
      "SELECT j.trace_pid, j.trace_dispatch_id, j.counter_pass_id, j.counter_pid, "
      "j.counter_dispatch_id, s.value, c.value, c.counter_id "
      "FROM analysis_join j JOIN passes p ON p.id = j.counter_pass_id "
      "JOIN counter_values c ON c.pass_id = j.counter_pass_id AND c.pid = j.counter_pid "
      "AND c.dispatch_id = j.counter_dispatch_id JOIN strings s ON s.id = c.counter_id "
      "WHERE j.trace_pass_id = ? AND +j.counter_pass_id IN (" +
          in +
          ") ORDER BY j.trace_pid, j.trace_dispatch_id, p.ordinal, j.counter_pid, "
          "j.counter_dispatch_id, s.value");
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
  // Counter-side dispatches of this trace dispatch, numbered as they come.
  std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> launches;
  while (m_row && key() == want) {
    const int64_t pass = m_q->getColumn(2).getInt64();
    const std::pair<int64_t, int64_t> from{m_q->getColumn(3).getInt64(),
                                           m_q->getColumn(4).getInt64()};
    int64_t launch = 0;
    while (launch < static_cast<int64_t>(launches.size()) &&
           launches[static_cast<size_t>(launch)] != std::make_pair(pass, from))
      ++launch;
    if (launch == static_cast<int64_t>(launches.size())) launches.emplace_back(pass, from);
    // The name is interned once per counter (strings.id), not read and looked up on every row.
    if (m_names != &names) m_ids.clear(), m_names = &names;
    auto [id, added] = m_ids.try_emplace(m_q->getColumn(7).getInt64(), 0);
    if (added) id->second = names.intern(m_q->getColumn(5).getString());
    out.push_back({id->second, m_q->getColumn(6).getDouble(), pass, launch});
    m_row = m_q->executeStep();
  }
  return out;
}

}  // namespace kprof::analysis
