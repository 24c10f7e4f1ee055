// The rocpd database the test double writes (rocpd_output.cpp): a minimal SQLite writer and the
// schema, each table created with the session's UUID suffix and an unsuffixed view of it, as
// rocprofv3 7.0 does (the schema's source: rocpd_schema.cpp). Private to core/sim.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::sim::rocpd {

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open(path.c_str(), &m_db) != SQLITE_OK)
      throw Error::runtime("cannot create rocpd database '" + path + "'",
                           "check that the output directory is writable");
  }
  ~Db() { sqlite3_close(m_db); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw Error::runtime("rocpd write failed: " + msg, "this is a bug in rocprofv3-sim");
    }
  }
  sqlite3* handle() { return m_db; }

 private:
  sqlite3* m_db = nullptr;
};

// A prepared INSERT with positional binding helpers.
class Insert {
 public:
  Insert(Db& db, const std::string& sql) : m_db(db.handle()) {
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK)
      throw Error::runtime(std::string("rocpd prepare failed: ") + sqlite3_errmsg(m_db),
                           "this is a bug in rocprofv3-sim");
  }
  ~Insert() { sqlite3_finalize(m_stmt); }
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;

  Insert& i(int64_t v) {
    sqlite3_bind_int64(m_stmt, ++m_n, v);
    return *this;
  }
  Insert& d(double v) {
    sqlite3_bind_double(m_stmt, ++m_n, v);
    return *this;
  }
  Insert& t(const std::string& v) {
    sqlite3_bind_text(m_stmt, ++m_n, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Insert& null() {
    sqlite3_bind_null(m_stmt, ++m_n);
    return *this;
  }
  void run() {
    if (sqlite3_step(m_stmt) != SQLITE_DONE)
      throw Error::runtime(std::string("rocpd insert failed: ") + sqlite3_errmsg(m_db),
                           "this is a bug in rocprofv3-sim");
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
    m_n = 0;
  }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
  int m_n = 0;
};

// A random-looking version-4 UUID, the same for the same seed (a run of the double is
// reproducible).
std::string make_uuid(uint64_t seed);

// Table name -> column definitions (first column is the id), in creation order.
const std::vector<std::pair<std::string, std::string>>& tables();

// The data views over the unsuffixed table views (`kernels`, `pmc_info`, `counters_collection`).
const char* data_views();

}  // namespace kprof::sim::rocpd
