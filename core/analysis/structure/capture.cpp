#include "core/analysis/structure/capture.hpp"

#include <tuple>

namespace kprof::analysis {

uint32_t NameTable::intern(const std::string& name) {
  auto [it, inserted] = m_ids.try_emplace(name, static_cast<uint32_t>(m_names.size()));
  if (inserted) m_names.push_back(name);
  return it->second;
}

std::optional<uint32_t> NameTable::find(const std::string& name) const {
  auto it = m_ids.find(name);
  if (it == m_ids.end()) return std::nullopt;
  return it->second;
}

bool KernelShape::operator==(const KernelShape& o) const {
  auto tie = [](const KernelShape& s) {
    return std::tie(s.kernel_id, s.name, s.grid[0], s.grid[1], s.grid[2], s.wg[0], s.wg[1], s.wg[2],
                    s.lds, s.scratch, s.vgpr, s.agpr, s.sgpr);
  };
  return tie(*this) == tie(o);
}

namespace {
template <class T>
uint32_t intern_in(std::vector<T>& v, const T& x) {
  for (size_t i = v.size(); i-- > 0;)  // newest first: tests add dispatches of a shape together
    if (v[i] == x) return static_cast<uint32_t>(i);
  v.push_back(x);
  return static_cast<uint32_t>(v.size() - 1);
}
}  // namespace

uint32_t PassData::intern(const KernelShape& s) { return intern_in(shapes, s); }
uint32_t PassData::intern(const Lane& l) { return intern_in(lanes, l); }

Dispatch& PassData::add(Dispatch d, const KernelShape& s, int64_t agent, int64_t queue) {
  d.shape = intern(s);
  d.name = s.name;
  d.lane = intern(Lane{agent, queue});
  dispatches.push_back(d);
  return dispatches.back();
}

}  // namespace kprof::analysis
