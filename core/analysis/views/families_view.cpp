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
  for_each_kept(o, [&](const Dispatch& d, int variant) {
    auto& a = acc[m_model.variants[static_cast<size_t>(variant)].family];
    a.s.add(d.duration_ns());
    a.variants.insert(variant);
    a.names.insert(d.name);
  });
  std::map<std::string, FamilySums> sums;
  for (const auto& [family, a] : acc) sums[family] = {a.s, a.variants.size(), a.names.size()};
  return families_table(std::move(t), sums);
}

}  // namespace kprof::analysis
