// CaptureDb: opening, and the bookkeeping of runs, passes, strings, selections and the run lock.
#include "core/store/capture_db.hpp"

#include <SQLiteCpp/Transaction.h>

#include "core/store/capture_db_impl.hpp"
#include "core/store/json_text.hpp"
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

constexpr const char* k_pass_columns =
    "id, run_id, ordinal, kind, counters, argv, env, state, attempts, exit_code, signal, reason, "
    "started_ms, finished_ms, output_dir, log_path, log_excerpt, owner_pid, owner_host, launcher, "
    "launch_id";

std::vector<std::string> json_strings(SQLite::Database& db, const std::string& json) {
  SQLite::Statement st(db, "SELECT value FROM json_each(?) ORDER BY key");
  st.bind(1, json);
  std::vector<std::string> out;
  while (st.executeStep()) out.push_back(st.getColumn(0).getString());
  return out;
}

EnvDelta json_pairs(SQLite::Database& db, const std::string& json) {
  SQLite::Statement st(db,
                       "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') "
                       "FROM json_each(?) ORDER BY key");
  st.bind(1, json);
  EnvDelta out;
  while (st.executeStep()) {
    out.emplace_back(st.getColumn(0).getString(), st.getColumn(1).getString());
  }
  return out;
}

PassInfo read_pass(SQLite::Database& db, SQLite::Statement& st) {
  PassInfo p;
  p.id = st.getColumn(0).getInt64();
  p.run_id = st.getColumn(1).getInt64();
  p.ordinal = st.getColumn(2).getInt64();
  p.kind = parse_pass_kind(st.getColumn(3).getString());
  p.counters = json_strings(db, st.getColumn(4).getString());
  p.argv = json_strings(db, st.getColumn(5).getString());
  p.env = json_pairs(db, st.getColumn(6).getString());
  p.state = parse_pass_state(st.getColumn(7).getString());
  p.attempts = st.getColumn(8).getInt64();
  p.exit_code = column_opt(st, 9);
  p.signal = column_opt(st, 10);
  p.reason = st.getColumn(11).getString();
  p.started_ms = column_opt(st, 12);
  p.finished_ms = column_opt(st, 13);
  p.output_dir = st.getColumn(14).getString();
  p.log_path = st.getColumn(15).getString();
  p.log_excerpt = st.getColumn(16).getString();
  p.owner_pid = column_opt(st, 17);
  p.owner_host = st.getColumn(18).getString();
  p.launcher = st.getColumn(19).getString();
  p.launch_id = st.getColumn(20).getString();
  return p;
}

// Writes through a connection whose PassLoader is open would silently join the load's transaction
// (and vanish with its rollback); the caller must commit the load first.
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

}  // namespace

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

// ---- passes

int64_t CaptureDb::add_planned_pass(int64_t run_id, const PlannedPass& pass) {
  require_no_loader(*m_impl, "adding a pass");
  return guarded(*m_impl, "adding a pass", [&] {
    SQLite::Statement st(m_impl->db,
                         "INSERT INTO passes(run_id, ordinal, kind, counters, argv, env, state, "
                         "output_dir, log_path) VALUES (?, ?, ?, ?, ?, ?, 'planned', ?, ?)");
    st.bind(1, run_id);
    st.bind(2, pass.ordinal);
    st.bind(3, std::string(to_string(pass.kind)));
    st.bind(4, json_string_array(pass.counters));
    st.bind(5, json_string_array(pass.argv));
    st.bind(6, json_pair_array(pass.env));
    st.bind(7, pass.output_dir);
    st.bind(8, pass.log_path);
    st.exec();
    return m_impl->db.getLastInsertRowid();
  });
}

void CaptureDb::set_pass_state(int64_t pass_id, const PassTransition& t) {
  require_no_loader(*m_impl, "updating a pass");
  guarded(*m_impl, "updating a pass", [&] {
    const bool running = t.state == PassState::running;
    const bool planned = t.state == PassState::planned;
    // Each optional input is "keep" when NULL: coalesce(?, column).
    std::string sql =
        "UPDATE passes SET state = ?1, attempts = coalesce(?2, attempts), "
        "reason = coalesce(?5, reason), log_excerpt = coalesce(?6, log_excerpt), "
        "owner_pid = ?7, owner_host = ?8, argv = coalesce(?11, argv), launcher = '', "
        "launch_id = '', ";
    if (running) {
      sql += "exit_code = ?3, signal = ?4, started_ms = ?9, finished_ms = NULL";
    } else if (planned) {
      sql +=
          "exit_code = coalesce(?3, exit_code), signal = coalesce(?4, signal), "
          "started_ms = NULL, finished_ms = NULL";
    } else {
      sql +=
          "exit_code = coalesce(?3, exit_code), signal = coalesce(?4, signal), "
          "finished_ms = ?9";
    }
    sql += " WHERE id = ?10";
    SQLite::Statement st(m_impl->db, sql);
    st.bind(1, std::string(to_string(t.state)));
    bind_opt(st, 2, t.attempts);
    bind_opt(st, 3, t.exit_code);
    bind_opt(st, 4, t.signal);
    if (t.reason)
      st.bind(5, *t.reason);
    else
      st.bind(5);
    if (t.log_excerpt)
      st.bind(6, *t.log_excerpt);
    else
      st.bind(6);
    if (running) {
      bind_opt(st, 7, t.owner_pid);
      st.bind(8, t.owner_host);
    } else {
      st.bind(7);
      st.bind(8, std::string());
    }
    if (!planned) st.bind(9, now_unix_ms());
    st.bind(10, pass_id);
    if (t.argv)
      st.bind(11, json_string_array(*t.argv));
    else
      st.bind(11);
    require_changed(*m_impl, st.exec(), "pass " + std::to_string(pass_id));
  });
}

void CaptureDb::set_pass_launch(int64_t pass_id, const std::string& launcher,
                                const std::string& launch_id) {
  require_no_loader(*m_impl, "recording a pass's launch");
  guarded(*m_impl, "recording a pass's launch", [&] {
    SQLite::Statement st(m_impl->db,
                         "UPDATE passes SET launcher = ?, launch_id = ? "
                         "WHERE id = ? AND state = 'running'");
    st.bind(1, launcher);
    st.bind(2, launch_id);
    st.bind(3, pass_id);
    require_changed(*m_impl, st.exec(), "running pass " + std::to_string(pass_id));
  });
}

std::optional<PassInfo> CaptureDb::find_pass(int64_t pass_id) {
  return guarded(*m_impl, "reading a pass", [&]() -> std::optional<PassInfo> {
    SQLite::Statement st(m_impl->db,
                         std::string("SELECT ") + k_pass_columns + " FROM passes WHERE id = ?");
    st.bind(1, pass_id);
    if (!st.executeStep()) return std::nullopt;
    return read_pass(m_impl->db, st);
  });
}

std::optional<PassInfo> CaptureDb::find_pass(int64_t run_id, int64_t ordinal) {
  return guarded(*m_impl, "reading a pass", [&]() -> std::optional<PassInfo> {
    SQLite::Statement st(m_impl->db, std::string("SELECT ") + k_pass_columns +
                                         " FROM passes WHERE run_id = ? AND ordinal = ?");
    st.bind(1, run_id);
    st.bind(2, ordinal);
    if (!st.executeStep()) return std::nullopt;
    return read_pass(m_impl->db, st);
  });
}

std::vector<PassInfo> CaptureDb::list_passes(int64_t run_id) {
  return guarded(*m_impl, "listing passes", [&] {
    SQLite::Statement st(m_impl->db, std::string("SELECT ") + k_pass_columns +
                                         " FROM passes WHERE run_id = ? ORDER BY ordinal");
    st.bind(1, run_id);
    std::vector<PassInfo> out;
    while (st.executeStep()) out.push_back(read_pass(m_impl->db, st));
    return out;
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
