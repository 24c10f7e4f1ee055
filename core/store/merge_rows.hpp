// kprof merge's row copying, read from the target's schema: the tables that hold a pass's rows,
// an order-independent digest of a pass (two captures of one pass compare equal when they hold the
// same rows), and copying a pass's rows and record from one database into another. Internal to
// core/store (merge.cpp).
#pragma once

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::store::merge_rows {

struct Column {
  std::string name;
  bool own_id = false;      // the table's INTEGER PRIMARY KEY `id`: a new one is given on insert
  bool pass_key = false;    // `pass_id` → passes(id)
  bool string_ref = false;  // → strings(id): re-interned by value
  std::string data_ref;     // → <pass-data table>(id): follows that row's new id
  bool provenance = false;  // where/when a file was loaded, not what it held: not compared
};

struct Table {
  std::string name;
  std::vector<Column> columns;
};

// Every table of the capture (one the store's schema creates, not a derived result such as
// analysis' joins) holding a pass's rows (a `pass_id` column referencing passes), in an order
// where a table comes after those its columns refer to.
std::vector<Table> pass_tables(SQLite::Database& db);

// An order-independent digest of a pass's rows: per table, the row count and two sums of row
// hashes. Rows are compared by what they hold: interned ids as their strings, references to other
// rows as those rows' text, provenance columns left out.
struct PassDigest {
  std::map<std::string, std::tuple<int64_t, uint64_t, uint64_t>> tables;
  bool operator==(const PassDigest&) const = default;
};

PassDigest digest_pass(SQLite::Database& db, const std::vector<Table>& tables, int64_t pass_id);

// Copies one pass's rows from `src` into `target` under the target pass id. Returns rows copied.
int64_t copy_pass_rows(SQLite::Database& src, CaptureDb& target, const std::vector<Table>& tables,
                       int64_t src_pass, int64_t dst_pass);

// Every row of the tables that are not the capture (analysis' join and outline results) about
// run `run_id`'s passes, and what referred to those: they describe the run's rows as they were,
// and are computed again by the next analysis.
void drop_derived_results(SQLite::Database& db, int64_t run_id);

// The pass's bookkeeping as the source recorded it (the owner is cleared: nobody runs it here).
void copy_pass_record(SQLite::Database& src, SQLite::Database& dst, int64_t src_pass,
                      int64_t dst_pass);

}  // namespace kprof::store::merge_rows
