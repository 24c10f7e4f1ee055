#include "core/analysis/capture.hpp"

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

}  // namespace kprof::analysis
