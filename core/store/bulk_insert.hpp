// The prepared INSERTs shared by PassLoader and the RawInsert baseline, so that the baseline
// measures exactly the loader's storage cost. Internal to core/store. Binds through SQLite's C API:
// SQLiteCpp's per-call checks are measurable at a million rows per second.
#pragma once

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/store/capture_db_impl.hpp"
#include "core/store/row_columns.hpp"
#include "core/store/rows.hpp"

namespace kprof::store {

// A statement prepared once for many executions (SQLITE_PREPARE_PERSISTENT).
class BulkStmt {
 public:
  BulkStmt(sqlite3* db, const char* sql);
  ~BulkStmt();
  BulkStmt(const BulkStmt&) = delete;
  BulkStmt& operator=(const BulkStmt&) = delete;

  sqlite3_stmt* get() const { return m_stmt; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(m_stmt, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(m_stmt, i, v); }
  void bind_text(int i, const std::string& s) {
    sqlite3_bind_text(m_stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
  }
  void bind_null(int i) { sqlite3_bind_null(m_stmt, i); }
  void bind_opt(int i, const std::optional<int64_t>& v) {
    if (v) {
      bind(i, *v);
    } else {
      bind_null(i);
    }
  }
  // Binds the arguments to ?1, ?2, ... in order, then run(): one row of an INSERT.
  template <class... Values>
  int insert(const Values&... values) {
    int i = 0;
    (bind_value(++i, values), ...);
    return run();
  }
  // Binds `lead` to ?1, ?2, ..., then the columns of `t` from `row` (an interned column as
  // intern(text)), then run(): one row of an INSERT made by columns::insert_sql(t, <lead's names>).
  template <class Tbl, class Row, class Intern, class... Lead>
  int insert_row(const Tbl& t, const Row& row, Intern&& intern, const Lead&... lead) {
    bind_row(0, t, row, intern, lead...);
    return run();
  }
  // insert_row's binds without the run, to ?(first + 1), ?(first + 2), ...: one row of a
  // multi-row INSERT.
  template <class Tbl, class Row, class Intern, class... Lead>
  void bind_row(int first, const Tbl& t, const Row& row, Intern&& intern, const Lead&... lead) {
    int i = first;
    (bind_value(++i, lead), ...);
    columns::for_each(t, [&](const auto& c) { bind_column(++i, c, row, intern); });
  }
  // Steps to completion and resets; returns rows changed. Throws SQLite::Exception on error.
  int run();
  // Steps once; true when a row is available (read it, then call reset()).
  bool step_row();
  void reset() { sqlite3_reset(m_stmt); }

 private:
  template <class T>
  void bind_value(int i, const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      bind_text(i, v);
    } else if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
      bind_opt(i, v);
    } else if constexpr (std::is_floating_point_v<T>) {
      bind(i, static_cast<double>(v));
    } else {
      static_assert(std::is_integral_v<T>, "bind an integer, a double, a string or an optional");
      bind(i, static_cast<int64_t>(v));
    }
  }
  template <class Row, class T, class Intern>
  void bind_column(int i, const columns::Plain<Row, T>& c, const Row& row, Intern&) {
    bind_value(i, row.*c.field);
  }
  template <class Row, class Intern>
  void bind_column(int i, const columns::Interned<Row>& c, const Row& row, Intern& intern) {
    bind(i, static_cast<int64_t>(intern(row.*c.field)));
  }

  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

// A dispatch's kernel variant (kernel_variants, schema 5): everything but when and where it ran,
// one value per column of columns::kernel_variants (the name as its interned id). NULL registers
// are stored as INT64_MIN here, a value no layout reports.
using VariantKey = std::array<int64_t, std::tuple_size_v<decltype(columns::kernel_variants.cols)>>;

// Variant key -> kernel_variants.id, looked up once per dispatch row. An open-addressing table of
// (hash, id, key index) slots with the keys in one vector: a lookup touches one slot and one key.
// std::unordered_map took 17% of a kernel_trace load's samples in perf (bench/ingest, 40k
// variants): a node per key, and libstdc++ recomputes the hash of every node it walks past.
class VariantIds {
 public:
  // The id of `key`, or 0 when it is not stored (kernel_variants ids start at 1).
  int64_t find(const VariantKey& key, uint64_t hash) const;
  void insert(const VariantKey& key, uint64_t hash, int64_t id);
  static uint64_t hash_of(const VariantKey& key);
  size_t size() const { return m_keys.size(); }

 private:
  struct Slot {
    uint64_t hash = 0;
    int64_t id = 0;  // 0: empty
    size_t key = 0;  // index into m_keys
  };
  void grow();
  std::vector<Slot> m_slots;
  std::vector<VariantKey> m_keys;
};

struct BulkInserters {
  explicit BulkInserters(sqlite3* db);

  // One dispatch row; its variant is written the first time this object sees it (variants are
  // per pass: use one BulkInserters per pass and transaction). The row itself may wait in
  // `pending` for a multi-row INSERT: call flush() before the transaction commits or anything
  // reads dispatch_rows.
  void dispatch(int64_t pass_id, const DispatchRow& d, int64_t kernel_name_id);
  // Writes the dispatch rows still pending.
  void flush();
  // false when (pass, pid, dispatch, counter) was already stored: a duplicate row.
  bool counter(int64_t pass_id, const CounterRow& c, int64_t counter_id);

  // Rows per multi-row INSERT of dispatch_rows: one sqlite3_step (and one statement run's set-up
  // and teardown) per 256 rows instead of per row, and the index cursor stays where the last row
  // went. 256 rows bind 2,816 parameters; SQLite allows 32,766 since 3.32.0 and 999 before
  // (https://sqlite.org/limits.html#max_variable_number): `batch` is what the connection allows.
  static constexpr int k_batch = 256;
  int batch = k_batch;
  struct Pending {
    int64_t pass_id = 0, variant_id = 0;
    DispatchRow row;  // dispatch_rows' columns only (no kernel name)
  };

  BulkStmt variant_stmt;
  BulkStmt dispatch_stmt;
  BulkStmt dispatch_batch_stmt;
  BulkStmt counter_stmt;
  VariantIds variants;
  std::array<Pending, k_batch> pending;
  int n_pending = 0;
};

}  // namespace kprof::store
