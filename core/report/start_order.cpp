#include "core/report/start_order.hpp"

#include <algorithm>

namespace kprof::report {

size_t reorder_window(const std::vector<analysis::Dispatch>& ds) {
  size_t window = 0;
  for (size_t b = 0; b < ds.size();) {
    size_t e = b + 1;
    bool in_order = true;
    for (; e < ds.size() && ds[e].pid == ds[b].pid; ++e)
      in_order = in_order && ds[e].start_ns >= ds[e - 1].start_ns;
    if (!in_order) {
      // Earlier dispatches starting after dispatch i = i - (earlier ones starting at or before
      // it), counted with a Fenwick tree over the ranks of the distinct start times.
      std::vector<int64_t> starts;
      starts.reserve(e - b);
      for (size_t i = b; i < e; ++i) starts.push_back(ds[i].start_ns);
      std::sort(starts.begin(), starts.end());
      starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
      std::vector<uint32_t> tree(starts.size() + 1, 0);
      for (size_t i = b; i < e; ++i) {
        const size_t rank = static_cast<size_t>(
            std::lower_bound(starts.begin(), starts.end(), ds[i].start_ns) - starts.begin() + 1);
        size_t at_or_before = 0;
        for (size_t x = rank; x > 0; x -= x & (~x + 1)) at_or_before += tree[x];
        window = std::max(window, (i - b) - at_or_before);
        for (size_t x = rank; x < tree.size(); x += x & (~x + 1)) ++tree[x];
      }
    }
    b = e;
  }
  return window;
}

}  // namespace kprof::report
