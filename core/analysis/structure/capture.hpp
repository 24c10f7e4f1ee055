// The analysis' in-memory view of a capture: the dispatches of each pass with interned kernel
// names. Loaded from the capture database (analysis_db.hpp) or built directly by tests; every
// algorithm in core/analysis works on these plain values, so none of them needs SQL.
//
// Compact by design (at most 64 B per dispatch for `explain` on 10M dispatches): a
// dispatch is 40 bytes of what differs from launch to launch (id, times, process) and points to
// what repeats thousands of times, its launch configuration (KernelShape, the store's
// kernel_variants row) and its agent and queue (Lane), each held once per pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/rows.hpp"  // PassKind

namespace kprof::analysis {

// Interned kernel names. Ids are dense (0..size-1) so algorithms can index arrays by them.
class NameTable {
 public:
  uint32_t intern(const std::string& name);
  const std::string& name(uint32_t id) const { return m_names[id]; }
  std::optional<uint32_t> find(const std::string& name) const;
  size_t size() const { return m_names.size(); }

 private:
  std::vector<std::string> m_names;
  std::unordered_map<std::string, uint32_t> m_ids;
};

// One launch configuration: name, code object symbol, grid, workgroup and resources.
struct KernelShape {
  int64_t kernel_id = 0;        // rocprofv3's Kernel_Id (code object symbol), per pass
  uint32_t name = 0;            // NameTable id
  int64_t grid[3] = {0, 1, 1};  // work-items
  int64_t wg[3] = {0, 1, 1};
  int64_t lds = 0;
  int64_t scratch = 0;
  std::optional<int64_t> vgpr, agpr, sgpr;  // nullopt: the layout did not report it

  int64_t grid_product() const { return grid[0] * grid[1] * grid[2]; }
  int64_t wg_product() const { return wg[0] * wg[1] * wg[2]; }
  bool operator==(const KernelShape& o) const;
};

// Where a dispatch ran.
struct Lane {
  int64_t agent = 0;
  int64_t queue = 0;  // rocprofv3's Queue_Id (tracks of `kprof export --perfetto`)
  bool operator==(const Lane& o) const { return agent == o.agent && queue == o.queue; }
};

struct Dispatch {
  int64_t dispatch_id = 0;  // rocprofv3's id, unique within one pass (and process)
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;   // NameTable id (its shape's name, here for the algorithms' inner loops)
  uint32_t shape = 0;  // index into PassData::shapes
  // Process_Id. Linux pids fit: pid_max is at most PID_MAX_LIMIT = 2^22 (torvalds/linux
  // include/linux/threads.h); the loader refuses a stored pid outside int32.
  int32_t pid = 0;
  uint32_t lane = 0;  // index into PassData::lanes

  int64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};
static_assert(sizeof(Dispatch) == 40, "a dispatch is 40 bytes in memory");

struct PassData {
  int64_t pass_id = 0;  // passes.id (or a test's own number)
  int ordinal = 0;
  store::PassKind kind = store::PassKind::trace;
  std::vector<KernelShape> shapes;   // launch configurations, each once
  std::vector<Lane> lanes;           // (agent, queue) pairs, each once
  std::vector<Dispatch> dispatches;  // any order; algorithms sort what they need

  const KernelShape& shape(const Dispatch& d) const { return shapes[d.shape]; }
  int64_t agent(const Dispatch& d) const { return lanes[d.lane].agent; }
  int64_t queue(const Dispatch& d) const { return lanes[d.lane].queue; }
  // The index of `s` (of `l`), added when new. Linear in the distinct values: for tests and
  // hand-made captures; the loader maps the store's variant ids instead.
  uint32_t intern(const KernelShape& s);
  uint32_t intern(const Lane& l);
  // Appends `d` launched with `s` on (agent, queue): sets d.shape, d.name and d.lane.
  Dispatch& add(Dispatch d, const KernelShape& s, int64_t agent = 0, int64_t queue = 0);
};

}  // namespace kprof::analysis
