// WriteTransaction: the one write path into a capture database (capture_db.hpp), and what a
// bulk_load transaction changes about foreign keys.
#include <sqlite3.h>

#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

// Foreign keys during a bulk load. SQLite checks every foreign key of every inserted or deleted
// row with a search of the other table (https://sqlite.org/foreignkeys.html, "Required and
// Suggested Database Indexes"): two B-tree searches per dispatch row (passes, kernel_variants), a
// quarter of `kprof ingest`'s CPU time on a kernel_trace, and a scan of dispatch_rows per variant
// when a pass's old rows are deleted. The per-row tables (dispatch_rows, kernel_variants,
// counter_values, kernel_stats, memory_copies, memory_allocations, api_calls, and the agents and
// ingest_stats of a pass) are written only by PassLoader, whose references hold by construction:
// the pass is looked up once when the load begins, every name and counter id comes from `strings`
// and every variant id from `kernel_variants` rows it wrote in the same transaction. So a
// WriteKind::bulk_load transaction runs with enforcement off (`PRAGMA foreign_keys` is a no-op
// inside a transaction, so it is set before BEGIN: https://sqlite.org/pragma.html
// #pragma_foreign_keys), and before COMMIT the record tables a command writes besides its loads
// (each of a size that grows with runs and passes, not with dispatches) are checked whole with
// pragma_foreign_key_check; a violation rolls the whole transaction back. Atomicity and the WAL
// are untouched.
namespace {

const char* const k_record_tables[] = {"passes", "agents", "ingest_stats", "selected_kernels",
                                       "run_lock"};

void check_foreign_keys(CaptureDb::Impl& impl) {
  for (const char* table : k_record_tables) {
    SQLite::Statement bad(impl.db,
                          "SELECT rowid, \"parent\" FROM pragma_foreign_key_check(?) LIMIT 1");
    bad.bind(1, table);
    if (bad.executeStep()) {
      throw Error::runtime(std::string("a row of ") + table + " (rowid " +
                               bad.getColumn(0).getString() + ") refers to a missing row of " +
                               bad.getColumn(1).getString() + "; nothing was written",
                           "a kprof bug: please report it with the command that ran");
    }
  }
}

void end_bulk(CaptureDb::Impl& d) {
  sqlite3* h = d.db.getHandle();
  sqlite3_exec(h, "PRAGMA cache_size=-2000", nullptr, nullptr, nullptr);
  sqlite3_exec(h, "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr);
}

}  // namespace

// A bigger page cache keeps the B-tree pages of the growing tables and their indexes in memory for
// the whole load (64 MiB; the default is 2 MiB). It bounds memory: peak RSS stays flat in file
// size.
WriteTransaction::WriteTransaction(CaptureDb& db, WriteKind kind) : m_db(db) {
  CaptureDb::Impl& d = *db.m_impl;
  if (d.outer_write || d.loader_active) {
    throw Error::runtime("a write transaction is already open on '" + d.path.string() + "'",
                         "commit or destroy it first (a kprof bug)");
  }
  if (d.read_only) {
    throw Error::runtime("capture database '" + d.path.string() + "' was opened read-only",
                         "open it read-write to write (a kprof bug)");
  }
  m_bulk = kind == WriteKind::bulk_load;
  guarded(d, "starting a write transaction", [&] {
    try {
      if (m_bulk) {
        d.db.exec("PRAGMA cache_size=-65536");
        d.db.exec("PRAGMA temp_store=MEMORY");
        d.db.exec("PRAGMA foreign_keys=OFF");  // a no-op inside a transaction: set before BEGIN
      }
      d.db.exec("BEGIN IMMEDIATE");
    } catch (...) {
      if (m_bulk) end_bulk(d);
      throw;
    }
  });
  m_open = true;
  d.outer_write = true;
}

WriteTransaction::~WriteTransaction() {
  CaptureDb::Impl& d = *m_db.m_impl;
  if (m_open) sqlite3_exec(d.db.getHandle(), "ROLLBACK", nullptr, nullptr, nullptr);
  if (m_open && m_bulk) end_bulk(d);
  if (m_open) d.outer_write = false;
}

void WriteTransaction::commit() {
  CaptureDb::Impl& d = *m_db.m_impl;
  if (!m_open || d.loader_active) {
    throw Error::runtime("WriteTransaction::commit with a PassLoader open, or twice",
                         "a kprof bug");
  }
  guarded(d, "committing", [&] {
    if (m_bulk) check_foreign_keys(d);
    d.db.exec("COMMIT");
  });
  m_open = false;
  if (m_bulk) end_bulk(d);
  d.outer_write = false;
}

}  // namespace kprof::store
