// The analysis' stored results (analysis_results.hpp).
#include "core/store/analysis_results.hpp"

#include <SQLiteCpp/Transaction.h>
#include <SQLiteCpp/VariadicBind.h>

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
    SQLite::bind(q, counter_pass_id, pass_id);
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
    SQLite::bind(q, counter_pass_id, trace_pass_id);
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
      SQLite::bind(unmatched, counter_pass_id, side, d.pid, d.dispatch_id);
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
    SQLite::bind(q, m_impl->counter_pass_id, counter.pid, counter.dispatch_id, trace_pass_id,
                 trace.pid, trace.dispatch_id);
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
    SQLite::bind(sum, c, j.trace_pass_id, j.counter_dispatches, j.trace_dispatches,
                 j.trace_considered, j.matched, j.matched_share, j.filtered ? 1 : 0, j.streams,
                 now_unix_ms());
    sum.exec();
    const JoinProof& p = j.proof.value();
    SQLite::Statement ck(sql,
                         "INSERT INTO analysis_join_proofs (counter_pass_id, method, monotone, "
                         "jump_bound, jumps, max_jump, reliable, offset_streams, id_offset) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    SQLite::bind(ck, c, std::string(to_string(p.method)), p.monotone ? 1 : 0, p.jump_bound, p.jumps,
                 p.max_jump, p.reliable ? 1 : 0, p.offset_streams, p.id_offset);
    ck.exec();
    SQLite::Statement f(
        sql, "INSERT INTO analysis_join_files (counter_pass_id, pass_id, files) VALUES (?, ?, ?)");
    for (const auto& [pass_id, text] : files) {
      f.reset();
      SQLite::bind(f, c, pass_id, text);
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
    SQLite::bind(q, trace_pass_id, version);
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
    SQLite::bind(head, tp, o.version, o.arch, o.product, o.main_pid, o.main_agent);
    head.exec();
    SQLite::Statement pass(sql,
                           "INSERT INTO analysis_outline_passes (trace_pass_id, pass_id, "
                           "dispatches, base_ns, reorder_window, files) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto& p : passes) {
      pass.reset();
      SQLite::bind(pass, tp, p.pass_id, p.dispatches, p.base_ns, p.reorder_window, p.files);
      pass.exec();
    }
    SQLite::Statement seg(sql,
                          "INSERT INTO analysis_outline_segments (trace_pass_id, first_id, phase, "
                          "step, start_ns, end_ns, dispatches, window_no) VALUES (?, ?, ?, ?, ?, "
                          "?, ?, ?)");
    for (const auto& s : segments) {
      seg.reset();
      SQLite::bind(seg, tp, s.first_id, s.phase, s.step, s.start_ns, s.end_ns, s.dispatches,
                   s.window_no);
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
