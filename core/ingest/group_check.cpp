#include "core/ingest/group_check.hpp"

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::ingest {

namespace {

std::string where(int64_t pid, int64_t dispatch) {
  return "dispatch " + std::to_string(dispatch) + " of pid " + std::to_string(pid);
}

}  // namespace

GroupCheck::GroupCheck(store::RowSink& inner, std::vector<std::vector<std::string>> groups)
    : m_inner(inner), m_groups(std::move(groups)) {
  for (size_t g = 0; g < m_groups.size(); ++g)
    for (const auto& name : m_groups[g]) {
      const auto [it, fresh] = m_index.emplace(name, static_cast<int>(g));
      if (!fresh && it->second != static_cast<int>(g))
        throw Error::input("counter groups " + std::to_string(it->second + 1) + " and " +
                               std::to_string(g + 1) + " share " + name +
                               ": a dispatch counted with either could not be told apart",
                           "give every counter to one group only (rocprofv3 does not record "
                           "which group counted a dispatch)");
    }
}

void GroupCheck::begin_file(const std::string& path, const std::string& kind) {
  m_file = path;
  m_inner.begin_file(path, kind);
}

void GroupCheck::counter(const store::CounterRow& row) {
  const auto it = m_index.find(row.counter);
  if (it == m_index.end()) {
    if (m_unknown++ == 0)
      m_first_unknown = m_file + ": " + where(row.pid, row.dispatch_id) + " has " + row.counter;
  } else {
    const auto [at, fresh] = m_group_of.emplace(std::pair{row.pid, row.dispatch_id}, it->second);
    if (!fresh && at->second != it->second) {
      if (at->second >= 0 && m_mixed++ == 0)
        m_first_mixed = m_file + ": " + where(row.pid, row.dispatch_id) + " has " + row.counter +
                        " (group " + std::to_string(it->second + 1) +
                        ") beside counters of group " + std::to_string(at->second + 1);
      at->second = -1;  // counted once as mixed
    }
  }
  m_inner.counter(row);
}

void GroupCheck::finish() const {
  std::vector<std::string> problems;
  if (m_unknown)
    problems.push_back(std::to_string(m_unknown) + " counter value" + (m_unknown == 1 ? "" : "s") +
                       " of no group (first: " + m_first_unknown + ")");
  if (m_mixed)
    problems.push_back(std::to_string(m_mixed) + " dispatch" + (m_mixed == 1 ? "" : "es") +
                       " with counters of more than one group (first: " + m_first_mixed + ")");
  if (problems.empty()) return;
  throw GroupMismatch(Error::input(
      "rotated counter pass: the group of a dispatch is not recoverable: " + join(problems, "; "),
      "the pass was not stored; check that the profiler rotated exactly the "
      "planned pmc_groups (rocprofv3 7.0+, input file), then run the pass again"));
}

std::vector<int64_t> GroupCheck::dispatches_per_group() const {
  std::vector<int64_t> out(m_groups.size(), 0);
  for (const auto& [key, g] : m_group_of)
    if (g >= 0) out[static_cast<size_t>(g)] += 1;
  return out;
}

}  // namespace kprof::ingest
