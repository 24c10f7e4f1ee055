// Opening a capture database so that a command that fails changes nothing it refuses:
//  1. a missing file is created whole (schema and WAL mode) under a temporary name and linked into
//     place, so the path is either absent or a complete kprof database, never a half-made one;
//  2. an existing file is checked before anything writes: a 0-byte file, a foreign SQLite file or
//     one that is not SQLite at all is refused and left byte for byte as it was, and a writer runs
//     `PRAGMA quick_check` first and refuses a damaged file (with the `.recover` hint);
//  3. only then does a writer switch to WAL and apply forward migrations.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "core/store/capture_db_impl.hpp"
#include "core/store/database_path.hpp"

namespace kprof::store {

namespace fs = std::filesystem;

namespace {

// Writers wait this long for each other. A big ingest holds the write lock for its whole load
// (tens of seconds for millions of rows), and the executor's bookkeeping may wait for it.
constexpr int k_busy_timeout_ms = 60'000;

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Switches the connection to WAL. Changing the journal mode from a rollback journal to WAL takes
// an exclusive lock while the statement already holds a shared one; when another process holds a
// shared lock too, SQLite returns SQLITE_BUSY at once instead of calling the busy handler, because
// waiting could deadlock (https://sqlite.org/c3ref/busy_handler.html, "The presence of a busy
// handler does not guarantee that it will be invoked"; lock states in
// https://sqlite.org/lockingv3.html). So the busy timeout does not cover this step: retry it
// here for as long as the busy timeout, with a short randomized sleep so the contenders drop
// their shared locks at different times. WAL mode is persistent in the file header
// (https://sqlite.org/wal.html#persistence_of_wal_mode): files kprof creates are WAL already, and
// this only matters for one made in rollback mode (an old kprof, or `sqlite3 .import`).
void switch_to_wal(CaptureDb::Impl& impl) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(k_busy_timeout_ms);
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
  for (;;) {
    try {
      const std::string mode = impl.db.execAndGet("PRAGMA journal_mode=WAL").getString();
      if (mode != "wal") {
        throw Error::runtime("capture database " + quoted(impl.path) +
                                 " cannot use write-ahead logging (journal mode is " + mode + ")",
                             "put the database on a local filesystem");
      }
      return;
    } catch (const SQLite::Exception& e) {
      if ((e.getErrorCode() & 0xff) != SQLITE_BUSY ||
          std::chrono::steady_clock::now() >= deadline) {
        throw;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + jitter() % 20));
  }
}

// Connection settings of a writer, after the file was checked.
void set_up_writer(CaptureDb::Impl& impl) {
  // WAL: readers (kprof status, query) never block the writer or each other. NORMAL is durable
  // across application crashes in WAL mode and loses at most the last commits on power loss,
  // never consistency (https://www.sqlite.org/pragma.html#pragma_synchronous).
  switch_to_wal(impl);
  impl.db.exec("PRAGMA synchronous=NORMAL");
  // A big load grows the WAL to the size of the pass; truncate it after checkpoints.
  impl.db.exec("PRAGMA journal_size_limit=67108864");
}

// Structural check of every page before kprof writes into an existing file: writing into a
// damaged b-tree spreads the damage. quick_check is integrity_check without the check that each
// index matches its table, one pass over the file
// (https://sqlite.org/pragma.html#pragma_quick_check).
void require_intact(CaptureDb::Impl& impl) {
  std::vector<std::string> problems;
  try {
    SQLite::Statement st(impl.db, "PRAGMA quick_check(5)");
    while (st.executeStep()) problems.push_back(st.getColumn(0).getString());
  } catch (const SQLite::Exception& e) {
    // Damage to the schema page itself stops the check before it can list anything.
    if ((e.getErrorCode() & 0xff) != SQLITE_CORRUPT) throw;
    problems = {e.what()};
  }
  if (problems.size() == 1 && problems[0] == "ok") return;
  std::string first = problems.empty() ? std::string("no result") : problems[0];
  for (char& c : first)
    if (c == '\n') c = ' ';
  throw Error::input("capture database " + quoted(impl.path) + " is damaged: PRAGMA quick_check: " +
                         first + (problems.size() > 1 ? " (and more)" : ""),
                     "kprof writes nothing into it; " + recover_hint(impl.path));
}

// Everything a command checks before it may change the file. Nothing here writes:
// `PRAGMA query_only` makes any attempt an error
// (https://sqlite.org/pragma.html#pragma_query_only).
void check_before_changing(CaptureDb::Impl& impl) {
  impl.db.exec("PRAGMA query_only=1");  // a reader keeps it set (open_flags)
  require_kprof_file(impl);
  if (!impl.read_only) {
    require_intact(impl);
    impl.db.exec("PRAGMA query_only=0");
  }
}

// A 0-byte file is not a database kprof made (it creates files whole); leave it alone.
void refuse_empty_file(const fs::path& path, bool read_only) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // SQLite reports a missing file itself
  if (S_ISDIR(st.st_mode)) {
    throw Error::input("capture database " + quoted(path) + " is a folder",
                       "name a database file, e.g. " + (path / "captures.db").string());
  }
  if (S_ISREG(st.st_mode) && st.st_size == 0) {
    throw Error::input(
        "capture database " + quoted(path) + " is an empty file, not a kprof database",
        read_only ? "create it with `kprof run` or `kprof ingest` under a new name"
                  : "kprof leaves it as it is; remove it or give kprof another file name");
  }
}

fs::path temporary_sibling(const fs::path& path) {
  std::random_device rd;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  return dir / ("." + path.filename().string() + ".kprof-new-" + std::to_string(::getpid()) + "-" +
                std::to_string(rd()));
}

void remove_sqlite_files(const fs::path& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    ::unlink((db.string() + suffix).c_str());
}

// Creates `path` as a complete kprof database, or leaves it to whoever created it first; true
// when this call's file is the one linked into place.
bool create_whole(const fs::path& path) {
  const fs::path tmp = temporary_sibling(path);
  try {
    CaptureDb::Impl impl(tmp, OpenMode::read_write, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    impl.fresh = true;
    set_up_writer(impl);
    impl.db.exec("PRAGMA foreign_keys=ON");
    migrate(impl);
  } catch (const SQLite::Exception& e) {
    remove_sqlite_files(tmp);
    rethrow_sqlite(path, "creating", e);
  } catch (...) {
    remove_sqlite_files(tmp);
    throw;
  }
  // The connection is closed: SQLite checkpointed the WAL into the file and removed it, so `tmp`
  // alone is the whole database. link(2) fails with EEXIST when another process created `path`
  // first; then its file is the database and ours is dropped. renameat2(RENAME_NOREPLACE) is the
  // same for file systems without hard links.
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  if (rc != 0 && err != EEXIST) {
    rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    err = errno;
  }
  remove_sqlite_files(tmp);
  if (rc != 0 && err != EEXIST) {
    throw Error::runtime("capture database " + quoted(path) + ": creating: " + std::strerror(err),
                         "check that the file's folder exists and is writable");
  }
  return rc == 0;
}

std::string file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

int open_flags(const fs::path& path, OpenMode mode) {
  // A writer never creates here: create_whole() did, so a file that vanished meanwhile is an error
  // rather than a new empty one.
  if (mode == OpenMode::read_write) return SQLite::OPEN_READWRITE;
  // A reader of a WAL file creates its -wal and -shm files, and an SQLITE_OPEN_READONLY connection
  // can never remove them again: only the last connection's checkpoint on close deletes them
  // (https://sqlite.org/wal.html#readonly, #the_wal_file). So a reader opens a writable file
  // read-write with `PRAGMA query_only` set for its whole life (no statement can change anything)
  // and leaves the folder as it found it; a file it may not write is opened read-only.
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const bool writable = ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
  return writable ? SQLite::OPEN_READWRITE : SQLite::OPEN_READONLY;
}

// A `file:` URI naming `path`: '%', '?' and '#' percent-encoded, the rest as it is
// (https://www.sqlite.org/uri.html, "URI Format").
std::string file_uri(const fs::path& path, const char* query) {
  std::string uri = "file:";
  for (const char c : fs::absolute(path).lexically_normal().string()) {
    if (c == '%' || c == '?' || c == '#') {
      static const char* hex = "0123456789ABCDEF";
      uri += '%';
      uri += hex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      uri += hex[static_cast<unsigned char>(c) & 0xF];
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

// What a reader that may not write the file or its folder opens. A read-only connection to a WAL
// database needs the -shm file, and SQLite creates it when missing, which such a folder refuses
// ("attempt to write a readonly database"). With no -wal file (or an empty one) every committed
// row is in the database file itself: `immutable=1` reads it without any lock or side file
// (https://www.sqlite.org/uri.html, "immutable": the file is assumed not to change while it is
// open, which holds as long as nobody can write it). With a -wal holding commits, only a
// connection that reads it sees them: `mode=ro`, which needs a -shm SQLite can read or create.
std::string read_only_name(const fs::path& path) {
  struct stat st {};
  const bool pending_wal = ::stat((path.string() + "-wal").c_str(), &st) == 0 && st.st_size > 0;
  return file_uri(path, pending_wal ? "mode=ro" : "immutable=1");
}

}  // namespace

CaptureDb::Impl::Impl(const fs::path& p, OpenMode mode, int flags)
    : Impl(p, mode, p.string(), flags) {}

CaptureDb::Impl::Impl(const fs::path& p, OpenMode mode, const std::string& name, int flags)
    : path(p), read_only(mode == OpenMode::read_only), db(name, flags, k_busy_timeout_ms) {}

void create_capture_db(const fs::path& path) { create_capture_db_here(path); }

bool create_capture_db_here(const fs::path& path) {
  require_database_path(path);
  std::error_code ec;
  return !fs::exists(path, ec) && create_whole(path);
}

void require_database_path(const fs::path& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return;  // missing: created whole, or refused as missing
  struct stat st {};
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &st) != 0) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    throw Error::input("capture database " + quoted(path) + " is a symbolic link to " +
                           quoted(target) + ", which does not exist",
                       "kprof creates a database only under a name that is not a link: name the "
                       "file itself (" +
                           target.string() + ") or a new file");
  }
  if (!S_ISLNK(link.st_mode)) st = link;
  if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;
  throw Error::input(
      "capture database " + quoted(path) + " is " + file_kind(st.st_mode) + ", not a database file",
      "name a database file, e.g. captures.db");
}

std::string recover_hint(const fs::path& path) {
  return "recover what it holds with `sqlite3 " + path.string() + " .recover | sqlite3 " +
         path.string() + ".recovered` and use the new file (https://sqlite.org/recovery.html)";
}

// A file holding no schema_version table was made by something else; never touch it.
void require_kprof_file(CaptureDb::Impl& impl) {
  if (impl.fresh || impl.db.tableExists("schema_version")) return;
  const int64_t objects =
      impl.db.execAndGet("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
          .getInt64();
  if (objects > 0) {
    throw Error::input(
        "capture database " + quoted(impl.path) +
            " is an SQLite database but not one of kprof's (no schema_version table)",
        "give kprof a new file name for its database");
  }
  throw Error::input("capture database " + quoted(impl.path) +
                         " is an SQLite database with no tables, not one of kprof's",
                     "kprof leaves it as it is; give kprof a new file name for its database");
}

CaptureDb::CaptureDb(const fs::path& path, OpenMode mode) {
  // SQLite's memory statistics take a global mutex on every allocation, several per inserted row
  // (2-3% of a load's samples in perf); kprof never reads them. The setting is only accepted
  // before SQLite initializes (https://sqlite.org/c3ref/config.html, SQLITE_CONFIG_MEMSTATUS), so
  // it is made once, before the first connection; later it is refused with SQLITE_MISUSE and
  // changes nothing.
  static const int memstatus_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)memstatus_off;
  require_database_path(path);
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (mode == OpenMode::read_only && !exists) {
    throw Error::input("capture database '" + path.string() + "' does not exist",
                       "check the path, or create it with `kprof run` or `kprof ingest`");
  }
  if (mode == OpenMode::read_write && !exists) create_whole(path);
  refuse_empty_file(path, mode == OpenMode::read_only);
  try {
    // NOMUTEX: one CaptureDb belongs to one thread (capture_db.hpp), so SQLite's per-call
    // connection mutex guards nothing; in the default serialized mode every bind and step takes
    // it, ~10% of a load's time (https://www.sqlite.org/threadsafe.html: the "multi-thread" mode
    // is safe as long as no connection is used by two threads at once).
    const int flags = open_flags(path, mode) | SQLite::OPEN_NOMUTEX;
    if (flags & SQLite::OPEN_READWRITE) {
      m_impl = std::make_unique<Impl>(path, mode, flags);
    } else {
      m_impl = std::make_unique<Impl>(path, mode, read_only_name(path), flags | SQLite::OPEN_URI);
    }
  } catch (const SQLite::Exception& e) {
    rethrow_sqlite(path, "opening", e);
  }
  guarded(*m_impl, "opening", [&] {
    check_before_changing(*m_impl);
    if (!m_impl->read_only) set_up_writer(*m_impl);
    m_impl->db.exec("PRAGMA foreign_keys=ON");
    migrate(*m_impl);
  });
}

void with_database_errors(const std::vector<fs::path>& dbs, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const SQLite::Exception& e) {
    const int primary = e.getErrorCode() & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
      for (const auto& db : dbs) {
        CaptureDb check(db, OpenMode::read_only);
        check.check_intact();  // throws the damage of the file that has it, with the hint
      }
    }
    rethrow_sqlite(dbs.empty() ? fs::path("?") : dbs.front(), "reading", e);
  }
}

void CaptureDb::check_intact() {
  guarded(*m_impl, "checking", [&] { require_intact(*m_impl); });
}

}  // namespace kprof::store
