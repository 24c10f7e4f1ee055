#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/ingest/csv_format_reader.hpp"

namespace kprof::ingest {

// Dispatch ids already delivered, per pid. rocprofv3's ids count up from 1 per process, so a
// bitmap indexed by id stays small (1M dispatches: 128 KiB) where a hash set would not.
class SeenDispatches {
 public:
  // True the first time (pid, id) is offered.
  bool insert(int64_t pid, int64_t id);
  bool contains(int64_t pid, int64_t id) const;

 private:
  std::vector<std::pair<int64_t, std::vector<uint64_t>>> m_by_pid;
};

// counter_collection.csv: 19 columns (7.x), 18 before Accum_VGPR_Count (6.4), timestamps only
// since 6.3, a leading "Pid" column in rocpd-converted files (generateCSV.cpp;
// rocpd: source/lib/python/rocpd/source/csv.cpp).
// One row per (dispatch, counter): each dispatch goes to the sink once, as a DispatchRow with
// dims_known=false (the file has only grid/workgroup products), before its first CounterRow.
class CounterCollectionReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override;
  void read_row(const CsvRow& row) override;
  void emit_counter();

  Columns<decltype(csv::dispatch_fields)> m_shared{};
  std::array<int, 4> m_own{};           // counter_collection_reader.cpp's k_dispatch_fields
  std::array<int, 2> m_counter_cols{};  // and k_counter_fields
  SeenDispatches m_seen;
  store::DispatchRow m_dispatch_row;
  store::CounterRow m_counter_row;
};

}  // namespace kprof::ingest
