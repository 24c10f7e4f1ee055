// Opening a capture database: connection settings, schema version checks and forward migrations.
#include <SQLiteCpp/Transaction.h>

#include <string>

#include "core/store/capture_db_impl.hpp"
#include "core/store/schema_files.hpp"

namespace kprof::store {

namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

int64_t current_version(SQLite::Database& db) {
  if (!db.tableExists("schema_version")) return 0;
  return db.execAndGet("SELECT coalesce(max(version), 0) FROM schema_version").getInt64();
}

void check_not_newer(CaptureDb::Impl& impl, int64_t version, int64_t latest) {
  if (version > latest) {
    throw Error::input(
        "capture database " + quoted(impl.path) + " has schema version " + std::to_string(version) +
            ", but this kprof (" KPROF_VERSION ") knows versions up to " + std::to_string(latest),
        "open it with a newer kprof, or give this one another database file");
  }
}

void check_files_contiguous(const std::vector<SchemaFile>& files) {
  // A gap would be a build mistake (a migration file deleted or misnumbered).
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].version != static_cast<int64_t>(i + 1)) {
      throw Error::runtime(std::string("embedded schema file ") + files[i].name + " has version " +
                               std::to_string(files[i].version) + ", expected " +
                               std::to_string(i + 1),
                           "core/store/schema/ must hold 0001_*.sql, 0002_*.sql, ... without gaps");
    }
  }
}

}  // namespace

void rethrow_sqlite(const std::filesystem::path& path, const char* doing,
                    const SQLite::Exception& e) {
  const int primary = e.getErrorCode() & 0xff;
  const std::string where = "capture database " + quoted(path) + ": " + doing + ": ";
  switch (primary) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw Error::runtime(where + e.what(),
                           "another process is writing to it; wait for it to finish");
    case SQLITE_READONLY:
      throw Error::runtime(where + e.what(),
                           "the database was opened read-only, or the file is not writable");
    case SQLITE_FULL:
      throw Error::runtime(where + e.what(), "the disk is full; free space and retry");
    case SQLITE_NOTADB:
      throw Error::input(where + "not an SQLite database file",
                         "give kprof a new file name for its database");
    case SQLITE_CORRUPT:
      throw Error::input(where + e.what(), recover_hint(path));
    case SQLITE_CANTOPEN:
      throw Error::runtime(where + e.what(), "check that the file's folder exists and is writable");
    case SQLITE_CONSTRAINT:
      throw Error::runtime(where + e.what(), "a value broke the schema's rules (a kprof bug)");
    default:
      throw Error::runtime(where + e.what(), "");
  }
}

void migrate(CaptureDb::Impl& impl) {
  const auto& files = schema_files();
  check_files_contiguous(files);
  const int64_t latest = files.empty() ? 0 : files.back().version;
  auto& db = impl.db;

  // open_capture_db() already checked that this is a kprof database (require_kprof_file) and set
  // the connection up.
  int64_t version = current_version(db);
  check_not_newer(impl, version, latest);
  if (impl.read_only) {
    if (version < latest) {
      throw Error::input("capture database " + quoted(impl.path) + " has schema version " +
                             std::to_string(version) + ", older than this kprof's " +
                             std::to_string(latest),
                         "run a kprof command that writes to it (ingest, run, resume) to migrate");
    }
    return;
  }
  if (version == latest) return;

  // IMMEDIATE takes the write lock first, so two processes creating one file do not both migrate;
  // the second re-reads the version under the lock and finds nothing to do.
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  require_kprof_file(impl);
  version = current_version(db);
  check_not_newer(impl, version, latest);
  for (const auto& f : files) {
    if (f.version <= version) continue;
    try {
      db.exec(f.sql);
    } catch (const SQLite::Exception& e) {
      throw Error::runtime(
          std::string("migration ") + f.name + " failed on " + quoted(impl.path) + ": " + e.what(),
          "the database was left as it was; report this as a kprof bug");
    }
    SQLite::Statement ins(db, "INSERT INTO schema_version(version, applied_ms) VALUES (?, ?)");
    ins.bind(1, f.version);
    ins.bind(2, now_unix_ms());
    ins.exec();
  }
  tx.commit();
}

}  // namespace kprof::store
