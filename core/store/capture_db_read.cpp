// CaptureDb: reading back what a pass holds, and clearing it.

#include "core/store/capture_db_impl.hpp"
#include "core/store/row_read.hpp"

namespace kprof::store {

namespace {

int64_t count_where_pass(SQLite::Database& db, const char* table, int64_t pass_id) {
  SQLite::Statement st(db, std::string("SELECT count(*) FROM ") + table + " WHERE pass_id = ?");
  st.bind(1, pass_id);
  st.executeStep();
  return st.getColumn(0).getInt64();
}

using columns::read_row;

// Streams the rows of `t` whose pass_id is `pass_id`, ordered by `order`, to `fn`, one reused Row
// at a time.
template <class Row, class Tbl>
void each_pass_row(SQLite::Database& db, const Tbl& t, const char* order, int64_t pass_id,
                   const std::function<void(const Row&)>& fn) {
  SQLite::Statement st(db, columns::select_sql(t, std::string("WHERE t.pass_id = ? ") + order));
  st.bind(1, pass_id);
  Row row;
  while (st.executeStep()) {
    read_row(st, t, row);
    fn(row);
  }
}

// All rows of `t` for a pass, for the small tables (agents, files, stats, copies, API calls).
template <class Row, class Tbl>
std::vector<Row> pass_rows(CaptureDb::Impl& impl, const char* doing, const Tbl& t,
                           const char* order, int64_t pass_id) {
  return guarded(impl, doing, [&] {
    std::vector<Row> out;
    each_pass_row<Row>(impl.db, t, order, pass_id, [&](const Row& r) { out.push_back(r); });
    return out;
  });
}

}  // namespace

// Children first: kernel_stats refers to ingest_stats, dispatch_rows to kernel_variants.
void delete_pass_rows(SQLite::Database& db, int64_t pass_id) {
  for (const char* table :
       {"counter_values", "dispatch_rows", "kernel_variants", "kernel_stats", "agents",
        "memory_copies", "memory_allocations", "api_calls", "ingest_stats", "pass_processes"}) {
    SQLite::Statement st(db, std::string("DELETE FROM ") + table + " WHERE pass_id = ?");
    st.bind(1, pass_id);
    st.exec();
  }
}

PassRowCounts CaptureDb::row_counts(int64_t pass_id) {
  return guarded(*m_impl, "counting a pass's rows", [&] {
    auto& db = m_impl->db;
    PassRowCounts c;
    c.agents = count_where_pass(db, "agents", pass_id);
    c.dispatches = count_where_pass(db, "dispatch_rows", pass_id);
    c.counter_values = count_where_pass(db, "counter_values", pass_id);
    c.kernel_stats = count_where_pass(db, "kernel_stats", pass_id);
    c.memory_copies = count_where_pass(db, "memory_copies", pass_id);
    c.memory_allocations = count_where_pass(db, "memory_allocations", pass_id);
    c.api_calls = count_where_pass(db, "api_calls", pass_id);
    c.ingest_files = count_where_pass(db, "ingest_stats", pass_id);
    return c;
  });
}

bool CaptureDb::has_dispatches(int64_t pass_id) {
  return guarded(*m_impl, "looking for a pass's dispatches", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT EXISTS (SELECT 1 FROM dispatch_rows WHERE pass_id = ?)");
    st.bind(1, pass_id);
    st.executeStep();
    return st.getColumn(0).getInt64() != 0;
  });
}

std::vector<IngestFileInfo> CaptureDb::ingest_files(int64_t pass_id) {
  return pass_rows<IngestFileInfo>(*m_impl, "reading ingest_stats", columns::ingest_stats,
                                   "ORDER BY t.id", pass_id);
}

std::vector<AgentRow> CaptureDb::agents(int64_t pass_id) {
  return pass_rows<AgentRow>(*m_impl, "reading agents", columns::agents, "ORDER BY t.node_id",
                             pass_id);
}

std::vector<KernelStatRow> CaptureDb::kernel_stats(int64_t pass_id) {
  return pass_rows<KernelStatRow>(*m_impl, "reading kernel_stats", columns::kernel_stats,
                                  "ORDER BY t.rowid", pass_id);
}

std::vector<KernelStatRow> CaptureDb::kernel_stats(int64_t pass_id, const std::string& file_kind) {
  return guarded(*m_impl, "reading kernel_stats", [&] {
    SQLite::Statement st(
        m_impl->db,
        columns::select_sql(columns::kernel_stats,
                            "WHERE t.pass_id = ? AND t.file_id IN (SELECT id FROM ingest_stats "
                            "WHERE pass_id = t.pass_id AND kind = ?) ORDER BY t.rowid"));
    st.bind(1, pass_id);
    st.bind(2, file_kind);
    std::vector<KernelStatRow> out;
    while (st.executeStep()) read_row(st, columns::kernel_stats, out.emplace_back());
    return out;
  });
}

void CaptureDb::for_each_dispatch(int64_t pass_id,
                                  const std::function<void(const DispatchRow&)>& fn) {
  guarded(*m_impl, "reading dispatches", [&] {
    each_pass_row(m_impl->db, columns::dispatches, "ORDER BY t.pid, t.dispatch_id", pass_id, fn);
  });
}

void CaptureDb::for_each_counter(int64_t pass_id,
                                 const std::function<void(const CounterRow&)>& fn) {
  guarded(*m_impl, "reading counter values", [&] {
    each_pass_row(m_impl->db, columns::counter_values,
                  "ORDER BY t.pid, t.dispatch_id, s_counter.value", pass_id, fn);
  });
}

std::vector<MemoryCopyRow> CaptureDb::memory_copies(int64_t pass_id) {
  return pass_rows<MemoryCopyRow>(*m_impl, "reading memory copies", columns::memory_copies,
                                  "ORDER BY t.rowid", pass_id);
}

std::vector<MemoryAllocationRow> CaptureDb::memory_allocations(int64_t pass_id) {
  return pass_rows<MemoryAllocationRow>(*m_impl, "reading memory allocations",
                                        columns::memory_allocations, "ORDER BY t.rowid", pass_id);
}

std::vector<ApiCallRow> CaptureDb::api_calls(int64_t pass_id) {
  return pass_rows<ApiCallRow>(*m_impl, "reading API calls", columns::api_calls, "ORDER BY t.rowid",
                               pass_id);
}

}  // namespace kprof::store
