// The shared prepared INSERTs, and the RawInsert storage-limit baseline for bench/ingest.
#include <SQLiteCpp/Exception.h>

#include <limits>

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

BulkInserters::BulkInserters(sqlite3* db)
    : variant_stmt(db,
                   "INSERT INTO kernel_variants(pass_id, kernel_id, kernel_name_id, grid_x, "
                   "grid_y, grid_z, wg_x, wg_y, wg_z, dims_known, lds, scratch, vgpr, agpr, sgpr) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"),
      dispatch_stmt(db,
                    "INSERT INTO dispatch_rows(pass_id, dispatch_id, correlation_id, agent, "
                    "queue_id, stream_id, pid, tid, start_ns, end_ns, variant_id) VALUES (?1, ?2, "
                    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
      counter_stmt(db,
                   "INSERT INTO counter_values(pass_id, pid, dispatch_id, counter_id, value) "
                   "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING") {}

void BulkInserters::dispatch(int64_t pass_id, const DispatchRow& d, int64_t kernel_name_id) {
  constexpr int64_t k_null = std::numeric_limits<int64_t>::min();
  const VariantKey key = {d.kernel_id,
                          kernel_name_id,
                          d.grid_x,
                          d.grid_y,
                          d.grid_z,
                          d.wg_x,
                          d.wg_y,
                          d.wg_z,
                          d.dims_known ? 1 : 0,
                          d.lds,
                          d.scratch,
                          d.vgpr.value_or(k_null),
                          d.agpr.value_or(k_null),
                          d.sgpr.value_or(k_null)};
  const uint64_t hash = VariantIds::hash_of(key);
  int64_t variant_id = variants.find(key, hash);
  if (variant_id == 0) {
    variant_stmt.insert(pass_id, d.kernel_id, kernel_name_id, d.grid_x, d.grid_y, d.grid_z, d.wg_x,
                        d.wg_y, d.wg_z, d.dims_known, d.lds, d.scratch, d.vgpr, d.agpr, d.sgpr);
    variant_id = sqlite3_last_insert_rowid(sqlite3_db_handle(variant_stmt.get()));
    variants.insert(key, hash, variant_id);
  }
  dispatch_stmt.insert(pass_id, d.dispatch_id, d.correlation_id, d.agent, d.queue_id, d.stream_id,
                       d.pid, d.tid, d.start_ns, d.end_ns, variant_id);
}

bool BulkInserters::counter(int64_t pass_id, const CounterRow& c, int64_t counter_id) {
  return counter_stmt.insert(pass_id, c.pid, c.dispatch_id, counter_id, c.value) == 1;
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
