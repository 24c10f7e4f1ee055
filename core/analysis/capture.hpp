// The analysis' in-memory view of a capture: the dispatches of each pass with interned kernel
// names. Loaded from the capture database (capture_load.hpp) or built directly by tests; every
// algorithm in core/analysis works on these plain values, so none of them needs SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

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

struct Dispatch {
  int64_t dispatch_id = 0;  // rocprofv3's id, unique within one pass (and process)
  int64_t kernel_id = 0;    // rocprofv3's Kernel_Id (code object symbol), per pass
  uint32_t name = 0;        // NameTable id
  int64_t pid = 0;
  int64_t agent = 0;
  int64_t queue = 0;  // rocprofv3's Queue_Id (tracks of `kprof export --perfetto`)
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t grid[3] = {0, 1, 1};  // work-items
  int64_t wg[3] = {0, 1, 1};
  int64_t lds = 0;
  int64_t scratch = 0;
  int64_t vgpr = -1, agpr = -1, sgpr = -1;  // -1: the layout did not report it

  int64_t grid_product() const { return grid[0] * grid[1] * grid[2]; }
  int64_t wg_product() const { return wg[0] * wg[1] * wg[2]; }
  int64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct PassData {
  int64_t pass_id = 0;  // passes.id (or a test's own number)
  int ordinal = 0;
  std::string kind;                  // "trace" | "counters"
  std::vector<Dispatch> dispatches;  // any order; algorithms sort what they need
};

}  // namespace kprof::analysis
