// Per-kernel statistics computed from a pass's kernel trace, for a pass that asked for rocprofv3's
// --stats but got no kernel_stats file: with `-f rocpd` the newest launcher prints "--stats has no
// effect for the requested output format(s) rocpd" (ROCm/rocm-systems 01610ac,
// projects/rocprofiler-sdk/source/bin/rocprofv3.py; upstream's statistics come from `rocpd
// summary` there), and a region cut at ingest drops the tool's whole-run statistics
// (core/exec/passes/region_filter.hpp). The rows carry the columns of rocprofv3's kernel_stats.csv
// (Name, Calls, TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev: sample standard
// deviation), one per kernel name over every process of the pass, and are recorded as from a file
// of kind `kernel_stats_from_trace`, so ingest_stats says where they came from.
#pragma once

#include <map>
#include <string>

#include "core/store/rows.hpp"

namespace kprof::ingest {

inline constexpr const char* k_stats_from_trace_kind = "kernel_stats_from_trace";

// Passes every row on to `next` and sums the durations of the dispatches it passes on.
class TraceKernelStats final : public store::RowSink {
 public:
  explicit TraceKernelStats(store::RowSink& next) : m_next(next) {}

  void begin_file(const std::string& path, const std::string& kind) override {
    m_next.begin_file(path, kind);
  }
  void agent(const store::AgentRow& r) override { m_next.agent(r); }
  void dispatch(const store::DispatchRow& r) override;
  void counter(const store::CounterRow& r) override { m_next.counter(r); }
  void kernel_stat(const store::KernelStatRow& r) override {
    ++m_tool_rows;
    m_next.kernel_stat(r);
  }
  void bad_row(const store::BadRow& r) override { m_next.bad_row(r); }
  void end_file(int64_t rows_read) override { m_next.end_file(rows_read); }
  void memory_copy(const store::MemoryCopyRow& r) override { m_next.memory_copy(r); }
  void api_call(const store::ApiCallRow& r) override { m_next.api_call(r); }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    m_next.memory_allocation(r);
  }
  void profiler_version(const std::string& v) override { m_next.profiler_version(v); }
  void file_digest(int64_t size, const std::string& sha) override { m_next.file_digest(size, sha); }

  // When no kernel_stats row came through and some dispatch did: writes the computed rows to
  // `next` as the file `label` of kind kernel_stats_from_trace. Returns how many rows it wrote.
  int64_t finish(const std::string& label);

 private:
  struct Sum {
    int64_t calls = 0, total = 0, min = 0, max = 0;
    double sum_sq = 0;
  };
  store::RowSink& m_next;
  std::map<std::string, Sum> m_per_name;
  int64_t m_tool_rows = 0;
};

}  // namespace kprof::ingest
