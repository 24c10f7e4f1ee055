// The analysis' reads of a pass (analysis_reads.hpp).
#include "core/store/analysis_reads.hpp"

#include <map>
#include <unordered_map>
#include <utility>

#include "core/store/bulk_insert.hpp"
#include "core/store/row_read.hpp"

namespace kprof::store {

void for_each_kernel_variant(CaptureDb& db, int64_t pass_id,
                             const std::function<void(const KernelVariant&)>& fn) {
  guarded(db, "reading kernel variants", [&] {
    // The variant's own columns after its id (select_sql lists the table's in order).
    const std::string select =
        columns::select_sql(columns::kernel_variants, "WHERE t.pass_id = ? ORDER BY t.id");
    SQLite::Statement q(db.sql(), "SELECT t.id, " + select.substr(std::string("SELECT ").size()));
    q.bind(1, pass_id);
    KernelVariant v;
    while (q.executeStep()) {
      v.id = q.getColumn(0).getInt64();
      columns::read_row(q, columns::kernel_variants, v.shape, 1);
      fn(v);
    }
  });
}

// Read through SQLite's own calls (BulkStmt, row_read.hpp): a million rows per trace pass.
struct DispatchTimingReader::Impl {
  Impl(CaptureDb& db, int64_t pass_id)
      : q(db.sql().getHandle(),
          columns::select_sql(columns::dispatch_timings,
                              "WHERE t.pass_id = ? ORDER BY t.pid, t.dispatch_id")
              .c_str()) {
    q.bind(1, pass_id);
  }
  BulkStmt q;
  bool done = false;  // step_row reset the statement: another step would start over
};

DispatchTimingReader::DispatchTimingReader(CaptureDb& db, int64_t pass_id)
    : m_impl(
          guarded(db, "reading dispatches", [&] { return std::make_unique<Impl>(db, pass_id); })) {}
DispatchTimingReader::~DispatchTimingReader() = default;

bool DispatchTimingReader::next(DispatchTiming& row) {
  if (m_impl->done) return false;
  if (!m_impl->q.step_row()) {
    m_impl->done = true;
    return false;
  }
  columns::read_row(m_impl->q.get(), columns::dispatch_timings, row);
  return true;
}

void for_each_rank_timing(CaptureDb& db, int64_t pass_id, int64_t pid, int64_t agent,
                          const std::function<void(const DispatchTiming&)>& fn) {
  guarded(db, "reading a rank's dispatches", [&] {
    SQLite::Statement q(db.sql(),
                        columns::select_sql(columns::dispatch_timings,
                                            "WHERE t.pass_id = ? AND t.pid = ? AND t.agent = ? "
                                            "ORDER BY t.start_ns, t.end_ns, t.dispatch_id"));
    q.bind(1, pass_id);
    q.bind(2, pid);
    q.bind(3, agent);
    DispatchTiming row;
    while (q.executeStep()) {
      columns::read_row(q, columns::dispatch_timings, row);
      fn(row);
    }
  });
}

std::vector<KernelNameTotal> kernel_name_totals(CaptureDb& db, int64_t pass_id) {
  // Summed here, per variant id, over one scan of the narrow rows: SQLite's GROUP BY sorts every
  // row in a temporary B-tree first (EXPLAIN QUERY PLAN: "USE TEMP B-TREE FOR GROUP BY"), 0.53 s
  // at 1M dispatches in the sqlite3 shell against 0.22 s for the scan alone.
  std::unordered_map<int64_t, std::pair<int64_t, int64_t>> by_variant;  // calls, ns
  guarded(db, "summing kernel durations", [&] {
    SQLite::Statement q(
        db.sql(), "SELECT variant_id, end_ns - start_ns FROM dispatch_rows WHERE pass_id = ?");
    q.bind(1, pass_id);
    while (q.executeStep()) {
      auto& t = by_variant[q.getColumn(0).getInt64()];
      t.first += 1;
      t.second += q.getColumn(1).getInt64();
    }
  });
  std::map<std::string, KernelNameTotal> by_name;
  for_each_kernel_variant(db, pass_id, [&](const KernelVariant& v) {
    const auto it = by_variant.find(v.id);
    if (it == by_variant.end()) return;  // a variant no dispatch launched
    auto& t = by_name[v.shape.kernel_name];
    t.calls += it->second.first;
    t.total_ns += it->second.second;
  });
  std::vector<KernelNameTotal> out;
  out.reserve(by_name.size());
  for (auto& [name, t] : by_name) out.push_back({name, t.calls, t.total_ns});
  return out;
}

void for_each_variant_launch(CaptureDb& db, int64_t pass_id, const std::vector<int64_t>& only,
                             const std::function<void(int64_t variant_id)>& fn) {
  if (only.empty()) return;
  guarded(db, "reading the launch sequence", [&] {
    // The ids are integers from the database, written into the statement (a set of a few
    // variants; SQLite's IN list is then a small ephemeral index tried per index entry).
    std::string in;
    for (const int64_t v : only) in += (in.empty() ? "" : ",") + std::to_string(v);
    SQLite::Statement q(db.sql(),
                        "SELECT variant_id FROM dispatch_rows WHERE pass_id = ? AND "
                        "variant_id IN (" +
                            in + ") ORDER BY pid, dispatch_id");
    q.bind(1, pass_id);
    while (q.executeStep()) fn(q.getColumn(0).getInt64());
  });
}

int64_t dispatch_count(CaptureDb& db, int64_t pass_id) {
  return guarded(db, "counting dispatches", [&] {
    SQLite::Statement n(db.sql(), "SELECT count(*) FROM dispatch_rows WHERE pass_id = ?");
    n.bind(1, pass_id);
    n.executeStep();
    return n.getColumn(0).getInt64();
  });
}

void for_each_variant_duration(CaptureDb& db, int64_t pass_id,
                               const std::function<void(int64_t, int64_t)>& fn) {
  guarded(db, "reading dispatch durations", [&] {
    SQLite::Statement q(db.sql(),
                        "SELECT variant_id, max(end_ns - start_ns, 0) FROM dispatch_rows "
                        "WHERE pass_id = ?");
    q.bind(1, pass_id);
    while (q.executeStep()) fn(q.getColumn(0).getInt64(), q.getColumn(1).getInt64());
  });
}

std::vector<DispatchStream> dispatch_streams(CaptureDb& db, int64_t pass_id) {
  return guarded(db, "counting dispatch streams", [&] {
    // The loader counts each pass's rows per (pid, agent) into pass_processes as it stores them
    // (PassLoader::commit; schema 10 counted the rows of databases made before), so these are
    // the counts a GROUP BY over dispatch_rows gives, without its scan and sort of every row
    // (0.2 s of `kprof ingest`'s CPU at 1M dispatches).
    SQLite::Statement q(db.sql(),
                        "SELECT pid, agent, dispatches FROM pass_processes WHERE pass_id = ? "
                        "ORDER BY pid, agent");
    q.bind(1, pass_id);
    std::vector<DispatchStream> out;
    while (q.executeStep())
      out.push_back(
          {q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()});
    return out;
  });
}

std::vector<JoinedCounterSum> joined_counter_sums(CaptureDb& db, int64_t counter_pass_id,
                                                  int64_t trace_pass_id) {
  return guarded(db, "summing joined counter values", [&] {
    // Both tables are read once in their primary keys' order, (pid, Dispatch_Id) of the counter
    // pass ("SEARCH ... USING PRIMARY KEY (pass_id=?)", no sort), and merged here; the few
    // counters are summed per id, their names read once each. The SQL join (`GROUP BY
    // c.counter_id`) sought the mapping once per value, looked the name up on every row and sorted
    // every joined value in a temporary B-tree: `kprof query DB counters` took 3.6 CPU s at 1M
    // trace dispatches with 3.3M joined values, 0.8 s with this.
    // Read through SQLite's own calls (BulkStmt): SQLiteCpp's getColumn copies a shared pointer
    // to the statement on every call, over millions of values.
    BulkStmt j(db.sql().getHandle(),
               "SELECT counter_pid, counter_dispatch_id FROM analysis_join "
               "WHERE counter_pass_id = ? AND trace_pass_id = ? "
               "ORDER BY counter_pid, counter_dispatch_id");
    j.bind(1, counter_pass_id);
    j.bind(2, trace_pass_id);
    BulkStmt c(db.sql().getHandle(),
               "SELECT pid, dispatch_id, counter_id, value FROM counter_values "
               "WHERE pass_id = ? ORDER BY pid, dispatch_id");
    c.bind(1, counter_pass_id);
    std::map<int64_t, JoinedCounterSum> by_id;
    using Key = std::pair<int64_t, int64_t>;
    sqlite3_stmt* const js = j.get();
    sqlite3_stmt* const cs = c.get();
    bool more = j.step_row();
    Key matched = more ? Key{sqlite3_column_int64(js, 0), sqlite3_column_int64(js, 1)} : Key{};
    JoinedCounterSum* last = nullptr;
    int64_t last_id = 0;
    while (more && c.step_row()) {
      const Key k{sqlite3_column_int64(cs, 0), sqlite3_column_int64(cs, 1)};
      while (more && matched < k)
        if ((more = j.step_row()))
          matched = {sqlite3_column_int64(js, 0), sqlite3_column_int64(js, 1)};
      if (!more || matched != k) continue;
      const int64_t id = sqlite3_column_int64(cs, 2);
      const double v = sqlite3_column_double(cs, 3);
      if (!last || id != last_id) last = &by_id[id], last_id = id;
      JoinedCounterSum& a = *last;
      if (a.values == 0 || v < a.min) a.min = v;
      if (a.values == 0 || v > a.max) a.max = v;
      ++a.values;
      a.sum += v;
    }
    std::vector<JoinedCounterSum> out;
    SQLite::Statement name(db.sql(), "SELECT value FROM strings WHERE id = ?");
    for (auto& [id, a] : by_id) {
      name.reset();
      name.bind(1, id);
      if (!name.executeStep()) continue;  // as the inner join with strings dropped it
      a.counter = name.getColumn(0).getString();
      out.push_back(std::move(a));
    }
    return out;
  });
}

struct JoinedValueReader::Impl {
  // The mapping is read through its trace index (analysis_join_by_trace), so rows come in the
  // trace's (pid, Dispatch_Id) order with no sort at all ("SEARCH j USING COVERING INDEX"); the
  // caller orders each trace dispatch's few rows itself. Letting SQLite do that (ORDER BY over
  // passes and strings joined in, "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY") cost 2.1 CPU s at
  // 1M dispatches with 4 counters each, 0.8 s without (sqlite3 shell). The unary + keeps the
  // planner from starting at the counter passes' primary key instead, which would sort every
  // joined value at once (https://www.sqlite.org/optoverview.html, "Disqualifying WHERE clause
  // terms using unary-+").
  Impl(CaptureDb& db, int64_t trace_pass_id, const std::vector<int64_t>& passes)
      : q(db.sql(), sql(passes.size())) {
    int k = 1;
    q.bind(k++, trace_pass_id);
    for (int64_t p : passes) q.bind(k++, p);
  }
  static std::string sql(size_t passes) {
    std::string in;
    for (size_t i = 0; i < passes; ++i) in += i ? ", ?" : "?";
    return "SELECT j.trace_pid, j.trace_dispatch_id, j.counter_pass_id, j.counter_pid, "
           "j.counter_dispatch_id, c.counter_id, c.value "
           "FROM analysis_join j "
           "JOIN counter_values c ON c.pass_id = j.counter_pass_id AND c.pid = j.counter_pid "
           "AND c.dispatch_id = j.counter_dispatch_id "
           "WHERE j.trace_pass_id = ? AND +j.counter_pass_id IN (" +
           in + ") ORDER BY j.trace_pid, j.trace_dispatch_id";
  }
  SQLite::Statement q;
};

JoinedValueReader::JoinedValueReader(CaptureDb& db, int64_t trace_pass_id,
                                     const std::vector<int64_t>& counter_pass_ids)
    : m_impl(guarded(db, "reading joined counter values",
                     [&] { return std::make_unique<Impl>(db, trace_pass_id, counter_pass_ids); })) {
}
JoinedValueReader::~JoinedValueReader() = default;

bool JoinedValueReader::next(JoinedValue& r) {
  auto& q = m_impl->q;
  if (!q.executeStep()) return false;
  r.trace_pid = q.getColumn(0).getInt64();
  r.trace_dispatch_id = q.getColumn(1).getInt64();
  r.counter_pass_id = q.getColumn(2).getInt64();
  r.counter_pid = q.getColumn(3).getInt64();
  r.counter_dispatch_id = q.getColumn(4).getInt64();
  r.counter_id = q.getColumn(5).getInt64();
  r.value = q.getColumn(6).getDouble();
  return true;
}

}  // namespace kprof::store
