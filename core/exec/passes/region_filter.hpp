// Row sinks that keep a pass to its measured region: a counter pass of a profiler that counts
// outside --selected-regions (ROCm 7.0; region_window.hpp says why and how the window is found),
// and before ROCm 7.0, which has no region switch, the trace pass too, cut at its own
// roctxProfilerResume/Pause marker records (marker_region_windows).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/exec/passes/region_window.hpp"
#include "core/ingest/discover.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/rows.hpp"

namespace kprof::exec {

// Collects the launches of a pass's files, by process, in file order (the first read of a
// counter pass that counted outside the region).
class LaunchCollector final : public store::RowSink {
 public:
  std::map<int64_t, std::vector<Launch>> by_pid;
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow& r) override;
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
};

// Collects a pass's launches with their start times, and the roctxProfilerResume/Pause marker
// records, by process.
class MarkerCollector final : public store::RowSink {
 public:
  struct Started {
    int64_t dispatch_id = 0, start_ns = 0;
  };
  std::map<int64_t, std::vector<Started>> launches;
  std::map<int64_t, std::vector<std::pair<int64_t, bool>>> markers;  // (time, resume?) by pid
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow&) override {}
  void dispatch(const store::DispatchRow& r) override {
    launches[r.pid].push_back({r.dispatch_id, r.start_ns});
  }
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
  void api_call(const store::ApiCallRow& r) override;
};

// Forwards every row to `to` except the dispatches (and their counter values) of a process that
// fall outside its region window. It overrides every RowSink call: one added there must be
// forwarded here too.
class RegionFilter final : public store::RowSink {
 public:
  RegionFilter(store::RowSink& to, const std::map<int64_t, RegionWindow>& windows)
      : m_to(to), m_windows(windows) {}
  void begin_file(const std::string& path, const std::string& kind) override {
    m_to.begin_file(path, kind);
  }
  void agent(const store::AgentRow& r) override { m_to.agent(r); }
  void dispatch(const store::DispatchRow& r) override {
    if (keep(r.pid, r.dispatch_id)) m_to.dispatch(r);
  }
  void counter(const store::CounterRow& r) override {
    if (keep(r.pid, r.dispatch_id)) m_to.counter(r);
  }
  // A cut trace pass leaves out the profiler's own statistics: they cover the whole run.
  void kernel_stat(const store::KernelStatRow& r) override {
    if (!m_drop_stats) m_to.kernel_stat(r);
  }
  void drop_stats() { m_drop_stats = true; }
  void bad_row(const store::BadRow& r) override { m_to.bad_row(r); }
  void end_file(int64_t rows_read) override { m_to.end_file(rows_read); }
  void memory_copy(const store::MemoryCopyRow& r) override { m_to.memory_copy(r); }
  void api_call(const store::ApiCallRow& r) override { m_to.api_call(r); }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    m_to.memory_allocation(r);
  }
  void profiler_version(const std::string& v) override { m_to.profiler_version(v); }
  void file_digest(int64_t size, const std::string& sha) override { m_to.file_digest(size, sha); }

 private:
  bool keep(int64_t pid, int64_t id) const;
  store::RowSink& m_to;
  const std::map<int64_t, RegionWindow>& m_windows;
  bool m_drop_stats = false;
};

// The region window of each process of a counter pass's files (`found`), matched against the
// done trace pass `trace_pass_id` of the same run. Each window is noted in the pass log `log`
// (what was left out, and that `profiler` counts outside --selected-regions).
std::map<int64_t, RegionWindow> counter_region_windows(store::CaptureDb& db, int64_t trace_pass_id,
                                                       const ingest::Discovery& found,
                                                       const std::filesystem::path& log,
                                                       const std::string& profiler);

// Before ROCm 7.0 (no --selected-regions) the tool traces from the start, and with --marker-trace
// roctxProfilerPause/Resume stop and restart tracing and are recorded (marker_api_trace.csv;
// ROCm/rocprofiler-sdk tag rocm-6.2.0 source/lib/rocprofiler-sdk-tool/tool.cpp,
// cntrl_tracing_callback). The region of each process of a pass's files is then the launches
// that started between a roctxProfilerResume's end and the next roctxProfilerPause's start; a
// process that never called roctxProfilerResume keeps nothing (as --selected-regions records
// nothing there). Each window is noted in the pass log `log`.
std::map<int64_t, RegionWindow> marker_region_windows(const ingest::Discovery& found,
                                                      const std::filesystem::path& log,
                                                      const std::string& profiler);

}  // namespace kprof::exec
