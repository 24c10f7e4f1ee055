// Typed rows: the contract between core/ingest (readers turn bytes into these; no SQL there) and
// core/store (the loader writes them; no CSV there). Plain values only — this header must not pull
// in SQLite. Optional fields are ones that some rocprofv3 versions or formats do not write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kprof::store {

// What a pass captured: the kernel trace, or hardware counters (here so that core/ingest, which
// sees only this header of the store, can name a pass's kind; to_string is in capture_db.hpp).
enum class PassKind { trace, counters };

// One GPU/CPU agent from agent_info.csv or rocpd_info_agent.
struct AgentRow {
  int64_t node_id = 0;  // Node_Id (absolute); what "Agent N" means with --agent-index absolute
  int64_t logical_node_id = 0;  // Logical_Node_Id; what "Agent N" means by default (relative)
  std::string type;             // "CPU" | "GPU"
  std::string name;             // "gfx942"
  std::string product_name;     // "AMD Instinct MI300X"; the double appends " (simulated)"
  int64_t cu_count = 0;
  int64_t simd_count = 0;
  int64_t wave_front_size = 0;
  int64_t max_waves_per_simd = 0;
  int64_t num_xcc = 0;
  int64_t max_engine_clk_mhz = 0;  // Max_Engine_Clk_Fcompute
};

// One kernel dispatch, from kernel_trace.csv (all fields) or counter_collection.csv (grid and
// workgroup only as products, no timestamps' Queue/Stream split) or rocpd.
struct DispatchRow {
  int64_t dispatch_id = 0;
  int64_t kernel_id = 0;
  int64_t correlation_id = 0;
  int64_t agent = 0;  // the N of "Agent N" (or the bare integer of ROCm <= 6.4)
  int64_t queue_id = 0;
  std::optional<int64_t> stream_id;
  int64_t pid = 0;  // Process_Id when the file has it, else from the %pid% file prefix, else 0
  int64_t tid = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string kernel_name;
  // Work-items per dimension. counter_collection.csv has only products: then x = product, y = z = 1
  // and `dims_known` is false.
  int64_t grid_x = 0, grid_y = 1, grid_z = 1;
  int64_t wg_x = 0, wg_y = 1, wg_z = 1;
  bool dims_known = true;
  int64_t lds = 0;      // LDS_Block_Size (or Group_Segment_Size in 6.x-early layouts)
  int64_t scratch = 0;  // Scratch_Size (or Private_Segment_Size)
  std::optional<int64_t> vgpr, agpr, sgpr;  // absent in the 18-column layout
};

// One (dispatch, counter) value from counter_collection.csv; dimension instances already summed by
// rocprofv3. The dispatch itself is delivered once as a DispatchRow before its counters.
struct CounterRow {
  int64_t dispatch_id = 0;
  int64_t pid = 0;
  std::string counter;
  double value = 0;
};

// One row of kernel_stats.csv (or another *_stats.csv).
struct KernelStatRow {
  std::string name;
  int64_t calls = 0;
  int64_t total_ns = 0;
  double average_ns = 0;
  double percentage = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double stddev_ns = 0;
};

// A row the reader could not use; the file as a whole was fine. Counted in ingest_stats.
struct BadRow {
  std::string file;
  int64_t line = 0;
  std::string reason;  // "line 12, column 'Start_Timestamp': expected an integer, got 'abc'"
};

// One row of memory_copy_trace.csv (added by ingest; optional format).
struct MemoryCopyRow {
  int64_t pid = 0;        // from the %pid% file prefix (the format has no Process_Id column)
  std::string direction;  // "MEMORY_COPY_HOST_TO_DEVICE", ...
  int64_t stream_id = 0;
  int64_t src_agent = 0;  // the N of "Agent N"
  int64_t dst_agent = 0;
  int64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// One row of memory_allocation_trace.csv: columns Kind, Operation, Agent_Id, Allocation_Size,
// Address, Correlation_Id, Start_Timestamp, End_Timestamp, as ROCm/rocprofiler-sdk writes them
// (source/lib/output/generateCSV.cpp, generate_csv for memory_allocation records). rocprofv3
// leaves Agent_Id empty for free operations (it does not track their agent), and the file has no
// Process_Id column.
struct MemoryAllocationRow {
  int64_t pid = 0;               // from the %pid% file prefix
  std::string operation;         // "MEMORY_ALLOCATION_ALLOCATE", "MEMORY_ALLOCATION_FREE", ...
  std::optional<int64_t> agent;  // the N of "Agent N"; empty for frees
  int64_t size_bytes = 0;        // Allocation_Size
  std::string address;           // Address as written ("0x000074a5da000000")
  int64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// One row of hip_api_trace.csv, hsa_api_trace.csv or marker_api_trace.csv (added by ingest;
// optional formats). For markers `function` is the range/marker text.
struct ApiCallRow {
  std::string domain;    // "HIP_RUNTIME_API_EXT", "MARKER_CORE_RANGE_API", ...
  std::string function;  // "hipLaunchKernel", or the roctx range name
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Where typed rows go. core/store implements it (one transaction per pass); tests implement it
// with vectors. A reader calls begin_file/end_file around each file it reads.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void begin_file(const std::string& path, const std::string& kind) = 0;
  virtual void agent(const AgentRow& row) = 0;
  virtual void dispatch(const DispatchRow& row) = 0;
  virtual void counter(const CounterRow& row) = 0;
  virtual void kernel_stat(const KernelStatRow& row) = 0;
  virtual void bad_row(const BadRow& row) = 0;
  virtual void end_file(int64_t rows_read) = 0;
  // Optional formats; sinks that do not store them keep these defaults and drop the rows.
  virtual void memory_copy(const MemoryCopyRow& /*row*/) {}
  virtual void api_call(const ApiCallRow& /*row*/) {}
  virtual void memory_allocation(const MemoryAllocationRow& /*row*/) {}
  // Provenance: the rocprofv3 version the reader found in the current file (e.g. a rocpd
  // metadata table), called between begin_file and end_file. Sinks may ignore it.
  virtual void profiler_version(const std::string& /*version*/) {}
  // Provenance: the file's size and the lower-case hex SHA-256 of exactly the bytes the reader
  // read (hashed as they were read, so the file is read once), called before end_file.
  virtual void file_digest(int64_t /*size_bytes*/, const std::string& /*sha256*/) {}
};

}  // namespace kprof::store
