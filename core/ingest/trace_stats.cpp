#include "core/ingest/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kprof::ingest {

void TraceKernelStats::dispatch(const store::DispatchRow& r) {
  m_next.dispatch(r);
  const int64_t d = r.end_ns - r.start_ns;
  if (d < 0) return;  // rejected by the store as a row that ends before it starts
  Sum& s = m_per_name[r.kernel_name];
  s.min = s.calls == 0 ? d : std::min(s.min, d);
  s.max = std::max(s.max, d);
  ++s.calls;
  s.total += d;
  s.sum_sq += double(d) * double(d);
}

int64_t TraceKernelStats::finish(const std::string& label) {
  if (m_tool_rows > 0 || m_per_name.empty()) return 0;
  double all = 0;
  for (const auto& [name, s] : m_per_name) all += double(s.total);
  std::vector<std::pair<std::string, Sum>> rows(m_per_name.begin(), m_per_name.end());
  // rocprofv3's order: the largest total first.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  m_next.begin_file(label, k_stats_from_trace_kind);
  for (const auto& [name, s] : rows) {
    store::KernelStatRow k;
    k.name = name;
    k.calls = s.calls;
    k.total_ns = s.total;
    k.average_ns = double(s.total) / double(s.calls);
    k.percentage = all > 0 ? 100.0 * double(s.total) / all : 0;
    k.min_ns = s.min;
    k.max_ns = s.max;
    const double var = s.calls > 1 ? (s.sum_sq - double(s.calls) * k.average_ns * k.average_ns) /
                                         double(s.calls - 1)
                                   : 0;
    k.stddev_ns = std::sqrt(std::max(0.0, var));
    m_next.kernel_stat(k);
  }
  m_next.end_file(static_cast<int64_t>(rows.size()));
  return static_cast<int64_t>(rows.size());
}

}  // namespace kprof::ingest
