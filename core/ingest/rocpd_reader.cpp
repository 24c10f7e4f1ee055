// Schema (ROCm/rocm-systems projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/*.sql):
// physical tables carry a `_<uuid>` suffix and unsuffixed views of the same names exist. We use
// the views when present and otherwise each suffix's tables, so a file merged from several
// processes (several uuids) is read whole.
//
// Uncertain: whether rocpd_kernel_dispatch.pid/tid hold OS ids or rowids of rocpd_info_process /
// rocpd_info_thread. We join and take the OS id when the join finds a row, else the value itself.
#include "core/ingest/rocpd_reader.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/sha256.hpp"
#include "core/base/text.hpp"

namespace kprof::ingest {

namespace {

std::vector<std::string> suffixes(SQLite::Database& db, std::set<std::string>& names) {
  SQLite::Statement q(db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')");
  while (q.executeStep()) names.insert(q.getColumn(0).getString());
  if (names.count("rocpd_kernel_dispatch")) return {""};
  std::vector<std::string> out;
  const std::string stem = "rocpd_kernel_dispatch_";
  for (const auto& n : names)
    if (n.rfind(stem, 0) == 0) out.push_back(n.substr(stem.size() - 1));
  return out;
}

int64_t opt_i64(SQLite::Column c, int64_t fallback = 0) {
  return c.isNull() ? fallback : c.getInt64();
}

// "" when `s` is valid UTF-8, else why not, as the CSV readers say it ("not valid UTF-8: byte
// 0xFF at offset 12 (after 'void gemm<fl')"). SQLite stores TEXT as given and leaves the check
// to its callers (https://sqlite.org/invalidutf.html), so a damaged rocpd file can hold such
// bytes; copied into kprof's TEXT columns they would make the database unreadable for clients
// that decode TEXT strictly (Python's sqlite3).
std::string utf8_problem(std::string_view s) {
  const size_t at = invalid_utf8_at(s);
  if (at == std::string_view::npos) return {};
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(s[at]));
  std::string out =
      "not valid UTF-8: byte " + std::string(byte) + " at offset " + std::to_string(at);
  if (at > 0)
    out +=
        " (after '" + std::string(s.substr(at > 40 ? at - 40 : 0, std::min<size_t>(at, 40))) + "')";
  return out;
}

// The joins a dispatch query takes for the tables one suffix has, and the expressions that read
// OS ids and logical agent indices through them (the value itself where a table is missing).
struct DispatchJoins {
  std::string agent, process, thread, event, symbol;
  std::string pid_expr() const { return process.empty() ? "kd.pid" : "COALESCE(p.pid, kd.pid)"; }
  std::string tid_expr() const { return thread.empty() ? "kd.tid" : "COALESCE(t.tid, kd.tid)"; }
  std::string agent_expr() const {
    return agent.empty() ? "kd.agent_id" : "COALESCE(a.logical_index, kd.agent_id)";
  }
  std::string correlation_expr() const { return event.empty() ? "0" : "e.correlation_id"; }
  std::string symbol_columns() const {
    return symbol.empty() ? "NULL, NULL, NULL, NULL, NULL"
                          : "ks.display_name, ks.kernel_name, ks.arch_vgpr_count, "
                            "ks.accum_vgpr_count, ks.sgpr_count";
  }
};

// One rocpd file read into a sink: the tables of each suffix in turn.
class RocpdRead {
 public:
  RocpdRead(const std::string& path, store::RowSink& sink, const ReadOptions& options,
            FileResult& result)
      : m_path(path), m_sink(sink), m_options(options), m_result(result) {}

  void suffix(SQLite::Database& db, const std::set<std::string>& names, const std::string& s) {
    auto has = [&](const std::string& t) { return names.count(t + s) > 0; };
    if (has("rocpd_info_agent")) agents(db, s);
    DispatchJoins j;
    if (has("rocpd_info_agent"))
      j.agent = " LEFT JOIN rocpd_info_agent" + s + " a ON a.id = kd.agent_id";
    if (has("rocpd_info_process"))
      j.process = " LEFT JOIN rocpd_info_process" + s + " p ON p.id = kd.pid";
    if (has("rocpd_info_thread"))
      j.thread = " LEFT JOIN rocpd_info_thread" + s + " t ON t.id = kd.tid";
    if (has("rocpd_event")) j.event = " LEFT JOIN rocpd_event" + s + " e ON e.id = kd.event_id";
    if (has("rocpd_info_kernel_symbol"))
      j.symbol = " LEFT JOIN rocpd_info_kernel_symbol" + s + " ks ON ks.id = kd.kernel_id";
    dispatches(db, s, j);
    if (has("rocpd_pmc_event") && has("rocpd_info_pmc")) counters(db, s, j);
  }

  // Every row read was rejected: the file has rocpd's tables but not its data.
  void check_some_usable() const {
    if (m_rejected_rows > 0 && m_rejected_rows == m_result.rows_read) {
      throw Error::input("none of the " + std::to_string(m_result.rows_read) +
                             " rows is usable; the first: " + m_first_reject,
                         "the file has rocpd's tables but not its data; re-capture it",
                         SourcePos{m_path});
    }
  }

 private:
  // A row kprof cannot store as it is: classified as the CSV readers do (a bad row with its
  // reason; --strict makes it an error). `m_first_reject` is kept for the all-rejected error.
  void reject(const std::string& reason) {
    if (m_options.strict)
      throw Error::input(reason, "the rocpd file is damaged", SourcePos{m_path});
    if (m_first_reject.empty()) m_first_reject = reason;
    m_sink.bad_row(store::BadRow{m_path, 0, reason});
    ++m_result.rows_rejected;
    ++m_rejected_rows;
  }

  // Agents: "Agent N" in CSV means the logical index, which is what DispatchRow.agent holds.
  void agents(SQLite::Database& db, const std::string& s) {
    SQLite::Statement q(db,
                        "SELECT absolute_index, logical_index, type, name, product_name "
                        "FROM rocpd_info_agent" +
                            s + " ORDER BY absolute_index");
    while (q.executeStep()) {
      store::AgentRow a;
      a.node_id = opt_i64(q.getColumn(0));
      a.logical_node_id = opt_i64(q.getColumn(1), a.node_id);
      a.type = q.getColumn(2).getString();
      a.name = q.getColumn(3).getString();
      a.product_name = q.getColumn(4).getString();
      ++m_result.rows_read;
      std::string bad;
      for (const auto& [column, value] :
           {std::pair<const char*, const std::string*>{"type", &a.type},
            {"name", &a.name},
            {"product_name", &a.product_name}}) {
        if (bad.empty() && !(bad = utf8_problem(*value)).empty())
          bad = "agent " + std::to_string(a.node_id) + ": rocpd_info_agent." + column + ": " + bad;
      }
      if (!bad.empty()) {
        reject(bad);
        continue;
      }
      m_sink.agent(a);
    }
  }

  void dispatches(SQLite::Database& db, const std::string& s, const DispatchJoins& j) {
    SQLite::Statement q(
        db,
        "SELECT kd.dispatch_id, kd.kernel_id, " + j.agent_expr() + ", kd.queue_id, kd.stream_id, " +
            j.pid_expr() + ", " + j.tid_expr() + ", kd.start, kd.end, kd.private_segment_size, " +
            "kd.group_segment_size, kd.workgroup_size_x, kd.workgroup_size_y, " +
            "kd.workgroup_size_z, kd.grid_size_x, kd.grid_size_y, kd.grid_size_z, " +
            j.symbol_columns() + ", " + j.correlation_expr() + " FROM rocpd_kernel_dispatch" + s +
            " kd" + j.agent + j.process + j.thread + j.event + j.symbol + " ORDER BY kd.id");
    store::DispatchRow d;
    while (q.executeStep()) {
      ++m_result.rows_read;
      dispatch_row(q, d);
      if (d.kernel_name.empty()) {
        store::BadRow b{m_path, 0,
                        "dispatch " + std::to_string(d.dispatch_id) +
                            ": no kernel symbol for kernel_id " + std::to_string(d.kernel_id)};
        if (m_options.strict)
          throw Error::input(b.reason, "the rocpd file is incomplete", SourcePos{m_path});
        m_sink.bad_row(b);
        ++m_result.rows_rejected;
        continue;
      }
      if (const std::string bad = utf8_problem(d.kernel_name); !bad.empty()) {
        reject("dispatch " + std::to_string(d.dispatch_id) + ": kernel name (" +
               (q.getColumn(17).isNull() ? "rocpd_info_kernel_symbol.kernel_name"
                                         : "rocpd_info_kernel_symbol.display_name") +
               "): " + bad);
        continue;
      }
      m_sink.dispatch(d);
      ++m_result.dispatches;
    }
  }

  // The columns of dispatches()'s query into `d`.
  void dispatch_row(SQLite::Statement& q, store::DispatchRow& d) const {
    d.dispatch_id = q.getColumn(0).getInt64();
    d.kernel_id = opt_i64(q.getColumn(1));
    d.agent = opt_i64(q.getColumn(2));
    d.queue_id = opt_i64(q.getColumn(3));
    if (q.getColumn(4).isNull())
      d.stream_id.reset();
    else
      d.stream_id = q.getColumn(4).getInt64();
    d.pid = opt_i64(q.getColumn(5), m_options.pid.value_or(0));
    d.tid = opt_i64(q.getColumn(6));
    d.start_ns = opt_i64(q.getColumn(7));
    d.end_ns = opt_i64(q.getColumn(8));
    d.scratch = opt_i64(q.getColumn(9));
    d.lds = opt_i64(q.getColumn(10));
    d.wg_x = opt_i64(q.getColumn(11));
    d.wg_y = opt_i64(q.getColumn(12), 1);
    d.wg_z = opt_i64(q.getColumn(13), 1);
    d.grid_x = opt_i64(q.getColumn(14));
    d.grid_y = opt_i64(q.getColumn(15), 1);
    d.grid_z = opt_i64(q.getColumn(16), 1);
    d.dims_known = true;
    d.kernel_name =
        !q.getColumn(17).isNull() ? q.getColumn(17).getString() : q.getColumn(18).getString();
    auto opt = [&](int i) {
      return q.getColumn(i).isNull() ? std::optional<int64_t>{}
                                     : std::optional<int64_t>{q.getColumn(i).getInt64()};
    };
    d.vgpr = opt(19);
    d.agpr = opt(20);
    d.sgpr = opt(21);
    d.correlation_id = opt_i64(q.getColumn(22));
  }

  void counters(SQLite::Database& db, const std::string& s, const DispatchJoins& j) {
    SQLite::Statement c(db, "SELECT " + j.pid_expr() +
                                ", kd.dispatch_id, pmc.name, SUM(pe.value) FROM rocpd_pmc_event" +
                                s + " pe JOIN rocpd_info_pmc" + s + " pmc ON pmc.id = pe.pmc_id " +
                                "JOIN rocpd_kernel_dispatch" + s +
                                " kd ON kd.event_id = pe.event_id" + j.process +
                                " GROUP BY kd.id, pmc.name ORDER BY kd.id, MIN(pmc.id)");
    store::CounterRow row;
    while (c.executeStep()) {
      ++m_result.rows_read;
      row.pid = opt_i64(c.getColumn(0), m_options.pid.value_or(0));
      row.dispatch_id = c.getColumn(1).getInt64();
      row.counter = c.getColumn(2).getString();
      row.value = c.getColumn(3).getDouble();
      if (const std::string bad = utf8_problem(row.counter); !bad.empty()) {
        reject("dispatch " + std::to_string(row.dispatch_id) + ": rocpd_info_pmc.name: " + bad);
        continue;
      }
      m_sink.counter(row);
      ++m_result.counters;
    }
  }

  const std::string& m_path;
  store::RowSink& m_sink;
  const ReadOptions& m_options;
  FileResult& m_result;
  std::string m_first_reject;
  int64_t m_rejected_rows = 0;
};

}  // namespace

FileResult read_rocpd(const std::string& path, store::RowSink& sink, const ReadOptions& options) {
  FileResult result;
  result.path = path;
  result.kind = "rocpd";
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    std::set<std::string> names;
    auto sfx = suffixes(db, names);
    if (sfx.empty()) {
      throw Error::input("SQLite file without rocpd tables (no rocpd_kernel_dispatch)",
                         "expected a rocprofv3 rocpd database (<prefix>_results.db)",
                         SourcePos{path});
    }
    sink.begin_file(path, "rocpd");
    RocpdRead read(path, sink, options, result);
    for (const auto& s : sfx) read.suffix(db, names, s);
    read.check_some_usable();
    // SQLite reads the database by pages in its own order; the provenance hash reads it once more,
    // front to back (rocpd files are a fraction of the size of the CSV they replace).
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    sink.file_digest(ec ? 0 : static_cast<int64_t>(size), sha256_file(path));
    sink.end_file(result.rows_read);
  } catch (const SQLite::Exception& e) {
    throw Error::input(std::string("cannot read rocpd database: ") + e.what(),
                       "expected a rocprofv3 rocpd database (<prefix>_results.db) of schema "
                       "version 3",
                       SourcePos{path});
  }
  return result;
}

}  // namespace kprof::ingest
