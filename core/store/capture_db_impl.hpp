// CaptureDb's private state and the helpers its .cpp files share. Internal to core/store: this is
// the header that includes SQLiteCpp.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "core/base/error.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::store {

struct CaptureDb::Impl {
  // `flags`: SQLite::OPEN_* (capture_db_open.cpp decides: a writer never creates the file here).
  // `name`: what SQLite opens, the path itself or a `file:` URI of it (with SQLite::OPEN_URI).
  Impl(const std::filesystem::path& p, OpenMode mode, int flags);
  Impl(const std::filesystem::path& p, OpenMode mode, const std::string& name, int flags);

  std::filesystem::path path;
  bool read_only;
  SQLite::Database db;
  bool loader_active = false;  // a PassLoader holds the write transaction
  bool fresh = false;          // a new file being created under its temporary name (no tables yet)
  bool outer_write = false;    // a WriteTransaction is open: PassLoaders use savepoints in it
};

// Runs fn, turning SQLite's exceptions into kprof::Error naming the file and what was being done.
// Busy/locked is a runtime error with a hint about the other process.
[[noreturn]] void rethrow_sqlite(const std::filesystem::path& path, const char* doing,
                                 const SQLite::Exception& e);

template <class F>
auto guarded(CaptureDb::Impl& impl, const char* doing, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const SQLite::Exception& e) {
    rethrow_sqlite(impl.path, doing, e);
  }
}

// The same for the store's files that are not CaptureDb's members (they reach the connection
// through CaptureDb::sql()). A damaged file is named as such, with the recovery hint, as
// with_database_errors names it (CaptureDb::check_intact throws that).
template <class F>
auto guarded(CaptureDb& db, const char* doing, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const SQLite::Exception& e) {
    const int primary = e.getErrorCode() & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) db.check_intact();
    rethrow_sqlite(db.path(), doing, e);
  }
}

// Binding optionals: NULL when empty.
inline void bind_opt(SQLite::Statement& st, int index, const std::optional<int64_t>& v) {
  if (v) {
    st.bind(index, *v);
  } else {
    st.bind(index);
  }
}
inline std::optional<int64_t> column_opt(const SQLite::Statement& st, int index) {
  SQLite::Column c = st.getColumn(index);
  if (c.isNull()) return std::nullopt;
  return c.getInt64();
}

// Writes through a connection whose PassLoader is open would silently join the load's transaction
// (and vanish with its rollback): throws unless the caller committed the load first.
void require_no_loader(CaptureDb::Impl& impl, const char* doing);
// Throws when an UPDATE changed nothing: `what` ("pass 3") is not in the file.
void require_changed(CaptureDb::Impl& impl, int changes, const std::string& what);

// Deletes every ingested row of a pass (no transaction of its own).
void delete_pass_rows(SQLite::Database& db, int64_t pass_id);

// Throws Error(input) unless the connection's file is a kprof database (has schema_version).
// Reads only.
void require_kprof_file(CaptureDb::Impl& impl);

// The hint for a damaged file: how to get its rows out with SQLite's own recovery.
std::string recover_hint(const std::filesystem::path& path);

// Applies the embedded migrations (read-write) or checks the version (read-only).
void migrate(CaptureDb::Impl& impl);

}  // namespace kprof::store
