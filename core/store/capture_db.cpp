// CaptureDb: the bookkeeping of runs, strings, selections and the run lock (opening:
// capture_db_open.cpp; passes: capture_db_passes.cpp).
#include "core/store/capture_db.hpp"

#include <SQLiteCpp/Transaction.h>

#include "core/store/capture_db_impl.hpp"
#include "core/store/schema_files.hpp"

namespace kprof::store {

namespace {

constexpr const char* k_run_columns =
    "id, name, runbook_path, runbook_sha256, runbook_text, host, started_ms, finished_ms, status, "
    "kprof_version, simulated, seed, profiler_version";

RunInfo read_run(SQLite::Statement& st) {
  RunInfo r;
  r.id = st.getColumn(0).getInt64();
  r.name = st.getColumn(1).getString();
  r.runbook_path = st.getColumn(2).getString();
  r.runbook_sha256 = st.getColumn(3).getString();
  r.runbook_text = st.getColumn(4).getString();
  r.host = st.getColumn(5).getString();
  r.started_ms = st.getColumn(6).getInt64();
  r.finished_ms = column_opt(st, 7);
  r.status = parse_run_status(st.getColumn(8).getString());
  r.kprof_version = st.getColumn(9).getString();
  r.simulated = st.getColumn(10).getInt64() != 0;
  r.seed = column_opt(st, 11);
  r.profiler_version = st.getColumn(12).getString();
  return r;
}

std::optional<RunInfo> one_run(SQLite::Database& db, const std::string& where,
                               const std::function<void(SQLite::Statement&)>& bind) {
  SQLite::Statement st(db, std::string("SELECT ") + k_run_columns + " FROM runs " + where);
  bind(st);
  if (!st.executeStep()) return std::nullopt;
  return read_run(st);
}

}  // namespace

void require_no_loader(CaptureDb::Impl& impl, const char* doing) {
  if (impl.loader_active) {
    throw Error::runtime(std::string("cannot write (") + doing + ") to capture database '" +
                             impl.path.string() + "' while a PassLoader is loading into it",
                         "commit or destroy the PassLoader first (a kprof bug)");
  }
}

void require_changed(CaptureDb::Impl& impl, int changes, const std::string& what) {
  if (changes == 0) {
    throw Error::runtime("capture database '" + impl.path.string() + "' has no " + what,
                         "it may have been deleted by another process");
  }
}

int64_t CaptureDb::latest_schema_version() { return static_cast<int64_t>(schema_files().size()); }

// The constructor is in capture_db_open.cpp.
CaptureDb::~CaptureDb() = default;

const std::filesystem::path& CaptureDb::path() const { return m_impl->path; }
bool CaptureDb::read_only() const { return m_impl->read_only; }
SQLite::Database& CaptureDb::sql() { return m_impl->db; }

int64_t CaptureDb::schema_version() {
  return guarded(*m_impl, "reading the schema version", [&] {
    return m_impl->db.execAndGet("SELECT coalesce(max(version), 0) FROM schema_version").getInt64();
  });
}

// ---- runs

int64_t CaptureDb::create_run(const NewRun& run) {
  require_no_loader(*m_impl, "creating a run");
  return guarded(*m_impl, "creating a run", [&] {
    SQLite::Statement st(m_impl->db,
                         "INSERT INTO runs(name, runbook_path, runbook_sha256, runbook_text, host, "
                         "started_ms, status, kprof_version, simulated, seed, profiler_version) "
                         "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)");
    st.bind(1, run.name);
    st.bind(2, run.runbook_path);
    st.bind(3, run.runbook_sha256);
    st.bind(4, run.runbook_text);
    st.bind(5, run.host);
    st.bind(6, now_unix_ms());
    st.bind(7, run.kprof_version);
    st.bind(8, int64_t{run.simulated ? 1 : 0});
    bind_opt(st, 9, run.seed);
    st.bind(10, run.profiler_version);
    st.exec();
    return m_impl->db.getLastInsertRowid();
  });
}

std::optional<RunInfo> CaptureDb::find_run(int64_t run_id) {
  return guarded(*m_impl, "reading a run", [&] {
    return one_run(m_impl->db, "WHERE id = ?", [&](SQLite::Statement& st) { st.bind(1, run_id); });
  });
}

std::optional<RunInfo> CaptureDb::find_run_by_name(std::string_view name) {
  return guarded(*m_impl, "reading a run", [&] {
    return one_run(m_impl->db, "WHERE name = ? ORDER BY id DESC LIMIT 1",
                   [&](SQLite::Statement& st) { st.bind(1, std::string(name)); });
  });
}

std::optional<RunInfo> CaptureDb::find_last_run() {
  return guarded(*m_impl, "reading a run", [&] {
    return one_run(m_impl->db, "ORDER BY id DESC LIMIT 1", [](SQLite::Statement&) {});
  });
}

std::vector<RunInfo> CaptureDb::list_runs() {
  return guarded(*m_impl, "listing runs", [&] {
    SQLite::Statement st(m_impl->db,
                         std::string("SELECT ") + k_run_columns + " FROM runs ORDER BY id");
    std::vector<RunInfo> out;
    while (st.executeStep()) out.push_back(read_run(st));
    return out;
  });
}

void CaptureDb::set_run_status(int64_t run_id, RunStatus status,
                               std::optional<int64_t> finished_ms) {
  require_no_loader(*m_impl, "updating a run");
  guarded(*m_impl, "updating a run", [&] {
    SQLite::Statement st(m_impl->db, "UPDATE runs SET status = ?, finished_ms = ? WHERE id = ?");
    st.bind(1, std::string(to_string(status)));
    if (status == RunStatus::running) {
      st.bind(2);
    } else {
      st.bind(2, finished_ms.value_or(now_unix_ms()));
    }
    st.bind(3, run_id);
    require_changed(*m_impl, st.exec(), "run " + std::to_string(run_id));
  });
}

// ---- strings

int64_t CaptureDb::intern(std::string_view s) {
  require_no_loader(*m_impl, "interning a string");
  return guarded(*m_impl, "interning a string", [&] {
    SQLite::Statement ins(m_impl->db,
                          "INSERT INTO strings(value) VALUES (?) ON CONFLICT(value) DO NOTHING");
    ins.bind(1, std::string(s));
    if (ins.exec() == 1) return m_impl->db.getLastInsertRowid();
    SQLite::Statement sel(m_impl->db, "SELECT id FROM strings WHERE value = ?");
    sel.bind(1, std::string(s));
    sel.executeStep();
    return sel.getColumn(0).getInt64();
  });
}

std::optional<int64_t> CaptureDb::find_string(std::string_view s) {
  return guarded(*m_impl, "reading a string", [&]() -> std::optional<int64_t> {
    SQLite::Statement sel(m_impl->db, "SELECT id FROM strings WHERE value = ?");
    sel.bind(1, std::string(s));
    if (!sel.executeStep()) return std::nullopt;
    return sel.getColumn(0).getInt64();
  });
}

std::optional<std::string> CaptureDb::string_by_id(int64_t id) {
  return guarded(*m_impl, "reading a string", [&]() -> std::optional<std::string> {
    SQLite::Statement sel(m_impl->db, "SELECT value FROM strings WHERE id = ?");
    sel.bind(1, id);
    if (!sel.executeStep()) return std::nullopt;
    return sel.getColumn(0).getString();
  });
}

// ---- selected kernels

void CaptureDb::set_selected_kernels(int64_t run_id, const std::vector<SelectedKernel>& kernels) {
  require_no_loader(*m_impl, "storing the selected kernels");
  guarded(*m_impl, "storing the selected kernels", [&] {
    WriteTransaction tx(*this);
    SQLite::Statement del(m_impl->db, "DELETE FROM selected_kernels WHERE run_id = ?");
    del.bind(1, run_id);
    del.exec();
    SQLite::Statement ins(m_impl->db,
                          "INSERT INTO selected_kernels(run_id, name_id, rank, reason) "
                          "VALUES (?, ?, ?, ?)");
    for (const auto& k : kernels) {
      int64_t name_id = intern(k.name);
      ins.bind(1, run_id);
      ins.bind(2, name_id);
      ins.bind(3, k.rank);
      ins.bind(4, k.reason);
      ins.exec();
      ins.reset();
    }
    tx.commit();
  });
}

std::vector<SelectedKernel> CaptureDb::selected_kernels(int64_t run_id) {
  return guarded(*m_impl, "reading the selected kernels", [&] {
    SQLite::Statement st(m_impl->db,
                         "SELECT s.value, k.rank, k.reason FROM selected_kernels k "
                         "JOIN strings s ON s.id = k.name_id WHERE k.run_id = ? ORDER BY k.rank");
    st.bind(1, run_id);
    std::vector<SelectedKernel> out;
    while (st.executeStep()) {
      out.push_back(
          {st.getColumn(0).getString(), st.getColumn(1).getInt64(), st.getColumn(2).getString()});
    }
    return out;
  });
}

// ---- run lock

std::optional<RunLockHolder> CaptureDb::try_lock_run(int64_t run_id, int64_t pid,
                                                     const std::string& host) {
  require_no_loader(*m_impl, "locking a run");
  return guarded(*m_impl, "locking a run", [&]() -> std::optional<RunLockHolder> {
    WriteTransaction tx(*this);
    if (auto holder = run_lock(run_id)) {
      if (holder->pid == pid && holder->host == host) {
        tx.commit();
        return std::nullopt;  // re-entrant for the same process
      }
      return holder;
    }
    SQLite::Statement ins(
        m_impl->db, "INSERT INTO run_lock(run_id, pid, host, acquired_ms) VALUES (?, ?, ?, ?)");
    ins.bind(1, run_id);
    ins.bind(2, pid);
    ins.bind(3, host);
    ins.bind(4, now_unix_ms());
    ins.exec();
    tx.commit();
    return std::nullopt;
  });
}

std::optional<RunLockHolder> CaptureDb::run_lock(int64_t run_id) {
  return guarded(*m_impl, "reading a run lock", [&]() -> std::optional<RunLockHolder> {
    SQLite::Statement st(m_impl->db,
                         "SELECT pid, host, acquired_ms FROM run_lock WHERE run_id = ?");
    st.bind(1, run_id);
    if (!st.executeStep()) return std::nullopt;
    return RunLockHolder{st.getColumn(0).getInt64(), st.getColumn(1).getString(),
                         st.getColumn(2).getInt64()};
  });
}

void CaptureDb::unlock_run(int64_t run_id, int64_t pid, const std::string& host) {
  require_no_loader(*m_impl, "unlocking a run");
  guarded(*m_impl, "unlocking a run", [&] {
    SQLite::Statement st(m_impl->db,
                         "DELETE FROM run_lock WHERE run_id = ? AND pid = ? AND host = ?");
    st.bind(1, run_id);
    st.bind(2, pid);
    st.bind(3, host);
    st.exec();
  });
}

void CaptureDb::break_run_lock(int64_t run_id) {
  require_no_loader(*m_impl, "breaking a run lock");
  guarded(*m_impl, "breaking a run lock", [&] {
    SQLite::Statement st(m_impl->db, "DELETE FROM run_lock WHERE run_id = ?");
    st.bind(1, run_id);
    st.exec();
  });
}

}  // namespace kprof::store
