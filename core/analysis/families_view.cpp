// `families`: families (configs/families rules) by summed duration, with variant counts.
#include "core/analysis/views.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kprof::analysis {

Table QueryContext::families(const ViewOptions& o) {
  Table t = base_table("kernel families");
  t.columns = {"family",   "launches", "variants", "kernel_names",
               "total_ns", "mean_ns",  "share_pct"};
  struct Acc {
    DurationStats s;
    std::set<int> variants;
    std::set<uint32_t> names;
  };
  std::map<std::string, Acc> acc;
  int64_t total = 0;
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const auto& d = m_cap.trace.dispatches[k];
    auto& a = acc[m_model.variants[m_model.variant_of[k]].family];
    a.s.add(d.duration_ns());
    a.variants.insert(m_model.variant_of[k]);
    a.names.insert(d.name);
    total += d.duration_ns();
  }
  std::vector<std::pair<std::string, Acc>> v(acc.begin(), acc.end());
  std::sort(v.begin(), v.end(),
            [](auto& a, auto& b) { return a.second.s.total_ns > b.second.s.total_ns; });
  for (const auto& [f, a] : v) {
    t.rows.push_back({f, a.s.count, static_cast<int64_t>(a.variants.size()),
                      static_cast<int64_t>(a.names.size()), a.s.total_ns, a.s.mean_ns(),
                      total ? 100.0 * a.s.total_ns / total : 0.0});
  }
  return t;
}

}  // namespace kprof::analysis
