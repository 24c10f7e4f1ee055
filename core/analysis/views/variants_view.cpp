// `variants`: distinct launch configurations with resources, waves per workgroup, phase counts.
#include "core/analysis/views/views.hpp"

#include <algorithm>

#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {

Table QueryContext::variants(const ViewOptions& o) {
  Table t =
      base_table("variants: distinct (Kernel_Id, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR)");
  t.columns = {"variant",      "family",   "kernel_id", "grid",    "workgroup",
               "waves_per_wg", "lds",      "scratch",   "vgpr",    "agpr",
               "sgpr",         "launches", "by_phase",  "mean_ns", "total_ns"};
  std::vector<int64_t> launches(m_model.variants.size(), 0);
  // Every launch is kept without --family and --phase: each variant's count, no dispatch read.
  if (o.family.empty() && !o.phase)
    for (const auto& x : m_model.variants)
      launches[static_cast<size_t>(x.index - 1)] = x.duration.count;
  else
    for_each_kept(o,
                  [&](const Dispatch&, int variant) { ++launches[static_cast<size_t>(variant)]; });
  std::vector<const Variant*> v;
  for (const auto& x : m_model.variants)
    if (launches[x.index - 1]) v.push_back(&x);
  std::sort(v.begin(), v.end(), [](const Variant* a, const Variant* b) {
    return a->duration.total_ns != b->duration.total_ns
               ? a->duration.total_ns > b->duration.total_ns
               : a->index < b->index;
  });
  for (const auto* x : v) {
    std::string by;
    for (const auto& [p, c] : x->launches_by_phase)
      by += (by.empty() ? "" : " ") + std::string(to_string(p)) + ":" + std::to_string(c);
    t.rows.push_back({static_cast<int64_t>(x->index), x->family, x->kernel_id, dims(x->grid),
                      dims(x->wg), static_cast<int64_t>(x->waves_per_workgroup), x->lds, x->scratch,
                      reg(x->vgpr), reg(x->agpr), reg(x->sgpr), launches[x->index - 1], by,
                      x->duration.mean_ns(), x->duration.total_ns});
  }
  t.notes.push_back("waves_per_wg = ceil(workgroup threads / wavefront size " +
                    std::to_string(m_model.wave_size) + ")");
  return t;
}

}  // namespace kprof::analysis
