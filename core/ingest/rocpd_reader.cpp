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
    // A row kprof cannot store as it is: classified as the CSV readers do (a bad row with its
    // reason; --strict makes it an error). `first_reject` is kept for the all-rejected error.
    std::string first_reject;
    int64_t rejected_rows = 0;
    auto reject = [&](const std::string& reason) {
      if (options.strict) throw Error::input(reason, "the rocpd file is damaged", SourcePos{path});
      if (first_reject.empty()) first_reject = reason;
      sink.bad_row(store::BadRow{path, 0, reason});
      ++result.rows_rejected;
      ++rejected_rows;
    };
    for (const auto& s : sfx) {
      auto has = [&](const std::string& t) { return names.count(t + s) > 0; };
      // Agents: "Agent N" in CSV means the logical index, which is what DispatchRow.agent holds.
      if (has("rocpd_info_agent")) {
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
          ++result.rows_read;
          std::string bad;
          for (const auto& [column, value] :
               {std::pair<const char*, const std::string*>{"type", &a.type},
                {"name", &a.name},
                {"product_name", &a.product_name}}) {
            if (bad.empty() && !(bad = utf8_problem(*value)).empty())
              bad = "agent " + std::to_string(a.node_id) + ": rocpd_info_agent." + column + ": " +
                    bad;
          }
          if (!bad.empty()) {
            reject(bad);
            continue;
          }
          sink.agent(a);
        }
      }
      const std::string agent_join =
          has("rocpd_info_agent") ? " LEFT JOIN rocpd_info_agent" + s + " a ON a.id = kd.agent_id"
                                  : "";
      const std::string proc_join =
          has("rocpd_info_process") ? " LEFT JOIN rocpd_info_process" + s + " p ON p.id = kd.pid"
                                    : "";
      const std::string thread_join =
          has("rocpd_info_thread") ? " LEFT JOIN rocpd_info_thread" + s + " t ON t.id = kd.tid"
                                   : "";
      const std::string event_join =
          has("rocpd_event") ? " LEFT JOIN rocpd_event" + s + " e ON e.id = kd.event_id" : "";
      const std::string sym_join =
          has("rocpd_info_kernel_symbol")
              ? " LEFT JOIN rocpd_info_kernel_symbol" + s + " ks ON ks.id = kd.kernel_id"
              : "";
      const std::string pid_expr = proc_join.empty() ? "kd.pid" : "COALESCE(p.pid, kd.pid)";
      const std::string tid_expr = thread_join.empty() ? "kd.tid" : "COALESCE(t.tid, kd.tid)";
      const std::string agent_expr =
          agent_join.empty() ? "kd.agent_id" : "COALESCE(a.logical_index, kd.agent_id)";
      const std::string corr_expr = event_join.empty() ? "0" : "e.correlation_id";
      const std::string sym_cols = sym_join.empty()
                                       ? "NULL, NULL, NULL, NULL, NULL"
                                       : "ks.display_name, ks.kernel_name, ks.arch_vgpr_count, "
                                         "ks.accum_vgpr_count, ks.sgpr_count";
      SQLite::Statement q(
          db, "SELECT kd.dispatch_id, kd.kernel_id, " + agent_expr +
                  ", kd.queue_id, kd.stream_id, " + pid_expr + ", " + tid_expr +
                  ", kd.start, kd.end, kd.private_segment_size, " +
                  "kd.group_segment_size, kd.workgroup_size_x, kd.workgroup_size_y, " +
                  "kd.workgroup_size_z, kd.grid_size_x, kd.grid_size_y, kd.grid_size_z, " +
                  sym_cols + ", " + corr_expr + " FROM rocpd_kernel_dispatch" + s + " kd" +
                  agent_join + proc_join + thread_join + event_join + sym_join + " ORDER BY kd.id");
      store::DispatchRow d;
      while (q.executeStep()) {
        ++result.rows_read;
        d.dispatch_id = q.getColumn(0).getInt64();
        d.kernel_id = opt_i64(q.getColumn(1));
        d.agent = opt_i64(q.getColumn(2));
        d.queue_id = opt_i64(q.getColumn(3));
        if (q.getColumn(4).isNull())
          d.stream_id.reset();
        else
          d.stream_id = q.getColumn(4).getInt64();
        d.pid = opt_i64(q.getColumn(5), options.pid.value_or(0));
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
        if (d.kernel_name.empty()) {
          store::BadRow b{path, 0,
                          "dispatch " + std::to_string(d.dispatch_id) +
                              ": no kernel symbol for kernel_id " + std::to_string(d.kernel_id)};
          if (options.strict)
            throw Error::input(b.reason, "the rocpd file is incomplete", SourcePos{path});
          sink.bad_row(b);
          ++result.rows_rejected;
          continue;
        }
        if (const std::string bad = utf8_problem(d.kernel_name); !bad.empty()) {
          reject("dispatch " + std::to_string(d.dispatch_id) + ": kernel name (" +
                 (q.getColumn(17).isNull() ? "rocpd_info_kernel_symbol.kernel_name"
                                           : "rocpd_info_kernel_symbol.display_name") +
                 "): " + bad);
          continue;
        }
        sink.dispatch(d);
        ++result.dispatches;
      }
      if (has("rocpd_pmc_event") && has("rocpd_info_pmc")) {
        SQLite::Statement c(
            db, "SELECT " + pid_expr +
                    ", kd.dispatch_id, pmc.name, SUM(pe.value) FROM rocpd_pmc_event" + s +
                    " pe JOIN rocpd_info_pmc" + s + " pmc ON pmc.id = pe.pmc_id " +
                    "JOIN rocpd_kernel_dispatch" + s + " kd ON kd.event_id = pe.event_id" +
                    proc_join + " GROUP BY kd.id, pmc.name ORDER BY kd.id, MIN(pmc.id)");
        store::CounterRow row;
        while (c.executeStep()) {
          ++result.rows_read;
          row.pid = opt_i64(c.getColumn(0), options.pid.value_or(0));
          row.dispatch_id = c.getColumn(1).getInt64();
          row.counter = c.getColumn(2).getString();
          row.value = c.getColumn(3).getDouble();
          if (const std::string bad = utf8_problem(row.counter); !bad.empty()) {
            reject("dispatch " + std::to_string(row.dispatch_id) + ": rocpd_info_pmc.name: " + bad);
            continue;
          }
          sink.counter(row);
          ++result.counters;
        }
      }
    }
    if (rejected_rows > 0 && rejected_rows == result.rows_read) {
      throw Error::input("none of the " + std::to_string(result.rows_read) +
                             " rows is usable; the first: " + first_reject,
                         "the file has rocpd's tables but not its data; re-capture it",
                         SourcePos{path});
    }
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
