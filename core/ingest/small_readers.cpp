// The small rocprofv3 CSV formats (ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp):
// agent_info.csv, *_stats.csv, memory_copy_trace.csv, memory_allocation_trace.csv and
// hip/hsa/marker_api_trace.csv (real files: jyohukuchan/uLLM-project benchmarks/results/...), plus
// the factory for all readers.
#include <memory>
#include <tuple>
#include <type_traits>

#include "core/ingest/counter_collection_reader.hpp"
#include "core/ingest/csv_readers.hpp"
#include "core/ingest/kernel_trace_reader.hpp"

namespace kprof::ingest {

namespace {

using csv::As;
using csv::maybe;
using csv::need;

// A reader whose rows come from one table: each row read into a reused Row, checked by
// `finish_row` (given whether each column was found), and sent to the sink by `send`.
template <auto& Fields, class Row, void (store::RowSink::*Send)(const Row&)>
class TableReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 protected:
  void bind_columns() override { m_cols = bind_fields(Fields); }
  void read_row(const CsvRow& row) override {
    read_fields<Fields>(row, m_cols, m_row);
    finish_row(m_row);
    (sink().*Send)(m_row);
  }
  virtual void finish_row(Row& /*row*/) {}
  bool has(size_t field) const { return m_cols[field] >= 0; }

  Columns<std::remove_cvref_t<decltype(Fields)>> m_cols{};
  Row m_row;
};

using store::AgentRow;
constexpr const char* cpu_or_gpu(const AgentRow& a) {
  return a.type == "CPU" || a.type == "GPU" ? nullptr : "expected CPU or GPU";
}
constexpr auto k_agent_fields = std::tuple{
    need("Node_Id", &AgentRow::node_id),
    maybe("Logical_Node_Id", &AgentRow::logical_node_id),
    need("Agent_Type", &AgentRow::type, As::text, &cpu_or_gpu),
    need("Name", &AgentRow::name, As::text),
    maybe("Product_Name", &AgentRow::product_name, As::text),
    maybe("Cu_Count", &AgentRow::cu_count),
    maybe("Simd_Count", &AgentRow::simd_count),
    maybe("Wave_Front_Size", &AgentRow::wave_front_size),
    maybe("Max_Waves_Per_Simd", &AgentRow::max_waves_per_simd),
    maybe("Num_Xcc", &AgentRow::num_xcc),
    maybe("Max_Engine_Clk_Fcompute", &AgentRow::max_engine_clk_mhz),
};
constexpr size_t k_logical_field = 1;
static_assert(std::get<k_logical_field>(k_agent_fields).field == &AgentRow::logical_node_id);

class AgentInfoReader : public TableReader<k_agent_fields, AgentRow, &store::RowSink::agent> {
 public:
  using TableReader::TableReader;

 private:
  // A layout without logical node ids numbers agents by their node ids.
  void finish_row(AgentRow& a) override {
    if (!has(k_logical_field)) a.logical_node_id = a.node_id;
  }
};

// rocprof v1 results.stats.csv has only the first five columns; the rest are optional.
using store::KernelStatRow;
constexpr auto k_stat_fields = std::tuple{
    need({"Name", "KernelName"}, &KernelStatRow::name, As::text),
    need("Calls", &KernelStatRow::calls),
    need("TotalDurationNs", &KernelStatRow::total_ns),
    maybe("AverageNs", &KernelStatRow::average_ns, As::number),
    maybe("Percentage", &KernelStatRow::percentage, As::number),
    maybe("MinNs", &KernelStatRow::min_ns),
    maybe("MaxNs", &KernelStatRow::max_ns),
    maybe("StdDev", &KernelStatRow::stddev_ns, As::number),
};

class StatsReader : public TableReader<k_stat_fields, KernelStatRow, &store::RowSink::kernel_stat> {
 public:
  using TableReader::TableReader;

 private:
  void bind_columns() override {
    TableReader::bind_columns();
    set_text_column(m_cols[0]);  // kernel names may hold `",`
  }
};

using store::MemoryCopyRow;
constexpr auto k_copy_fields = std::tuple{
    maybe({"Process_Id", "Pid"}, &MemoryCopyRow::pid, As::pid),
    need("Direction", &MemoryCopyRow::direction, As::text),
    maybe("Stream_Id", &MemoryCopyRow::stream_id),
    need("Source_Agent_Id", &MemoryCopyRow::src_agent, As::agent),
    need("Destination_Agent_Id", &MemoryCopyRow::dst_agent, As::agent),
    need("Correlation_Id", &MemoryCopyRow::correlation_id),
    need("Start_Timestamp", &MemoryCopyRow::start_ns),
    need("End_Timestamp", &MemoryCopyRow::end_ns, As::integer,
         &csv::ends_after_start<MemoryCopyRow>),
};
using MemoryCopyReader = TableReader<k_copy_fields, MemoryCopyRow, &store::RowSink::memory_copy>;

// Columns as ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp writes them (generate_csv for
// memory_allocation records): Kind, Operation, Agent_Id (empty for frees: the SDK does not track
// their agent), Allocation_Size, Address (hex), Correlation_Id, Start_Timestamp, End_Timestamp.
using store::MemoryAllocationRow;
constexpr const char* not_negative(const MemoryAllocationRow& m) {
  return m.size_bytes < 0 ? "expected a size of 0 or more" : nullptr;
}
constexpr auto k_alloc_fields = std::tuple{
    maybe({"Process_Id", "Pid"}, &MemoryAllocationRow::pid, As::pid),
    need("Operation", &MemoryAllocationRow::operation, As::text),
    maybe("Agent_Id", &MemoryAllocationRow::agent, As::agent_or_none),
    need("Allocation_Size", &MemoryAllocationRow::size_bytes, As::integer, &not_negative),
    maybe("Address", &MemoryAllocationRow::address, As::text),
    need("Correlation_Id", &MemoryAllocationRow::correlation_id),
    need("Start_Timestamp", &MemoryAllocationRow::start_ns),
    need("End_Timestamp", &MemoryAllocationRow::end_ns, As::integer,
         &csv::ends_after_start<MemoryAllocationRow>),
};
using MemoryAllocationReader =
    TableReader<k_alloc_fields, MemoryAllocationRow, &store::RowSink::memory_allocation>;

using store::ApiCallRow;
constexpr auto k_api_fields = std::tuple{
    need("Domain", &ApiCallRow::domain, As::text),
    need("Function", &ApiCallRow::function, As::text),
    maybe({"Process_Id", "Pid"}, &ApiCallRow::pid, As::pid),
    need("Thread_Id", &ApiCallRow::tid),
    need("Correlation_Id", &ApiCallRow::correlation_id),
    need("Start_Timestamp", &ApiCallRow::start_ns),
    need("End_Timestamp", &ApiCallRow::end_ns, As::integer, &csv::ends_after_start<ApiCallRow>),
};

class ApiTraceReader : public TableReader<k_api_fields, ApiCallRow, &store::RowSink::api_call> {
 public:
  using TableReader::TableReader;

 private:
  void bind_columns() override {
    TableReader::bind_columns();
    set_text_column(m_cols[1]);  // a roctx range's text may hold `",`
  }
};

}  // namespace

std::unique_ptr<CsvFormatReader> make_csv_reader(Format format, const std::string& file,
                                                 const std::string& kind, store::RowSink& sink,
                                                 const ReadOptions& options) {
  switch (format) {
    case Format::kernel_trace:
      return std::make_unique<KernelTraceReader>(file, kind, sink, options);
    case Format::counter_collection:
      return std::make_unique<CounterCollectionReader>(file, kind, sink, options);
    case Format::agent_info:
      return std::make_unique<AgentInfoReader>(file, kind, sink, options);
    case Format::stats:
      return std::make_unique<StatsReader>(file, kind, sink, options);
    case Format::memory_copy_trace:
      return std::make_unique<MemoryCopyReader>(file, kind, sink, options);
    case Format::memory_allocation_trace:
      return std::make_unique<MemoryAllocationReader>(file, kind, sink, options);
    case Format::api_trace:
      return std::make_unique<ApiTraceReader>(file, kind, sink, options);
    case Format::rocpd:
    case Format::json:
      break;
  }
  return nullptr;
}

}  // namespace kprof::ingest
