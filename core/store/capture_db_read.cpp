// CaptureDb: reading back what a pass holds, and clearing it.

#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

namespace {

int64_t count_where_pass(SQLite::Database& db, const char* table, int64_t pass_id) {
  SQLite::Statement st(db, std::string("SELECT count(*) FROM ") + table + " WHERE pass_id = ?");
  st.bind(1, pass_id);
  st.executeStep();
  return st.getColumn(0).getInt64();
}

// One column into one field, by the field's type.
void get(const SQLite::Statement& st, int i, int64_t& v) { v = st.getColumn(i).getInt64(); }
void get(const SQLite::Statement& st, int i, double& v) { v = st.getColumn(i).getDouble(); }
void get(const SQLite::Statement& st, int i, std::string& v) { v = st.getColumn(i).getString(); }
void get(const SQLite::Statement& st, int i, bool& v) { v = st.getColumn(i).getInt64() != 0; }
void get(const SQLite::Statement& st, int i, std::optional<int64_t>& v) { v = column_opt(st, i); }

// The current row's columns 0, 1, ... into `fields` of `row`, in that order: each reader below
// lists its SELECT's columns once and the fields they fill once, side by side.
template <class Row, class... T>
void read_fields(const SQLite::Statement& st, Row& row, T Row::*... fields) {
  int i = 0;
  (get(st, i++, row.*fields), ...);
}

// Streams the rows of `sql` (its one parameter: the pass id) to `fn`, one reused Row at a time.
template <class Row, class... T>
void each_pass_row(SQLite::Database& db, const char* sql, int64_t pass_id,
                   const std::function<void(const Row&)>& fn, T Row::*... fields) {
  SQLite::Statement st(db, sql);
  st.bind(1, pass_id);
  Row row;
  while (st.executeStep()) {
    read_fields(st, row, fields...);
    fn(row);
  }
}

// All rows of `sql` for a pass, for the small tables (agents, files, stats, copies, API calls).
template <class Row, class... T>
std::vector<Row> pass_rows(CaptureDb::Impl& impl, const char* doing, const char* sql,
                           int64_t pass_id, T Row::*... fields) {
  return guarded(impl, doing, [&] {
    std::vector<Row> out;
    each_pass_row<Row>(
        impl.db, sql, pass_id, [&](const Row& r) { out.push_back(r); }, fields...);
    return out;
  });
}

}  // namespace

// Children first: kernel_stats refers to ingest_stats, dispatch_rows to kernel_variants.
void delete_pass_rows(SQLite::Database& db, int64_t pass_id) {
  for (const char* table :
       {"counter_values", "dispatch_rows", "kernel_variants", "kernel_stats", "agents",
        "memory_copies", "memory_allocations", "api_calls", "ingest_stats"}) {
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

std::vector<IngestFileInfo> CaptureDb::ingest_files(int64_t pass_id) {
  using F = IngestFileInfo;
  return pass_rows(*m_impl, "reading ingest_stats",
                   "SELECT id, pass_id, path, kind, size_bytes, sha256, tool_version, rows_read, "
                   "rows_rejected, first_reject_line, first_reject_reason, loaded_ms "
                   "FROM ingest_stats WHERE pass_id = ? ORDER BY id",
                   pass_id, &F::id, &F::pass_id, &F::path, &F::kind, &F::size_bytes, &F::sha256,
                   &F::tool_version, &F::rows_read, &F::rows_rejected, &F::first_reject_line,
                   &F::first_reject_reason, &F::loaded_ms);
}

std::vector<AgentRow> CaptureDb::agents(int64_t pass_id) {
  using A = AgentRow;
  return pass_rows(*m_impl, "reading agents",
                   "SELECT node_id, logical_node_id, type, name, product_name, cu_count, "
                   "simd_count, wave_front_size, max_waves_per_simd, num_xcc, "
                   "max_engine_clk_mhz FROM agents WHERE pass_id = ? ORDER BY node_id",
                   pass_id, &A::node_id, &A::logical_node_id, &A::type, &A::name, &A::product_name,
                   &A::cu_count, &A::simd_count, &A::wave_front_size, &A::max_waves_per_simd,
                   &A::num_xcc, &A::max_engine_clk_mhz);
}

std::vector<KernelStatRow> CaptureDb::kernel_stats(int64_t pass_id) {
  using K = KernelStatRow;
  return pass_rows(*m_impl, "reading kernel_stats",
                   "SELECT s.value, k.calls, k.total_ns, k.average_ns, k.percentage, "
                   "k.min_ns, k.max_ns, k.stddev_ns FROM kernel_stats k "
                   "JOIN strings s ON s.id = k.name_id WHERE k.pass_id = ? ORDER BY k.rowid",
                   pass_id, &K::name, &K::calls, &K::total_ns, &K::average_ns, &K::percentage,
                   &K::min_ns, &K::max_ns, &K::stddev_ns);
}

void CaptureDb::for_each_dispatch(int64_t pass_id,
                                  const std::function<void(const DispatchRow&)>& fn) {
  using D = DispatchRow;
  guarded(*m_impl, "reading dispatches", [&] {
    each_pass_row(
        m_impl->db,
        "SELECT d.dispatch_id, d.kernel_id, d.correlation_id, d.agent, d.queue_id, d.stream_id, "
        "d.pid, d.tid, d.start_ns, d.end_ns, s.value, d.grid_x, d.grid_y, d.grid_z, d.wg_x, "
        "d.wg_y, d.wg_z, d.dims_known, d.lds, d.scratch, d.vgpr, d.agpr, d.sgpr "
        "FROM dispatches d JOIN strings s ON s.id = d.kernel_name_id "
        "WHERE d.pass_id = ? ORDER BY d.pid, d.dispatch_id",
        pass_id, fn, &D::dispatch_id, &D::kernel_id, &D::correlation_id, &D::agent, &D::queue_id,
        &D::stream_id, &D::pid, &D::tid, &D::start_ns, &D::end_ns, &D::kernel_name, &D::grid_x,
        &D::grid_y, &D::grid_z, &D::wg_x, &D::wg_y, &D::wg_z, &D::dims_known, &D::lds, &D::scratch,
        &D::vgpr, &D::agpr, &D::sgpr);
  });
}

void CaptureDb::for_each_counter(int64_t pass_id,
                                 const std::function<void(const CounterRow&)>& fn) {
  using C = CounterRow;
  guarded(*m_impl, "reading counter values", [&] {
    each_pass_row(m_impl->db,
                  "SELECT c.dispatch_id, c.pid, s.value, c.value FROM counter_values c "
                  "JOIN strings s ON s.id = c.counter_id WHERE c.pass_id = ? "
                  "ORDER BY c.pid, c.dispatch_id, s.value",
                  pass_id, fn, &C::dispatch_id, &C::pid, &C::counter, &C::value);
  });
}

std::vector<MemoryCopyRow> CaptureDb::memory_copies(int64_t pass_id) {
  using M = MemoryCopyRow;
  return pass_rows(*m_impl, "reading memory copies",
                   "SELECT m.pid, s.value, m.stream_id, m.src_agent, m.dst_agent, "
                   "m.correlation_id, m.start_ns, m.end_ns FROM memory_copies m "
                   "JOIN strings s ON s.id = m.direction_id WHERE m.pass_id = ? "
                   "ORDER BY m.rowid",
                   pass_id, &M::pid, &M::direction, &M::stream_id, &M::src_agent, &M::dst_agent,
                   &M::correlation_id, &M::start_ns, &M::end_ns);
}

std::vector<MemoryAllocationRow> CaptureDb::memory_allocations(int64_t pass_id) {
  using M = MemoryAllocationRow;
  return pass_rows(*m_impl, "reading memory allocations",
                   "SELECT m.pid, s.value, m.agent, m.size_bytes, m.address, "
                   "m.correlation_id, m.start_ns, m.end_ns FROM memory_allocations m "
                   "JOIN strings s ON s.id = m.operation_id WHERE m.pass_id = ? "
                   "ORDER BY m.rowid",
                   pass_id, &M::pid, &M::operation, &M::agent, &M::size_bytes, &M::address,
                   &M::correlation_id, &M::start_ns, &M::end_ns);
}

std::vector<ApiCallRow> CaptureDb::api_calls(int64_t pass_id) {
  using A = ApiCallRow;
  return pass_rows(*m_impl, "reading API calls",
                   "SELECT d.value, f.value, a.pid, a.tid, a.correlation_id, a.start_ns, "
                   "a.end_ns FROM api_calls a JOIN strings d ON d.id = a.domain_id "
                   "JOIN strings f ON f.id = a.function_id WHERE a.pass_id = ? "
                   "ORDER BY a.rowid",
                   pass_id, &A::domain, &A::function, &A::pid, &A::tid, &A::correlation_id,
                   &A::start_ns, &A::end_ns);
}

void CaptureDb::clear_pass_rows(int64_t pass_id) {
  if (m_impl->loader_active) {
    throw Error::runtime("cannot clear a pass while a PassLoader is loading", "a kprof bug");
  }
  // Nine DELETEs: all or none. Inside the caller's WriteTransaction they are part of it; alone,
  // they get their own (BEGIN IMMEDIATE).
  if (m_impl->outer_write) {
    guarded(*m_impl, "clearing a pass", [&] { delete_pass_rows(m_impl->db, pass_id); });
    return;
  }
  WriteTransaction tx(*this);
  guarded(*m_impl, "clearing a pass", [&] { delete_pass_rows(m_impl->db, pass_id); });
  tx.commit();
}

}  // namespace kprof::store
