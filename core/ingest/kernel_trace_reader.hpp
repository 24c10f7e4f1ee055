#pragma once

#include "core/ingest/csv_format_reader.hpp"

namespace kprof::ingest {

class KernelTraceReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override;
  void read_row(const CsvRow& row) override;

  int m_agent = -1, m_queue = -1, m_stream = -1, m_pid = -1, m_tid = -1, m_dispatch = -1,
      m_kernel_id = -1, m_name = -1, m_corr = -1, m_start = -1, m_end = -1, m_lds = -1,
      m_scratch = -1, m_vgpr = -1, m_agpr = -1, m_sgpr = -1;
  int m_wg[3] = {-1, -1, -1};
  int m_grid[3] = {-1, -1, -1};
  store::DispatchRow m_row;  // reused: the kernel name keeps its capacity across rows
};

}  // namespace kprof::ingest
