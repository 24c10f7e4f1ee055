#include "core/exec/passes/region_window.hpp"

#include <map>

namespace kprof::exec {
namespace {

using Identity = std::tuple<std::string, int64_t, int64_t>;

Identity identity(const Launch& l) { return {l.kernel, l.grid, l.workgroup}; }

}  // namespace

std::optional<RegionWindow> find_region_window(const std::vector<Launch>& counter,
                                               const std::vector<Launch>& trace) {
  const size_t n = counter.size(), len = trace.size();
  if (len == 0 || n <= len) return std::nullopt;
  // balance[id] = (count in window) - (count in trace); differences = sum of |balance|.
  std::map<Identity, int64_t> balance;
  for (const auto& t : trace) --balance[identity(t)];
  size_t diff = len;  // an empty window misses every trace launch
  const auto add = [&](const Launch& l, int64_t d) {
    int64_t& b = balance[identity(l)];
    diff -= static_cast<size_t>(b < 0 ? -b : b);
    b += d;
    diff += static_cast<size_t>(b < 0 ? -b : b);
  };
  for (size_t i = 0; i < len; ++i) add(counter[i], +1);
  size_t best_start = 0, best_diff = diff;
  bool tie = false;
  for (size_t start = 1; start + len <= n; ++start) {
    add(counter[start - 1], -1);
    add(counter[start + len - 1], +1);
    if (diff < best_diff) {
      best_diff = diff;
      best_start = start;
      tie = false;
    } else if (diff == best_diff) {
      best_start = start;  // the latest of equals: the region follows the warm-up
      tie = true;
    }
  }
  RegionWindow w;
  w.first_dispatch_id = counter[best_start].dispatch_id;
  w.last_dispatch_id = counter[best_start + len - 1].dispatch_id;
  w.kept = len;
  w.left_out = n - len;
  w.differences = best_diff;
  w.tie = tie;
  return w;
}

}  // namespace kprof::exec
