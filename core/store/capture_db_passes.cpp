// CaptureDb: the passes of a run (planned, their state transitions and launches) and reading them
// back.
#include "core/store/capture_db.hpp"

#include "core/store/capture_db_impl.hpp"
#include "core/store/json_text.hpp"

namespace kprof::store {

namespace {

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

}  // namespace

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

}  // namespace kprof::store
