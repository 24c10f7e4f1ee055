// PassLoader: one pass's rows into the database in one transaction (WriteTransaction, the one
// write path it loads inside: write_transaction.cpp).
#include <SQLiteCpp/VariadicBind.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "core/store/bulk_insert.hpp"
#include "core/store/json_text.hpp"

namespace kprof::store {

namespace {

// One (process, agent)'s dispatches in a load: how many, and their span.
struct ProcessCount {
  int64_t dispatches = 0;
  int64_t first_start_ns = INT64_MAX, last_end_ns = INT64_MIN;
  void add(int64_t start_ns, int64_t end_ns) {
    ++dispatches;
    first_start_ns = std::min(first_start_ns, start_ns);
    last_end_ns = std::max(last_end_ns, end_ns);
  }
};

}  // namespace

struct PassLoader::Impl {
  Impl(CaptureDb::Impl& d, int64_t pass)
      : db(d),
        pass_id(pass),
        ins(d.db.getHandle()),
        intern_insert(d.db.getHandle(),
                      "INSERT INTO strings(value) VALUES (?1) "
                      "ON CONFLICT(value) DO NOTHING"),
        intern_select(d.db.getHandle(), "SELECT id FROM strings WHERE value = ?1"),
        agent_insert(
            d.db.getHandle(),
            columns::insert_sql(columns::agents, {"pass_id"}, " ON CONFLICT DO NOTHING").c_str()),
        stat_insert(d.db.getHandle(),
                    columns::insert_sql(columns::kernel_stats, {"pass_id", "file_id"}).c_str()),
        copy_insert(d.db.getHandle(),
                    columns::insert_sql(columns::memory_copies, {"pass_id"}).c_str()),
        alloc_insert(d.db.getHandle(),
                     columns::insert_sql(columns::memory_allocations, {"pass_id"}).c_str()),
        api_insert(d.db.getHandle(), columns::insert_sql(columns::api_calls, {"pass_id"}).c_str()),
        file_insert(d.db.getHandle(),
                    "INSERT INTO ingest_stats(pass_id, path, kind, size_bytes, sha256, rows_read, "
                    "rows_rejected, loaded_ms) VALUES (?1, ?2, ?3, 0, '', 0, 0, ?4)"),
        file_update(d.db.getHandle(),
                    "UPDATE ingest_stats SET rows_read = ?2, rows_rejected = ?3, "
                    "first_reject_line = ?4, first_reject_reason = ?5, tool_version = ?6, "
                    "size_bytes = ?7, sha256 = ?8 WHERE id = ?1") {}

  // Interned ids are cached for this transaction only: after a rollback they would be wrong.
  int64_t intern(const std::string& s) {
    auto it = names.find(s);
    if (it != names.end()) return it->second;
    intern_insert.bind_text(1, s);
    int64_t id;
    if (intern_insert.run() == 1) {
      id = sqlite3_last_insert_rowid(db.db.getHandle());
    } else {
      intern_select.bind_text(1, s);
      intern_select.step_row();
      id = sqlite3_column_int64(intern_select.get(), 0);
      intern_select.reset();
    }
    names.emplace(s, id);
    return id;
  }

  // One row of `t` after the leading columns; its interned columns through intern().
  template <class Tbl, class Row, class... Lead>
  void write(BulkStmt& st, const Tbl& t, const Row& row, const Lead&... lead) {
    st.insert_row(
        t, row, [this](const std::string& s) { return intern(s); }, lead...);
  }

  void reject(std::optional<int64_t> line, std::string reason) {
    ++total_rejected;
    if (!file_id) return;
    if (file_rejected++ == 0) {
      first_reject_line = line;
      first_reject_reason = std::move(reason);
    }
  }

  // Counter names get their own cache: its keys are the pass's counter list at commit.
  int64_t intern_counter(const std::string& s) {
    auto it = counter_names.find(s);
    if (it != counter_names.end()) return it->second;
    const int64_t id = intern(s);
    counter_names.emplace(s, id);
    return id;
  }

  CaptureDb::Impl& db;
  int64_t pass_id;
  bool in_transaction = false;
  bool simulated = false;  // an agent's product name says the rocprofv3 test double wrote it
  std::unordered_map<std::string, int64_t> counter_names;
  // Dispatches stored per (pid, agent), written to pass_processes at commit. Rows come process by
  // process, so the last key is checked before the map.
  std::map<std::pair<int64_t, int64_t>, ProcessCount> processes;
  std::pair<int64_t, int64_t> last_process{0, 0};
  ProcessCount* last_count = nullptr;

  BulkInserters ins;
  BulkStmt intern_insert, intern_select, agent_insert, stat_insert, copy_insert, alloc_insert,
      api_insert, file_insert, file_update;
  std::unordered_map<std::string, int64_t> names;

  // The file between begin_file and end_file.
  std::optional<int64_t> file_id;
  std::string file_path;
  std::string tool_version;
  int64_t file_size = 0;
  std::string file_sha256;
  int64_t file_rejected = 0;
  std::optional<int64_t> first_reject_line;
  std::string first_reject_reason;

  int64_t total_rejected = 0;
};

namespace {

void require_file(const std::optional<int64_t>& file_id, const char* row_kind) {
  if (!file_id) {
    throw Error::runtime(
        std::string("PassLoader got a ") + row_kind + " row outside begin_file/end_file",
        "a reader must call begin_file first (a kprof bug)");
  }
}

// Stores this load's per-process counts: a load starts by deleting the pass's earlier rows, counts
// included (delete_pass_rows), so they are the counts of the rows the pass holds.
void store_processes(SQLite::Database& db, int64_t pass_id,
                     const std::map<std::pair<int64_t, int64_t>, ProcessCount>& processes) {
  SQLite::Statement st(db,
                       "INSERT INTO pass_processes (pass_id, pid, agent, dispatches, "
                       "first_start_ns, last_end_ns) VALUES (?, ?, ?, ?, ?, ?)");
  for (const auto& [key, n] : processes) {
    st.reset();
    SQLite::bind(st, pass_id, key.first, key.second, n.dispatches, n.first_start_ns, n.last_end_ns);
    st.exec();
  }
}

}  // namespace

PassLoader::Impl& PassLoader::open_impl() {
  // After commit a row would be written outside any transaction: refuse instead.
  if (!m_impl->in_transaction) {
    throw Error::runtime("PassLoader got a row after commit()", "a kprof bug");
  }
  return *m_impl;
}

namespace {

// A pass's load is a savepoint inside a WriteTransaction (its own when none was open), so that a
// failed pass rolls back alone when other passes share the transaction.
void begin_load(CaptureDb::Impl& d) { d.db.exec("SAVEPOINT pass_load"); }

void rollback_load(CaptureDb::Impl& d) {
  sqlite3* h = d.db.getHandle();
  sqlite3_exec(h, "ROLLBACK TO pass_load", nullptr, nullptr, nullptr);
  sqlite3_exec(h, "RELEASE pass_load", nullptr, nullptr, nullptr);
}

}  // namespace

PassLoader::PassLoader(CaptureDb& db, int64_t pass_id) {
  CaptureDb::Impl& d = *db.m_impl;
  if (d.read_only) {
    throw Error::runtime("capture database '" + d.path.string() + "' was opened read-only",
                         "open it read-write to ingest");
  }
  if (d.loader_active) {
    throw Error::runtime("a PassLoader is already loading into '" + d.path.string() + "'",
                         "commit or destroy it first (one transaction per connection)");
  }
  // No WriteTransaction open: the load opens its own (the one write path, capture_db.hpp).
  if (!d.outer_write) m_own = std::make_unique<WriteTransaction>(db, WriteKind::bulk_load);
  guarded(d, "starting a pass load", [&] {
    begin_load(d);
    try {
      SQLite::Statement exists(d.db, "SELECT 1 FROM passes WHERE id = ?");
      exists.bind(1, pass_id);
      if (!exists.executeStep()) {
        throw Error::runtime(
            "capture database '" + d.path.string() + "' has no pass " + std::to_string(pass_id),
            "add the pass (CaptureDb::add_planned_pass) before loading it");
      }
      delete_pass_rows(d.db, pass_id);
      m_impl = std::make_unique<Impl>(d, pass_id);
    } catch (...) {
      m_impl.reset();
      rollback_load(d);
      m_own.reset();
      throw;
    }
  });
  m_impl->in_transaction = true;
  d.loader_active = true;
}

PassLoader::~PassLoader() {
  if (!m_impl) return;
  CaptureDb::Impl& d = m_impl->db;
  const bool open = m_impl->in_transaction;
  // Statements must be reset before ROLLBACK can release everything; finalizing them (Impl's
  // destructor) does that.
  m_impl.reset();
  if (open) rollback_load(d);
  d.loader_active = false;
  m_own.reset();  // not committed: rolls back
}

void PassLoader::begin_file(const std::string& path, const std::string& kind) {
  Impl& m = open_impl();
  guarded(m.db, "recording an ingested file", [&] {
    if (m.file_id) end_file(0);  // a reader that forgot end_file still gets its file recorded
    m.file_insert.insert(m.pass_id, path, kind, now_unix_ms());
    m.file_id = sqlite3_last_insert_rowid(m.db.db.getHandle());
    m.file_path = path;
    m.tool_version.clear();
    m.file_size = 0;
    m.file_sha256.clear();
    m.file_rejected = 0;
    m.first_reject_line.reset();
    m.first_reject_reason.clear();
  });
}

void PassLoader::end_file(int64_t rows_read) {
  Impl& m = open_impl();
  if (!m.file_id) return;
  guarded(m.db, "recording an ingested file", [&] {
    m.file_update.insert(*m.file_id, rows_read, m.file_rejected, m.first_reject_line,
                         m.first_reject_reason, m.tool_version, m.file_size, m.file_sha256);
    m.file_id.reset();
  });
}

void PassLoader::profiler_version(const std::string& version) {
  open_impl().tool_version = version;
}

void PassLoader::file_digest(int64_t size_bytes, const std::string& sha256) {
  Impl& m = open_impl();
  m.file_size = size_bytes;
  m.file_sha256 = sha256;
}

void PassLoader::agent(const AgentRow& a) {
  Impl& m = open_impl();
  guarded(m.db, "loading an agent", [&] {
    // Multi-process captures repeat the same agents once per process: the first one stays.
    m.write(m.agent_insert, columns::agents, a, m.pass_id);
    // The rocprofv3 test double appends " (simulated)" to product names.
    if (a.product_name.find("(simulated)") != std::string::npos) m.simulated = true;
  });
}

void PassLoader::dispatch(const DispatchRow& row) {
  Impl& m = open_impl();
  guarded(m.db, "loading a dispatch", [&] {
    if (row.end_ns < row.start_ns) {
      m.reject(std::nullopt, "dispatch " + std::to_string(row.dispatch_id) + " ends (" +
                                 std::to_string(row.end_ns) + ") before it starts (" +
                                 std::to_string(row.start_ns) + ")");
      return;
    }
    m.ins.dispatch(m.pass_id, row, m.intern(row.kernel_name));
    const std::pair<int64_t, int64_t> key{row.pid, row.agent};
    if (!m.last_count || key != m.last_process) {
      m.last_count = &m.processes[key];
      m.last_process = key;
    }
    m.last_count->add(row.start_ns, row.end_ns);
  });
}

void PassLoader::counter(const CounterRow& row) {
  Impl& m = open_impl();
  guarded(m.db, "loading a counter value", [&] {
    if (!m.ins.counter(m.pass_id, row, m.intern_counter(row.counter))) {
      m.reject(std::nullopt, "duplicate value of counter " + row.counter + " for dispatch " +
                                 std::to_string(row.dispatch_id) + " of pid " +
                                 std::to_string(row.pid) + " (the first one was kept)");
    }
  });
}

void PassLoader::kernel_stat(const KernelStatRow& k) {
  Impl& m = open_impl();
  require_file(m.file_id, "kernel_stats");
  guarded(m.db, "loading a kernel stat",
          [&] { m.write(m.stat_insert, columns::kernel_stats, k, m.pass_id, *m.file_id); });
}

void PassLoader::memory_copy(const MemoryCopyRow& r) {
  Impl& m = open_impl();
  guarded(m.db, "loading a memory copy",
          [&] { m.write(m.copy_insert, columns::memory_copies, r, m.pass_id); });
}

void PassLoader::memory_allocation(const MemoryAllocationRow& r) {
  Impl& m = open_impl();
  guarded(m.db, "loading a memory allocation", [&] {
    if (r.size_bytes < 0) {
      m.reject(std::nullopt, "allocation of negative size " + std::to_string(r.size_bytes));
      return;
    }
    m.write(m.alloc_insert, columns::memory_allocations, r, m.pass_id);
  });
}

void PassLoader::api_call(const ApiCallRow& r) {
  Impl& m = open_impl();
  guarded(m.db, "loading an API call",
          [&] { m.write(m.api_insert, columns::api_calls, r, m.pass_id); });
}

void PassLoader::bad_row(const BadRow& row) { open_impl().reject(row.line, row.reason); }

int64_t PassLoader::rows_rejected() const { return m_impl ? m_impl->total_rejected : 0; }

void PassLoader::commit() {
  if (!m_impl || !m_impl->in_transaction) {
    throw Error::runtime("PassLoader::commit called twice", "a kprof bug");
  }
  Impl& m = *m_impl;
  if (m.file_id) end_file(0);
  guarded(m.db, "committing a pass load", [&] {
    auto& db = m.db.db;
    m.ins.flush();
    if (m.simulated) {
      SQLite::Statement st(db,
                           "UPDATE runs SET simulated = 1 WHERE simulated = 0 AND id = "
                           "(SELECT run_id FROM passes WHERE id = ?)");
      st.bind(1, m.pass_id);
      st.exec();
    }
    store_processes(db, m.pass_id, m.processes);
    if (!m.counter_names.empty()) {
      std::vector<std::string> names;
      for (const auto& [name, id] : m.counter_names) names.push_back(name);
      std::sort(names.begin(), names.end());
      SQLite::Statement st(db,
                           "UPDATE passes SET counters = ? WHERE id = ? AND kind = 'counters' "
                           "AND counters = '[]'");
      st.bind(1, json_string_array(names));
      st.bind(2, m.pass_id);
      st.exec();
    }
    db.exec("RELEASE pass_load");
  });
  m.in_transaction = false;
  if (m_own) {
    m.db.loader_active = false;  // the load is over: its transaction may commit
    m_own->commit();
  }
}

}  // namespace kprof::store
