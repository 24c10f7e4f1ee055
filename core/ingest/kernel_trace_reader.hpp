#pragma once

#include "core/ingest/csv_format_reader.hpp"

namespace kprof::ingest {

class KernelTraceReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override;
  void read_row(const CsvRow& row) override;

  Columns<decltype(csv::dispatch_fields)> m_shared{};
  std::array<int, 9> m_own{};  // kernel_trace_reader.cpp's k_trace_fields
  store::DispatchRow m_row;    // reused: the kernel name keeps its capacity across rows
};

}  // namespace kprof::ingest
