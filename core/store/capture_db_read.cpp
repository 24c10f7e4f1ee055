// CaptureDb: reading back what a pass holds, and clearing it.
#include <SQLiteCpp/Transaction.h>

#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

namespace {

int64_t count_where_pass(SQLite::Database& db, const char* table, int64_t pass_id) {
  SQLite::Statement st(db, std::string("SELECT count(*) FROM ") + table + " WHERE pass_id = ?");
  st.bind(1, pass_id);
  st.executeStep();
  return st.getColumn(0).getInt64();
}

}  // namespace

// Children first: kernel_stats refers to ingest_stats.
void delete_pass_rows(SQLite::Database& db, int64_t pass_id) {
  for (const char* table : {"counter_values", "dispatches", "kernel_stats", "agents",
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
    c.dispatches = count_where_pass(db, "dispatches", pass_id);
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
  return guarded(*m_impl, "reading ingest_stats", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT id, pass_id, path, kind, size_bytes, sha256, tool_version, "
                         "rows_read, rows_rejected, first_reject_line, first_reject_reason, "
                         "loaded_ms FROM ingest_stats WHERE pass_id = ? ORDER BY id");
    st.bind(1, pass_id);
    std::vector<IngestFileInfo> out;
    while (st.executeStep()) {
      IngestFileInfo f;
      f.id = st.getColumn(0).getInt64();
      f.pass_id = st.getColumn(1).getInt64();
      f.path = st.getColumn(2).getString();
      f.kind = st.getColumn(3).getString();
      f.size_bytes = st.getColumn(4).getInt64();
      f.sha256 = st.getColumn(5).getString();
      f.tool_version = st.getColumn(6).getString();
      f.rows_read = st.getColumn(7).getInt64();
      f.rows_rejected = st.getColumn(8).getInt64();
      f.first_reject_line = column_opt(st, 9);
      f.first_reject_reason = st.getColumn(10).getString();
      f.loaded_ms = st.getColumn(11).getInt64();
      out.push_back(std::move(f));
    }
    return out;
  });
}

std::vector<AgentRow> CaptureDb::agents(int64_t pass_id) {
  return guarded(*m_impl, "reading agents", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT node_id, logical_node_id, type, name, product_name, cu_count, "
                         "simd_count, wave_front_size, max_waves_per_simd, num_xcc, "
                         "max_engine_clk_mhz FROM agents WHERE pass_id = ? ORDER BY node_id");
    st.bind(1, pass_id);
    std::vector<AgentRow> out;
    while (st.executeStep()) {
      AgentRow a;
      a.node_id = st.getColumn(0).getInt64();
      a.logical_node_id = st.getColumn(1).getInt64();
      a.type = st.getColumn(2).getString();
      a.name = st.getColumn(3).getString();
      a.product_name = st.getColumn(4).getString();
      a.cu_count = st.getColumn(5).getInt64();
      a.simd_count = st.getColumn(6).getInt64();
      a.wave_front_size = st.getColumn(7).getInt64();
      a.max_waves_per_simd = st.getColumn(8).getInt64();
      a.num_xcc = st.getColumn(9).getInt64();
      a.max_engine_clk_mhz = st.getColumn(10).getInt64();
      out.push_back(std::move(a));
    }
    return out;
  });
}

std::vector<KernelStatRow> CaptureDb::kernel_stats(int64_t pass_id) {
  return guarded(*m_impl, "reading kernel_stats", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT s.value, k.calls, k.total_ns, k.average_ns, k.percentage, "
                         "k.min_ns, k.max_ns, k.stddev_ns FROM kernel_stats k "
                         "JOIN strings s ON s.id = k.name_id WHERE k.pass_id = ? ORDER BY k.rowid");
    st.bind(1, pass_id);
    std::vector<KernelStatRow> out;
    while (st.executeStep()) {
      KernelStatRow k;
      k.name = st.getColumn(0).getString();
      k.calls = st.getColumn(1).getInt64();
      k.total_ns = st.getColumn(2).getInt64();
      k.average_ns = st.getColumn(3).getDouble();
      k.percentage = st.getColumn(4).getDouble();
      k.min_ns = st.getColumn(5).getInt64();
      k.max_ns = st.getColumn(6).getInt64();
      k.stddev_ns = st.getColumn(7).getDouble();
      out.push_back(std::move(k));
    }
    return out;
  });
}

void CaptureDb::for_each_dispatch(int64_t pass_id,
                                  const std::function<void(const DispatchRow&)>& fn) {
  guarded(*m_impl, "reading dispatches", [&] {
    SQLite::Statement st(
        m_impl->db,
        "SELECT d.dispatch_id, d.kernel_id, d.correlation_id, d.agent, d.queue_id, d.stream_id, "
        "d.pid, d.tid, d.start_ns, d.end_ns, s.value, d.grid_x, d.grid_y, d.grid_z, d.wg_x, "
        "d.wg_y, d.wg_z, d.dims_known, d.lds, d.scratch, d.vgpr, d.agpr, d.sgpr "
        "FROM dispatches d JOIN strings s ON s.id = d.kernel_name_id "
        "WHERE d.pass_id = ? ORDER BY d.pid, d.dispatch_id");
    st.bind(1, pass_id);
    DispatchRow d;
    while (st.executeStep()) {
      d.dispatch_id = st.getColumn(0).getInt64();
      d.kernel_id = st.getColumn(1).getInt64();
      d.correlation_id = st.getColumn(2).getInt64();
      d.agent = st.getColumn(3).getInt64();
      d.queue_id = st.getColumn(4).getInt64();
      d.stream_id = column_opt(st, 5);
      d.pid = st.getColumn(6).getInt64();
      d.tid = st.getColumn(7).getInt64();
      d.start_ns = st.getColumn(8).getInt64();
      d.end_ns = st.getColumn(9).getInt64();
      d.kernel_name = st.getColumn(10).getString();
      d.grid_x = st.getColumn(11).getInt64();
      d.grid_y = st.getColumn(12).getInt64();
      d.grid_z = st.getColumn(13).getInt64();
      d.wg_x = st.getColumn(14).getInt64();
      d.wg_y = st.getColumn(15).getInt64();
      d.wg_z = st.getColumn(16).getInt64();
      d.dims_known = st.getColumn(17).getInt64() != 0;
      d.lds = st.getColumn(18).getInt64();
      d.scratch = st.getColumn(19).getInt64();
      d.vgpr = column_opt(st, 20);
      d.agpr = column_opt(st, 21);
      d.sgpr = column_opt(st, 22);
      fn(d);
    }
  });
}

void CaptureDb::for_each_counter(int64_t pass_id,
                                 const std::function<void(const CounterRow&)>& fn) {
  guarded(*m_impl, "reading counter values", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT c.dispatch_id, c.pid, s.value, c.value FROM counter_values c "
                         "JOIN strings s ON s.id = c.counter_id WHERE c.pass_id = ? "
                         "ORDER BY c.pid, c.dispatch_id, s.value");
    st.bind(1, pass_id);
    CounterRow c;
    while (st.executeStep()) {
      c.dispatch_id = st.getColumn(0).getInt64();
      c.pid = st.getColumn(1).getInt64();
      c.counter = st.getColumn(2).getString();
      c.value = st.getColumn(3).getDouble();
      fn(c);
    }
  });
}

std::vector<MemoryCopyRow> CaptureDb::memory_copies(int64_t pass_id) {
  return guarded(*m_impl, "reading memory copies", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT m.pid, s.value, m.stream_id, m.src_agent, m.dst_agent, "
                         "m.correlation_id, m.start_ns, m.end_ns FROM memory_copies m "
                         "JOIN strings s ON s.id = m.direction_id WHERE m.pass_id = ? "
                         "ORDER BY m.rowid");
    st.bind(1, pass_id);
    std::vector<MemoryCopyRow> out;
    while (st.executeStep()) {
      MemoryCopyRow m;
      m.pid = st.getColumn(0).getInt64();
      m.direction = st.getColumn(1).getString();
      m.stream_id = st.getColumn(2).getInt64();
      m.src_agent = st.getColumn(3).getInt64();
      m.dst_agent = st.getColumn(4).getInt64();
      m.correlation_id = st.getColumn(5).getInt64();
      m.start_ns = st.getColumn(6).getInt64();
      m.end_ns = st.getColumn(7).getInt64();
      out.push_back(std::move(m));
    }
    return out;
  });
}

std::vector<MemoryAllocationRow> CaptureDb::memory_allocations(int64_t pass_id) {
  return guarded(*m_impl, "reading memory allocations", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT m.pid, s.value, m.agent, m.size_bytes, m.address, "
                         "m.correlation_id, m.start_ns, m.end_ns FROM memory_allocations m "
                         "JOIN strings s ON s.id = m.operation_id WHERE m.pass_id = ? "
                         "ORDER BY m.rowid");
    st.bind(1, pass_id);
    std::vector<MemoryAllocationRow> out;
    while (st.executeStep()) {
      MemoryAllocationRow m;
      m.pid = st.getColumn(0).getInt64();
      m.operation = st.getColumn(1).getString();
      if (!st.getColumn(2).isNull()) m.agent = st.getColumn(2).getInt64();
      m.size_bytes = st.getColumn(3).getInt64();
      m.address = st.getColumn(4).getString();
      m.correlation_id = st.getColumn(5).getInt64();
      m.start_ns = st.getColumn(6).getInt64();
      m.end_ns = st.getColumn(7).getInt64();
      out.push_back(std::move(m));
    }
    return out;
  });
}

std::vector<ApiCallRow> CaptureDb::api_calls(int64_t pass_id) {
  return guarded(*m_impl, "reading API calls", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT d.value, f.value, a.pid, a.tid, a.correlation_id, a.start_ns, "
                         "a.end_ns FROM api_calls a JOIN strings d ON d.id = a.domain_id "
                         "JOIN strings f ON f.id = a.function_id WHERE a.pass_id = ? "
                         "ORDER BY a.rowid");
    st.bind(1, pass_id);
    std::vector<ApiCallRow> out;
    while (st.executeStep()) {
      ApiCallRow a;
      a.domain = st.getColumn(0).getString();
      a.function = st.getColumn(1).getString();
      a.pid = st.getColumn(2).getInt64();
      a.tid = st.getColumn(3).getInt64();
      a.correlation_id = st.getColumn(4).getInt64();
      a.start_ns = st.getColumn(5).getInt64();
      a.end_ns = st.getColumn(6).getInt64();
      out.push_back(std::move(a));
    }
    return out;
  });
}

void CaptureDb::clear_pass_rows(int64_t pass_id) {
  if (m_impl->loader_active) {
    throw Error::runtime("cannot clear a pass while a PassLoader is loading", "a kprof bug");
  }
  guarded(*m_impl, "clearing a pass", [&] {
    SQLite::Transaction tx(m_impl->db, SQLite::TransactionBehavior::IMMEDIATE);
    delete_pass_rows(m_impl->db, pass_id);
    tx.commit();
  });
}

}  // namespace kprof::store
