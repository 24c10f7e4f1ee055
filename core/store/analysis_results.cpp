// The analysis' stored results (analysis_results.hpp).
#include "core/store/analysis_results.hpp"

#include <SQLiteCpp/Transaction.h>

#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

std::string_view to_string(JoinMethod m) {
  switch (m) {
    case JoinMethod::by_id:
      return "by_id";
    case JoinMethod::offset:
      return "offset";
    case JoinMethod::aligned:
      return "aligned";
  }
  return "?";
}

JoinMethod parse_join_method(std::string_view s) {
  for (auto m : {JoinMethod::by_id, JoinMethod::offset, JoinMethod::aligned})
    if (to_string(m) == s) return m;
  throw Error::runtime("corrupt capture database: unknown join method '" + std::string(s) + "'",
                       "the schema's CHECK constraints forbid it; was the file edited by hand?");
}

std::optional<StoredJoin> read_join(CaptureDb& db, int64_t counter_pass_id) {
  return guarded(db, "reading a stored join", [&]() -> std::optional<StoredJoin> {
    SQLite::Statement q(db.sql(),
                        "SELECT trace_pass_id, counter_dispatches, trace_dispatches, "
                        "trace_considered, matched, matched_share, filtered, streams, "
                        "(SELECT count(*) FROM analysis_unmatched u WHERE u.counter_pass_id = "
                        "j.counter_pass_id AND side = 'counter'), "
                        "(SELECT count(*) FROM analysis_unmatched u WHERE u.counter_pass_id = "
                        "j.counter_pass_id AND side = 'trace') "
                        "FROM analysis_join_passes j WHERE counter_pass_id = ?");
    q.bind(1, counter_pass_id);
    if (!q.executeStep()) return std::nullopt;
    StoredJoin s;
    s.counter_pass_id = counter_pass_id;
    s.trace_pass_id = q.getColumn(0).getInt64();
    s.counter_dispatches = q.getColumn(1).getInt64();
    s.trace_dispatches = q.getColumn(2).getInt64();
    s.trace_considered = q.getColumn(3).getInt64();
    s.matched = q.getColumn(4).getInt64();
    s.matched_share = q.getColumn(5).getDouble();
    s.filtered = q.getColumn(6).getInt() != 0;
    s.streams = q.getColumn(7).getInt64();
    s.unmatched_counter = q.getColumn(8).getInt64();
    s.unmatched_trace = q.getColumn(9).getInt64();
    SQLite::Statement ck(db.sql(),
                         "SELECT method, monotone, jump_bound, jumps, max_jump, reliable, "
                         "offset_streams, id_offset FROM analysis_join_proofs WHERE "
                         "counter_pass_id = ?");
    ck.bind(1, counter_pass_id);
    if (ck.executeStep()) {
      JoinProof p;
      p.method = parse_join_method(ck.getColumn(0).getString());
      p.monotone = ck.getColumn(1).getInt() != 0;
      p.jump_bound = ck.getColumn(2).getInt64();
      p.jumps = ck.getColumn(3).getInt64();
      p.max_jump = ck.getColumn(4).getInt64();
      p.reliable = ck.getColumn(5).getInt() != 0;
      p.offset_streams = ck.getColumn(6).getInt64();
      p.id_offset = ck.getColumn(7).getInt64();
      s.proof = p;
    }
    return s;
  });
}

std::optional<std::string> join_files(CaptureDb& db, int64_t counter_pass_id, int64_t pass_id) {
  return guarded(db, "reading a stored join", [&]() -> std::optional<std::string> {
    SQLite::Statement q(db.sql(),
                        "SELECT files FROM analysis_join_files WHERE counter_pass_id = ? AND "
                        "pass_id = ?");
    q.bind(1, counter_pass_id);
    q.bind(2, pass_id);
    if (!q.executeStep()) return std::nullopt;
    return q.getColumn(0).getString();
  });
}

void for_each_join_pair(CaptureDb& db, int64_t counter_pass_id, int64_t trace_pass_id,
                        const std::function<void(DispatchKey, DispatchKey)>& fn) {
  guarded(db, "reading a stored join", [&] {
    SQLite::Statement q(db.sql(),
                        "SELECT counter_pid, counter_dispatch_id, trace_pid, trace_dispatch_id "
                        "FROM analysis_join WHERE counter_pass_id = ? AND trace_pass_id = ?");
    q.bind(1, counter_pass_id);
    q.bind(2, trace_pass_id);
    while (q.executeStep())
      fn({q.getColumn(0).getInt64(), q.getColumn(1).getInt64()},
         {q.getColumn(2).getInt64(), q.getColumn(3).getInt64()});
  });
}

struct JoinWriter::Impl {
  Impl(CaptureDb& to, int64_t pass_id)
      : db(to),
        counter_pass_id(pass_id),
        pair(to.sql(),
             "INSERT INTO analysis_join (counter_pass_id, counter_pid, counter_dispatch_id, "
             "trace_pass_id, trace_pid, trace_dispatch_id) VALUES (?, ?, ?, ?, ?, ?)"),
        unmatched(to.sql(),
                  "INSERT INTO analysis_unmatched (counter_pass_id, side, pid, dispatch_id) "
                  "VALUES (?, ?, ?, ?)") {}
  void add_unmatched(const char* side, DispatchKey d) {
    guarded(db, "storing a join", [&] {
      unmatched.reset();
      unmatched.bind(1, counter_pass_id);
      unmatched.bind(2, side);
      unmatched.bind(3, d.pid);
      unmatched.bind(4, d.dispatch_id);
      unmatched.exec();
    });
  }
  CaptureDb& db;
  int64_t counter_pass_id;
  SQLite::Statement pair, unmatched;
};

JoinWriter::JoinWriter(CaptureDb& db, int64_t counter_pass_id) {
  guarded(db, "storing a join", [&] {
    for (const char* table : {"analysis_join", "analysis_unmatched", "analysis_join_passes",
                              "analysis_join_proofs", "analysis_join_files"}) {
      SQLite::Statement del(db.sql(),
                            std::string("DELETE FROM ") + table + " WHERE counter_pass_id = ?");
      del.bind(1, counter_pass_id);
      del.exec();
    }
    m_impl = std::make_unique<Impl>(db, counter_pass_id);
  });
}
JoinWriter::~JoinWriter() = default;

void JoinWriter::pair(DispatchKey counter, int64_t trace_pass_id, DispatchKey trace) {
  auto& q = m_impl->pair;
  guarded(m_impl->db, "storing a join", [&] {
    q.reset();
    q.bind(1, m_impl->counter_pass_id);
    q.bind(2, counter.pid);
    q.bind(3, counter.dispatch_id);
    q.bind(4, trace_pass_id);
    q.bind(5, trace.pid);
    q.bind(6, trace.dispatch_id);
    q.exec();
  });
}

void JoinWriter::unmatched_counter(DispatchKey d) { m_impl->add_unmatched("counter", d); }
void JoinWriter::unmatched_trace(DispatchKey d) { m_impl->add_unmatched("trace", d); }

void JoinWriter::finish(const StoredJoin& j,
                        const std::vector<std::pair<int64_t, std::string>>& files) {
  auto& sql = m_impl->db.sql();
  const int64_t c = m_impl->counter_pass_id;
  guarded(m_impl->db, "storing a join", [&] {
    SQLite::Statement sum(sql,
                          "INSERT INTO analysis_join_passes (counter_pass_id, trace_pass_id, "
                          "counter_dispatches, trace_dispatches, trace_considered, matched, "
                          "matched_share, filtered, streams, joined_ms) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    sum.bind(1, c);
    sum.bind(2, j.trace_pass_id);
    sum.bind(3, j.counter_dispatches);
    sum.bind(4, j.trace_dispatches);
    sum.bind(5, j.trace_considered);
    sum.bind(6, j.matched);
    sum.bind(7, j.matched_share);
    sum.bind(8, j.filtered ? 1 : 0);
    sum.bind(9, j.streams);
    sum.bind(10, now_unix_ms());
    sum.exec();
    const JoinProof& p = j.proof.value();
    SQLite::Statement ck(sql,
                         "INSERT INTO analysis_join_proofs (counter_pass_id, method, monotone, "
                         "jump_bound, jumps, max_jump, reliable, offset_streams, id_offset) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    ck.bind(1, c);
    ck.bind(2, std::string(to_string(p.method)));
    ck.bind(3, p.monotone ? 1 : 0);
    ck.bind(4, p.jump_bound);
    ck.bind(5, p.jumps);
    ck.bind(6, p.max_jump);
    ck.bind(7, p.reliable ? 1 : 0);
    ck.bind(8, p.offset_streams);
    ck.bind(9, p.id_offset);
    ck.exec();
    SQLite::Statement f(
        sql, "INSERT INTO analysis_join_files (counter_pass_id, pass_id, files) VALUES (?, ?, ?)");
    for (const auto& [pass_id, text] : files) {
      f.reset();
      f.bind(1, c);
      f.bind(2, pass_id);
      f.bind(3, text);
      f.exec();
    }
  });
}

std::optional<StoredOutline> read_outline_head(CaptureDb& db, int64_t trace_pass_id,
                                               int64_t version) {
  return guarded(db, "reading the run outline", [&]() -> std::optional<StoredOutline> {
    SQLite::Statement q(db.sql(),
                        "SELECT arch, product, main_pid, main_agent FROM analysis_outline "
                        "WHERE trace_pass_id = ? AND version = ?");
    q.bind(1, trace_pass_id);
    q.bind(2, version);
    if (!q.executeStep()) return std::nullopt;
    return StoredOutline{version, q.getColumn(0).getString(), q.getColumn(1).getString(),
                         q.getColumn(2).getInt64(), q.getColumn(3).getInt64()};
  });
}

std::vector<StoredOutlinePass> read_outline_passes(CaptureDb& db, int64_t trace_pass_id) {
  return guarded(db, "reading the run outline", [&] {
    SQLite::Statement q(db.sql(),
                        "SELECT pass_id, dispatches, base_ns, reorder_window, files FROM "
                        "analysis_outline_passes WHERE trace_pass_id = ? ORDER BY pass_id");
    q.bind(1, trace_pass_id);
    std::vector<StoredOutlinePass> out;
    while (q.executeStep())
      out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(),
                     q.getColumn(2).getInt64(), q.getColumn(3).getInt64(),
                     q.getColumn(4).getString()});
    return out;
  });
}

void for_each_outline_segment(CaptureDb& db, int64_t trace_pass_id,
                              const std::function<void(const StoredSegment&)>& fn) {
  guarded(db, "reading the run outline", [&] {
    SQLite::Statement q(db.sql(),
                        "SELECT first_id, phase, step, start_ns, end_ns, dispatches, window_no "
                        "FROM analysis_outline_segments WHERE trace_pass_id = ? ORDER BY first_id");
    q.bind(1, trace_pass_id);
    StoredSegment s;
    while (q.executeStep()) {
      s.first_id = q.getColumn(0).getInt64();
      s.phase = q.getColumn(1).getString();
      s.step = q.getColumn(2).getInt64();
      s.start_ns = q.getColumn(3).getInt64();
      s.end_ns = q.getColumn(4).getInt64();
      s.dispatches = q.getColumn(5).getInt64();
      s.window_no = q.getColumn(6).getInt64();
      fn(s);
    }
  });
}

void replace_outline(CaptureDb& db, int64_t tp, const StoredOutline& o,
                     const std::vector<StoredOutlinePass>& passes,
                     const std::vector<StoredSegment>& segments) {
  auto& sql = db.sql();
  guarded(db, "storing the run outline", [&] {
    for (const char* table :
         {"analysis_outline_segments", "analysis_outline_passes", "analysis_outline"}) {
      SQLite::Statement del(sql, std::string("DELETE FROM ") + table + " WHERE trace_pass_id = ?");
      del.bind(1, tp);
      del.exec();
    }
    SQLite::Statement head(sql,
                           "INSERT INTO analysis_outline (trace_pass_id, version, arch, product, "
                           "main_pid, main_agent) VALUES (?, ?, ?, ?, ?, ?)");
    head.bind(1, tp);
    head.bind(2, o.version);
    head.bind(3, o.arch);
    head.bind(4, o.product);
    head.bind(5, o.main_pid);
    head.bind(6, o.main_agent);
    head.exec();
    SQLite::Statement pass(sql,
                           "INSERT INTO analysis_outline_passes (trace_pass_id, pass_id, "
                           "dispatches, base_ns, reorder_window, files) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto& p : passes) {
      pass.reset();
      pass.bind(1, tp);
      pass.bind(2, p.pass_id);
      pass.bind(3, p.dispatches);
      pass.bind(4, p.base_ns);
      pass.bind(5, p.reorder_window);
      pass.bind(6, p.files);
      pass.exec();
    }
    SQLite::Statement seg(sql,
                          "INSERT INTO analysis_outline_segments (trace_pass_id, first_id, phase, "
                          "step, start_ns, end_ns, dispatches, window_no) VALUES (?, ?, ?, ?, ?, "
                          "?, ?, ?)");
    for (const auto& s : segments) {
      seg.reset();
      seg.bind(1, tp);
      seg.bind(2, s.first_id);
      seg.bind(3, s.phase);
      seg.bind(4, s.step);
      seg.bind(5, s.start_ns);
      seg.bind(6, s.end_ns);
      seg.bind(7, s.dispatches);
      seg.bind(8, s.window_no);
      seg.exec();
    }
  });
}

bool try_write_now(CaptureDb& db, const std::function<bool()>& write) {
  auto& sql = db.sql();
  sql.setBusyTimeout(0);
  std::unique_ptr<SQLite::Transaction> tx;
  try {
    tx = std::make_unique<SQLite::Transaction>(sql, SQLite::TransactionBehavior::IMMEDIATE);
  } catch (const SQLite::Exception& e) {
    if ((e.getErrorCode() & 0xff) == SQLITE_BUSY) return false;
    rethrow_sqlite(db.path(), "taking the write lock", e);
  }
  if (!write()) return false;
  guarded(db, "committing", [&] { tx->commit(); });
  return true;
}

}  // namespace kprof::store
