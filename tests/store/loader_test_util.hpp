// Dispatch rows made up for the loader tests, and reading them back.
#pragma once

#include <string>
#include <vector>

#include "store_test_util.hpp"

namespace kprof::store::testing {

inline DispatchRow dispatch(int64_t id, const std::string& name, int64_t pid = 77) {
  DispatchRow d;
  d.dispatch_id = id;
  d.kernel_id = 10 + id % 3;
  d.correlation_id = 1000 + id;
  d.agent = 2;
  d.queue_id = 5;
  d.stream_id = id % 2;
  d.pid = pid;
  d.tid = pid + 1;
  d.start_ns = 1'000'000 + id * 100;
  d.end_ns = d.start_ns + 40 + id;
  d.kernel_name = name;
  d.grid_x = 1024;
  d.grid_y = 2;
  d.grid_z = 3;
  d.wg_x = 64;
  d.wg_y = 1;
  d.wg_z = 4;
  d.lds = 8192;
  d.scratch = 16;
  d.vgpr = 128;
  d.agpr = 8;
  d.sgpr = 96;
  return d;
}

inline bool same(const DispatchRow& a, const DispatchRow& b) {
  return a.dispatch_id == b.dispatch_id && a.kernel_id == b.kernel_id &&
         a.correlation_id == b.correlation_id && a.agent == b.agent && a.queue_id == b.queue_id &&
         a.stream_id == b.stream_id && a.pid == b.pid && a.tid == b.tid &&
         a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.kernel_name == b.kernel_name &&
         a.grid_x == b.grid_x && a.grid_y == b.grid_y && a.grid_z == b.grid_z && a.wg_x == b.wg_x &&
         a.wg_y == b.wg_y && a.wg_z == b.wg_z && a.dims_known == b.dims_known && a.lds == b.lds &&
         a.scratch == b.scratch && a.vgpr == b.vgpr && a.agpr == b.agpr && a.sgpr == b.sgpr;
}

inline std::vector<DispatchRow> read_dispatches(CaptureDb& db, int64_t pass) {
  std::vector<DispatchRow> out;
  db.for_each_dispatch(pass, [&](const DispatchRow& d) { out.push_back(d); });
  return out;
}

// Loads n dispatches named from `names` round-robin into pass, committing.
inline void load_trace(CaptureDb& db, int64_t pass, int64_t n,
                       const std::vector<std::string>& names) {
  PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  for (int64_t i = 0; i < n; ++i) {
    loader.dispatch(dispatch(i + 1, names[static_cast<size_t>(i) % names.size()]));
  }
  loader.end_file(n);
  loader.commit();
}

}  // namespace kprof::store::testing
