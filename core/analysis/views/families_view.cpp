// `families`: families (configs/families rules) by summed duration, with variant counts.
#include "core/analysis/views/views.hpp"

#include <map>
#include <set>

#include "core/analysis/views/streamed_views.hpp"

namespace kprof::analysis {

Table QueryContext::families(const ViewOptions& o) {
  Table t = base_table("kernel families");
  struct Acc {
    DurationStats s;
    std::set<int> variants;
    std::set<uint32_t> names;
  };
  std::map<std::string, Acc> acc;
  if (o.family.empty() && !o.phase) {
    // Every launch is kept: the variants' sums, no dispatch read. Counts and totals add up, the
    // least and the largest duration are those of the variants, as a launch by launch sum has them.
    for (const auto& v : m_model.variants) {
      if (v.duration.count == 0) continue;
      auto& a = acc[v.family];
      const DurationStats& d = v.duration;
      if (a.s.count == 0 || d.min_ns < a.s.min_ns) a.s.min_ns = d.min_ns;
      if (a.s.count == 0 || d.max_ns > a.s.max_ns) a.s.max_ns = d.max_ns;
      a.s.count += d.count;
      a.s.total_ns += d.total_ns;
      a.variants.insert(v.index - 1);
      a.names.insert(v.name);
    }
  } else {
    for_each_kept(o, [&](const Dispatch& d, int variant) {
      auto& a = acc[m_model.variants[static_cast<size_t>(variant)].family];
      a.s.add(d.duration_ns());
      a.variants.insert(variant);
      a.names.insert(d.name);
    });
  }
  std::map<std::string, FamilySums> sums;
  for (const auto& [family, a] : acc) sums[family] = {a.s, a.variants.size(), a.names.size()};
  return families_table(std::move(t), sums);
}

}  // namespace kprof::analysis
