// The shared prepared INSERTs, and the RawInsert storage-limit baseline for bench/ingest.
#include <SQLiteCpp/Exception.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/store/bulk_insert.hpp"

namespace kprof::store {

BulkStmt::BulkStmt(sqlite3* db, const char* sql) : m_db(db) {
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
  if (rc != SQLITE_OK) throw SQLite::Exception(db, rc);
}

BulkStmt::~BulkStmt() { sqlite3_finalize(m_stmt); }

int BulkStmt::run() {
  int rc = sqlite3_step(m_stmt);
  sqlite3_reset(m_stmt);
  if (rc != SQLITE_DONE) throw SQLite::Exception(m_db, rc);
  return sqlite3_changes(m_db);
}

bool BulkStmt::step_row() {
  int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  sqlite3_reset(m_stmt);
  if (rc != SQLITE_DONE) throw SQLite::Exception(m_db, rc);
  return false;
}

uint64_t VariantIds::hash_of(const VariantKey& key) {
  // splitmix64's finalizer over each value (https://prng.di.unimi.it/splitmix64.c): every input
  // bit reaches the low bits the slot index is taken from.
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int64_t x : key) {
    uint64_t z = h ^ static_cast<uint64_t>(x);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    h = z ^ (z >> 31);
  }
  return h;
}

int64_t VariantIds::find(const VariantKey& key, uint64_t hash) const {
  if (m_slots.empty()) return 0;
  const size_t mask = m_slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = m_slots[i];
    if (s.id == 0) return 0;
    if (s.hash == hash && m_keys[s.key] == key) return s.id;
  }
}

void VariantIds::insert(const VariantKey& key, uint64_t hash, int64_t id) {
  // At most half full, so that a miss ends after a few slots.
  if ((m_keys.size() + 1) * 2 > m_slots.size()) grow();
  m_keys.push_back(key);
  const size_t mask = m_slots.size() - 1;
  size_t i = hash & mask;
  while (m_slots[i].id != 0) i = (i + 1) & mask;
  m_slots[i] = Slot{hash, id, m_keys.size() - 1};
}

void VariantIds::grow() {
  std::vector<Slot> old = std::move(m_slots);
  m_slots.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = m_slots.size() - 1;
  for (const Slot& s : old) {
    if (s.id == 0) continue;
    size_t i = s.hash & mask;
    while (m_slots[i].id != 0) i = (i + 1) & mask;
    m_slots[i] = s;
  }
}

namespace {

// insert_sql's statement with `rows` rows of values, its parameters numbered on: the second row's
// first is ?(columns + 1). Written as bare '?', which SQLite numbers one past the last
// (https://sqlite.org/lang_expr.html#parameters): an explicit ?NNN is looked up among the
// statement's earlier ones as it is prepared, quadratic in their number (sqlite3VListNumToName
// took 3% of a simulated `kprof run`'s CPU, four passes, with ?1 .. ?2816).
std::string multi_row_sql(const std::string& one_row, int rows) {
  const size_t values = one_row.find(" VALUES ");
  const int columns = static_cast<int>(
      std::count(one_row.begin() + static_cast<std::ptrdiff_t>(values), one_row.end(), '?'));
  std::string sql = one_row.substr(0, values) + " VALUES ";
  for (int r = 0; r < rows; ++r) {
    sql += r ? ",(" : "(";
    for (int c = 0; c < columns; ++c) sql += c ? ",?" : "?";
    sql += ")";
  }
  return sql;
}

constexpr int k_dispatch_params =
    2 + static_cast<int>(std::tuple_size_v<decltype(columns::dispatch_rows.cols)>);

int dispatch_batch(sqlite3* db) {
  const int params = sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
  return std::clamp(params / k_dispatch_params, 1, BulkInserters::k_batch);
}

}  // namespace

BulkInserters::BulkInserters(sqlite3* db)
    : batch(dispatch_batch(db)),
      variant_stmt(db, columns::insert_sql(columns::kernel_variants, {"pass_id"}).c_str()),
      dispatch_stmt(db,
                    columns::insert_sql(columns::dispatch_rows, {"pass_id", "variant_id"}).c_str()),
      dispatch_batch_stmt(
          db, multi_row_sql(columns::insert_sql(columns::dispatch_rows, {"pass_id", "variant_id"}),
                            dispatch_batch(db))
                  .c_str()),
      counter_stmt(
          db, columns::insert_sql(columns::counter_values, {"pass_id"}, " ON CONFLICT DO NOTHING")
                  .c_str()) {}

namespace {

// A variant column's value in the key: the name as its id, a missing register as INT64_MIN.
template <class T>
int64_t key_value(const T& v) {
  if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
    return v.value_or(std::numeric_limits<int64_t>::min());
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace

void BulkInserters::dispatch(int64_t pass_id, const DispatchRow& d, int64_t kernel_name_id) {
  VariantKey key{};
  size_t k = 0;
  columns::for_each(columns::kernel_variants, [&](const auto& c) {
    if constexpr (std::is_same_v<std::decay_t<decltype(c)>, columns::Interned<DispatchRow>>) {
      key[k++] = kernel_name_id;
    } else {
      key[k++] = key_value(d.*c.field);
    }
  });
  const auto name_id = [&](const std::string&) { return kernel_name_id; };
  const uint64_t hash = VariantIds::hash_of(key);
  int64_t variant_id = variants.find(key, hash);
  if (variant_id == 0) {
    variant_stmt.insert_row(columns::kernel_variants, d, name_id, pass_id);
    variant_id = sqlite3_last_insert_rowid(sqlite3_db_handle(variant_stmt.get()));
    variants.insert(key, hash, variant_id);
  }
  Pending& p = pending[static_cast<size_t>(n_pending++)];
  p.pass_id = pass_id;
  p.variant_id = variant_id;
  columns::for_each(columns::dispatch_rows, [&](const auto& c) { p.row.*c.field = d.*c.field; });
  if (n_pending < batch) return;
  for (int r = 0; r < batch; ++r) {
    const Pending& q = pending[static_cast<size_t>(r)];
    dispatch_batch_stmt.bind_row(r * k_dispatch_params, columns::dispatch_rows, q.row, name_id,
                                 q.pass_id, q.variant_id);
  }
  n_pending = 0;
  dispatch_batch_stmt.run();
}

void BulkInserters::flush() {
  const auto no_name = [](const std::string&) { return int64_t{0}; };
  for (int r = 0; r < n_pending; ++r) {
    const Pending& q = pending[static_cast<size_t>(r)];
    dispatch_stmt.insert_row(columns::dispatch_rows, q.row, no_name, q.pass_id, q.variant_id);
  }
  n_pending = 0;
}

bool BulkInserters::counter(int64_t pass_id, const CounterRow& c, int64_t counter_id) {
  const auto id = [&](const std::string&) { return counter_id; };
  return counter_stmt.insert_row(columns::counter_values, c, id, pass_id) == 1;
}

namespace {

// The loader's transaction and settings (WriteKind::bulk_load), so the two compare like for like.
template <class F>
int64_t raw_transaction(CaptureDb& db, CaptureDb::Impl& impl, F&& body) {
  return guarded(impl, "raw insert", [&] {
    WriteTransaction tx(db, WriteKind::bulk_load);
    const int64_t n = body();
    tx.commit();
    return n;
  });
}

}  // namespace

int64_t RawInsert::dispatches(CaptureDb& db, int64_t pass_id, std::span<const DispatchRow> rows,
                              int64_t kernel_name_id) {
  CaptureDb::Impl& impl = *db.m_impl;
  return raw_transaction(db, impl, [&] {
    BulkInserters ins(impl.db.getHandle());
    for (const auto& r : rows) ins.dispatch(pass_id, r, kernel_name_id);
    ins.flush();
    return static_cast<int64_t>(rows.size());
  });
}

int64_t RawInsert::counters(CaptureDb& db, int64_t pass_id, std::span<const CounterRow> rows,
                            std::span<const int64_t> counter_ids) {
  CaptureDb::Impl& impl = *db.m_impl;
  if (counter_ids.size() != rows.size()) {
    throw Error::runtime("RawInsert::counters: " + std::to_string(rows.size()) + " rows but " +
                             std::to_string(counter_ids.size()) + " counter ids",
                         "pass one interned id per row");
  }
  return raw_transaction(db, impl, [&] {
    BulkInserters ins(impl.db.getHandle());
    int64_t n = 0;
    for (size_t i = 0; i < rows.size(); ++i) n += ins.counter(pass_id, rows[i], counter_ids[i]);
    return n;
  });
}

}  // namespace kprof::store
