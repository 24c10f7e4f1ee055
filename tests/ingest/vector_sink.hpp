// A RowSink that keeps everything in vectors, for reader tests, with a text form of each row so
// two readings can be compared exactly.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/store/rows.hpp"

namespace kprof::ingest::test {

class VectorSink : public store::RowSink {
 public:
  std::vector<std::string> files;  // "kind path"
  std::vector<store::AgentRow> agents;
  std::vector<store::DispatchRow> dispatches;
  std::vector<store::CounterRow> counters;
  std::vector<store::KernelStatRow> stats;
  std::vector<store::BadRow> bad;
  std::vector<store::MemoryCopyRow> copies;
  std::vector<store::MemoryAllocationRow> allocs;
  std::vector<store::ApiCallRow> apis;
  std::vector<int64_t> ends;
  std::vector<std::pair<int64_t, std::string>> digests;  // file_digest: size, sha256
  std::vector<std::string> events;                       // every call, in order, as text

  void begin_file(const std::string& path, const std::string& kind) override {
    files.push_back(kind + " " + path);
    events.push_back("begin " + kind + " " + path);
  }
  void agent(const store::AgentRow& r) override {
    agents.push_back(r);
    events.push_back("agent " + std::to_string(r.node_id) + " " + r.type + " " + r.name + " " +
                     r.product_name);
  }
  void dispatch(const store::DispatchRow& r) override {
    dispatches.push_back(r);
    std::ostringstream o;
    o << "dispatch " << r.pid << ":" << r.dispatch_id << " k" << r.kernel_id << " c"
      << r.correlation_id << " a" << r.agent << " q" << r.queue_id << " s"
      << (r.stream_id ? std::to_string(*r.stream_id) : "-") << " t" << r.tid << " " << r.start_ns
      << "-" << r.end_ns << " g" << r.grid_x << "x" << r.grid_y << "x" << r.grid_z << " w" << r.wg_x
      << "x" << r.wg_y << "x" << r.wg_z << (r.dims_known ? "" : "?") << " l" << r.lds << " p"
      << r.scratch << " v" << (r.vgpr ? std::to_string(*r.vgpr) : "-") << "/"
      << (r.agpr ? std::to_string(*r.agpr) : "-") << "/" << (r.sgpr ? std::to_string(*r.sgpr) : "-")
      << " [" << r.kernel_name << "]";
    events.push_back(o.str());
  }
  void counter(const store::CounterRow& r) override {
    counters.push_back(r);
    std::ostringstream o;
    o.precision(17);
    o << "counter " << r.pid << ":" << r.dispatch_id << " " << r.counter << "=" << r.value;
    events.push_back(o.str());
  }
  void kernel_stat(const store::KernelStatRow& r) override {
    stats.push_back(r);
    events.push_back("stat [" + r.name + "] " + std::to_string(r.calls) + " " +
                     std::to_string(r.total_ns));
  }
  void bad_row(const store::BadRow& r) override {
    bad.push_back(r);
    events.push_back("bad " + std::to_string(r.line) + " " + r.reason);
  }
  void end_file(int64_t rows_read) override {
    ends.push_back(rows_read);
    events.push_back("end " + std::to_string(rows_read));
  }
  void memory_copy(const store::MemoryCopyRow& r) override {
    copies.push_back(r);
    events.push_back("copy " + r.direction + " " + std::to_string(r.src_agent) + ">" +
                     std::to_string(r.dst_agent) + " " + std::to_string(r.start_ns));
  }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    allocs.push_back(r);
    events.push_back("alloc " + r.operation + " " + std::to_string(r.size_bytes) + " " +
                     (r.agent ? std::to_string(*r.agent) : std::string("-")) + " " + r.address);
  }
  void api_call(const store::ApiCallRow& r) override {
    apis.push_back(r);
    events.push_back("api " + r.domain + " " + r.function + " " + std::to_string(r.pid) + " " +
                     std::to_string(r.start_ns));
  }
  void profiler_version(const std::string& v) override { events.push_back("version " + v); }
  void file_digest(int64_t size, const std::string& sha256) override {
    digests.emplace_back(size, sha256);
  }
};

}  // namespace kprof::ingest::test
