// The small rocprofv3 CSV formats (ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp):
// agent_info.csv, *_stats.csv, memory_copy_trace.csv, memory_allocation_trace.csv and
// hip/hsa/marker_api_trace.csv (real files: jyohukuchan/uLLM-project benchmarks/results/...), plus
// the factory for all readers.
#include <memory>

#include "core/ingest/counter_collection_reader.hpp"
#include "core/ingest/csv_readers.hpp"
#include "core/ingest/kernel_trace_reader.hpp"

namespace kprof::ingest {

namespace {

class AgentInfoReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override {
    m_node = require({"Node_Id"});
    m_logical = column({"Logical_Node_Id"});
    m_type = require({"Agent_Type"});
    m_name = require({"Name"});
    m_product = column({"Product_Name"});
    m_cu = column({"Cu_Count"});
    m_simd = column({"Simd_Count"});
    m_wave = column({"Wave_Front_Size"});
    m_waves = column({"Max_Waves_Per_Simd"});
    m_xcc = column({"Num_Xcc"});
    m_clk = column({"Max_Engine_Clk_Fcompute"});
  }
  void read_row(const CsvRow& row) override {
    store::AgentRow a;
    a.node_id = i64(row, m_node);
    a.logical_node_id = i64_or(row, m_logical, a.node_id);
    a.type = std::string(text(row, m_type));
    if (a.type != "CPU" && a.type != "GPU") throw RowProblem{m_type, "expected CPU or GPU"};
    a.name = std::string(text(row, m_name));
    if (m_product >= 0) a.product_name = std::string(text(row, m_product));
    a.cu_count = i64_or(row, m_cu, 0);
    a.simd_count = i64_or(row, m_simd, 0);
    a.wave_front_size = i64_or(row, m_wave, 0);
    a.max_waves_per_simd = i64_or(row, m_waves, 0);
    a.num_xcc = i64_or(row, m_xcc, 0);
    a.max_engine_clk_mhz = i64_or(row, m_clk, 0);
    sink().agent(a);
  }
  int m_node = -1, m_logical = -1, m_type = -1, m_name = -1, m_product = -1, m_cu = -1, m_simd = -1,
      m_wave = -1, m_waves = -1, m_xcc = -1, m_clk = -1;
};

// rocprof v1 results.stats.csv has only the first five columns; the rest are optional.
class StatsReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override {
    m_name = require({"Name", "KernelName"});
    m_calls = require({"Calls"});
    m_total = require({"TotalDurationNs"});
    m_avg = column({"AverageNs"});
    m_pct = column({"Percentage"});
    m_min = column({"MinNs"});
    m_max = column({"MaxNs"});
    m_std = column({"StdDev"});
    set_text_column(m_name);
  }
  void read_row(const CsvRow& row) override {
    store::KernelStatRow& s = m_row;
    std::string_view name = text(row, m_name);
    s.name.assign(name.data(), name.size());
    s.calls = i64(row, m_calls);
    s.total_ns = i64(row, m_total);
    s.average_ns = m_avg >= 0 ? f64(row, m_avg) : 0.0;
    s.percentage = m_pct >= 0 ? f64(row, m_pct) : 0.0;
    s.min_ns = i64_or(row, m_min, 0);
    s.max_ns = i64_or(row, m_max, 0);
    s.stddev_ns = m_std >= 0 ? f64(row, m_std) : 0.0;
    sink().kernel_stat(s);
  }
  int m_name = -1, m_calls = -1, m_total = -1, m_avg = -1, m_pct = -1, m_min = -1, m_max = -1,
      m_std = -1;
  store::KernelStatRow m_row;
};

class MemoryCopyReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override {
    m_direction = require({"Direction"});
    m_stream = column({"Stream_Id"});
    m_src = require({"Source_Agent_Id"});
    m_dst = require({"Destination_Agent_Id"});
    m_corr = require({"Correlation_Id"});
    m_start = require({"Start_Timestamp"});
    m_end = require({"End_Timestamp"});
    m_pid = column({"Process_Id", "Pid"});
  }
  void read_row(const CsvRow& row) override {
    store::MemoryCopyRow m;
    m.pid = pid_or_default(row, m_pid);
    m.direction = std::string(text(row, m_direction));
    m.stream_id = i64_or(row, m_stream, 0);
    m.src_agent = agent(row, m_src);
    m.dst_agent = agent(row, m_dst);
    m.correlation_id = i64(row, m_corr);
    m.start_ns = i64(row, m_start);
    m.end_ns = i64(row, m_end);
    if (m.end_ns < m.start_ns) throw RowProblem{m_end, "ends before it starts"};
    sink().memory_copy(m);
  }
  int m_direction = -1, m_stream = -1, m_src = -1, m_dst = -1, m_corr = -1, m_start = -1,
      m_end = -1, m_pid = -1;
};

// Columns as ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp writes them (generate_csv for
// memory_allocation records): Kind, Operation, Agent_Id (empty for frees: the SDK does not track
// their agent), Allocation_Size, Address (hex), Correlation_Id, Start_Timestamp, End_Timestamp.
class MemoryAllocationReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override {
    m_operation = require({"Operation"});
    m_agent = column({"Agent_Id"});
    m_size = require({"Allocation_Size"});
    m_address = column({"Address"});
    m_corr = require({"Correlation_Id"});
    m_start = require({"Start_Timestamp"});
    m_end = require({"End_Timestamp"});
    m_pid = column({"Process_Id", "Pid"});
  }
  void read_row(const CsvRow& row) override {
    store::MemoryAllocationRow& m = m_row;
    m.pid = pid_or_default(row, m_pid);
    m.operation.assign(text(row, m_operation));
    m.agent.reset();
    if (m_agent >= 0 && !text(row, m_agent).empty()) m.agent = agent(row, m_agent);
    m.size_bytes = i64(row, m_size);
    if (m.size_bytes < 0) throw RowProblem{m_size, "expected a size of 0 or more"};
    m.address.assign(m_address >= 0 ? text(row, m_address) : std::string_view());
    m.correlation_id = i64(row, m_corr);
    m.start_ns = i64(row, m_start);
    m.end_ns = i64(row, m_end);
    if (m.end_ns < m.start_ns) throw RowProblem{m_end, "ends before it starts"};
    sink().memory_allocation(m);
  }
  int m_operation = -1, m_agent = -1, m_size = -1, m_address = -1, m_corr = -1, m_start = -1,
      m_end = -1, m_pid = -1;
  store::MemoryAllocationRow m_row;
};

class ApiTraceReader : public CsvFormatReader {
 public:
  using CsvFormatReader::CsvFormatReader;

 private:
  void bind_columns() override {
    m_domain = require({"Domain"});
    m_function = require({"Function"});
    m_pid = column({"Process_Id", "Pid"});
    m_tid = require({"Thread_Id"});
    m_corr = require({"Correlation_Id"});
    m_start = require({"Start_Timestamp"});
    m_end = require({"End_Timestamp"});
    set_text_column(m_function);
  }
  void read_row(const CsvRow& row) override {
    store::ApiCallRow& a = m_row;
    a.domain.assign(text(row, m_domain));
    a.function.assign(text(row, m_function));
    a.pid = pid_or_default(row, m_pid);
    a.tid = i64(row, m_tid);
    a.correlation_id = i64(row, m_corr);
    a.start_ns = i64(row, m_start);
    a.end_ns = i64(row, m_end);
    if (a.end_ns < a.start_ns) throw RowProblem{m_end, "ends before it starts"};
    sink().api_call(a);
  }
  int m_domain = -1, m_function = -1, m_pid = -1, m_tid = -1, m_corr = -1, m_start = -1, m_end = -1;
  store::ApiCallRow m_row;
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
      break;
  }
  return nullptr;
}

}  // namespace kprof::ingest
