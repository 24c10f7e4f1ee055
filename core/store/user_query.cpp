#include "core/store/user_query.hpp"

#include <array>
#include <cctype>
#include <cstring>

#include "core/base/duration.hpp"
#include "core/store/capture_db_impl.hpp"

namespace kprof::store {

struct UserQuery::Guard {
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds timeout{0};
  bool timed_out = false;
  std::string denied;  // the first action the authorizer refused, for the message
  int old_length_limit = 0;
};

namespace {

// PRAGMAs that only describe the schema or the file; allowed with or without an argument (a table
// or index name). Any other PRAGMA is allowed only without an argument and only if it is in
// k_read_pragmas; an assignment (`PRAGMA user_version=3`) is denied.
constexpr std::array<const char*, 6> k_schema_pragmas = {
    "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"};
constexpr std::array<const char*, 13> k_read_pragmas = {
    "table_list",     "database_list",   "collation_list", "function_list", "module_list",
    "pragma_list",    "compile_options", "page_count",     "page_size",     "freelist_count",
    "schema_version", "user_version",    "application_id"};
// Functions with effects outside the statement
// (https://sqlite.org/lang_corefunc.html#load_extension, https://sqlite.org/fts3.html#f3tknzr);
// readfile/writefile/edit exist only in the sqlite3 shell but are named in case an extension adds
// them.
constexpr std::array<const char*, 5> k_denied_functions = {"load_extension", "fts3_tokenizer",
                                                           "writefile", "readfile", "edit"};

template <size_t N>
bool in(const std::array<const char*, N>& list, const char* name) {
  if (!name) return false;
  for (const char* n : list)
    if (sqlite3_stricmp(n, name) == 0) return true;
  return false;
}

std::string lower(const char* s) {
  std::string out = s ? s : "";
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int authorize(void* ctx, int action, const char* a1, const char* a2, const char*, const char*) {
  auto* guard = static_cast<UserQuery::Guard*>(ctx);
  auto deny = [&](std::string what) {
    // The first refusal names the statement, except that ANALYZE first creates its statistics
    // table: a later specific name replaces the generic one.
    if (guard->denied.empty() || guard->denied == "CREATE/DROP") guard->denied = std::move(what);
    return SQLITE_DENY;
  };
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      // a1 is NULL, a2 the function's name.
      if (in(k_denied_functions, a2)) return deny("the function " + lower(a2) + "()");
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      // a1 the pragma's name, a2 its argument or NULL.
      if (in(k_schema_pragmas, a1)) return SQLITE_OK;
      if (a2 == nullptr && in(k_read_pragmas, a1)) return SQLITE_OK;
      return deny("PRAGMA " + lower(a1) + (a2 ? "=" + std::string(a2) : std::string()));
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE: {
      // a1 the table. CREATE and DROP first change the schema table, so they arrive here.
      const std::string table = lower(a1);
      const bool schema_table =
          table.rfind("sqlite_", 0) == 0 &&
          (table.find("master") != std::string::npos || table.find("schema") != std::string::npos);
      // Reading an eponymous virtual table (pragma_table_info('t')) asks for UPDATE of the schema
      // table's columns while SQLite loads the table's declaration; nothing is written, and a
      // statement that did write would fail sqlite3_stmt_readonly() below.
      if (schema_table && action == SQLITE_UPDATE) return SQLITE_OK;
      if (schema_table) return deny("CREATE/DROP");
      const char* verb = action == SQLITE_INSERT   ? "INSERT into "
                         : action == SQLITE_UPDATE ? "UPDATE of "
                                                   : "DELETE from ";
      return deny(verb + table);
    }
    case SQLITE_ATTACH:
      return deny("ATTACH");
    case SQLITE_DETACH:
      return deny("DETACH");
    case SQLITE_TRANSACTION:
      return deny("a transaction (BEGIN/COMMIT/ROLLBACK)");
    case SQLITE_SAVEPOINT:
      return deny("SAVEPOINT");
    case SQLITE_ANALYZE:
      return deny("ANALYZE");
    case SQLITE_REINDEX:
      return deny("REINDEX");
    case SQLITE_ALTER_TABLE:
      return deny("ALTER TABLE");
    default:
      // CREATE/DROP of tables, indexes, views, triggers (temporary ones too), virtual tables.
      return deny("CREATE/DROP");
  }
}

int progress(void* ctx) {
  auto* guard = static_cast<UserQuery::Guard*>(ctx);
  if (std::chrono::steady_clock::now() < guard->deadline) return 0;
  guard->timed_out = true;
  return 1;  // interrupts the statement with SQLITE_INTERRUPT
}

// The virtual machine instructions between two clock reads: about a millisecond of work.
constexpr int k_progress_ops = 10000;
// The longest text or blob a statement may build (zeroblob(1e9) would take a gigabyte).
constexpr int k_max_value_bytes = 64 << 20;

const char* k_hint =
    "--sql runs one statement that only reads: SELECT (WITH ... SELECT), and PRAGMA table_info "
    "and the like";

std::string shorten(std::string_view s) {
  std::string out(s.substr(0, 60));
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s.size() > 60 ? out + "..." : out;
}

}  // namespace

UserQuery::UserQuery(CaptureDb& db, std::string_view sql, std::chrono::milliseconds timeout)
    : m_db(db), m_guard(std::make_unique<Guard>()) {
  sqlite3* h = db.sql().getHandle();
  m_guard->timeout = timeout;
  m_guard->deadline = std::chrono::steady_clock::now() + timeout;
  sqlite3_set_authorizer(h, authorize, m_guard.get());
  sqlite3_progress_handler(h, k_progress_ops, progress, m_guard.get());
  m_guard->old_length_limit = sqlite3_limit(h, SQLITE_LIMIT_LENGTH, k_max_value_bytes);
  try {
    const std::string text(sql);
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(h, text.c_str(), static_cast<int>(text.size()), &raw, &tail);
    if (rc != SQLITE_OK) {
      const std::string msg = sqlite3_errmsg(h);
      if (!m_guard->denied.empty()) {
        throw Error::input("--sql: " + m_guard->denied + " is not allowed", k_hint);
      }
      throw Error::input("SQL error: " + msg,
                         "tables: runs, passes, strings, dispatches, counter_values, ...; views: "
                         "v_dispatches, v_joined_counters, v_kernel_totals");
    }
    if (raw == nullptr) throw Error::input("--sql: no SQL statement given", k_hint);
    const bool read_only = sqlite3_stmt_readonly(raw) != 0;
    sqlite3_finalize(raw);
    const size_t first_len = static_cast<size_t>(tail - text.c_str());
    // What follows must be empty: preparing it yields no statement for spaces and comments only.
    const std::string rest = text.substr(first_len);
    sqlite3_stmt* next = nullptr;
    const int rc2 =
        sqlite3_prepare_v2(h, rest.c_str(), static_cast<int>(rest.size()), &next, nullptr);
    sqlite3_finalize(next);
    if (rc2 != SQLITE_OK || next != nullptr) {
      std::string second = rest;
      second.erase(0, second.find_first_not_of(" \t\r\n;"));
      throw Error::input(
          "--sql takes one statement; a second one follows: '" + shorten(second) + "'",
          "run each statement with its own --sql");
    }
    m_guard->denied.clear();  // the tail's prepare may have recorded a denial of its own
    if (!read_only) {
      throw Error::input("--sql: '" + shorten(text) + "' would change the database or a file",
                         k_hint);
    }
    m_statement = std::make_unique<SQLite::Statement>(db.sql(), text.substr(0, first_len));
  } catch (...) {
    sqlite3_set_authorizer(h, nullptr, nullptr);
    sqlite3_progress_handler(h, 0, nullptr, nullptr);
    sqlite3_limit(h, SQLITE_LIMIT_LENGTH, m_guard->old_length_limit);
    throw;
  }
}

UserQuery::~UserQuery() {
  m_statement.reset();
  sqlite3* h = m_db.sql().getHandle();
  sqlite3_set_authorizer(h, nullptr, nullptr);
  sqlite3_progress_handler(h, 0, nullptr, nullptr);
  sqlite3_limit(h, SQLITE_LIMIT_LENGTH, m_guard->old_length_limit);
}

SQLite::Statement& UserQuery::statement() { return *m_statement; }

std::vector<std::string> UserQuery::column_names() const {
  std::vector<std::string> out;
  for (int i = 0; i < m_statement->getColumnCount(); ++i)
    out.emplace_back(m_statement->getColumnName(i));
  return out;
}

std::vector<UserValue> UserQuery::row() const {
  std::vector<UserValue> out;
  for (int i = 0; i < m_statement->getColumnCount(); ++i) {
    const auto c = m_statement->getColumn(i);
    if (c.isNull())
      out.emplace_back();
    else if (c.isInteger())
      out.emplace_back(c.getInt64());
    else if (c.isFloat())
      out.emplace_back(c.getDouble());
    else
      out.emplace_back(c.getString());
  }
  return out;
}

bool UserQuery::step() {
  try {
    return m_statement->executeStep();
  } catch (const SQLite::Exception& e) {
    if (m_guard->timed_out) {
      throw Error::input("--sql: the statement was stopped after " +
                             format_duration(m_guard->timeout) + " (--timeout)",
                         "narrow it (a WHERE, a LIMIT), or allow longer with --timeout 10m");
    }
    if ((e.getErrorCode() & 0xff) == SQLITE_CORRUPT) {
      throw Error::input("SQL error: " + std::string(e.what()), recover_hint(m_db.path()));
    }
    throw Error::input("SQL error: " + std::string(e.what()), "");
  }
}

}  // namespace kprof::store
