#pragma once

#include "core/ingest/csv_format_reader.hpp"

namespace kprof::ingest {

class KernelTraceReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override;
  void read_row(const CsvRow& row) override;

  DispatchColumns m_cols;
  int m_stream = -1, m_start = -1, m_end = -1;
  int m_wg[3] = {-1, -1, -1};
  int m_grid[3] = {-1, -1, -1};
  store::DispatchRow m_row;  // reused: the kernel name keeps its capacity across rows
};

}  // namespace kprof::ingest
