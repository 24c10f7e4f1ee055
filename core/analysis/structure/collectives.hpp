// Which kernel families are collectives (all-reduce, all-to-all: kernels that exchange data with
// the other ranks and wait for them). The list is data, configs/families/collectives.yaml: a
// regex on the family name (FamilyRules::family_of), the library that launches it and the
// operation, first match wins.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/structure/family.hpp"
#include "core/base/error.hpp"

namespace kprof::analysis {

struct CollectiveKind {
  std::string library;  // "vllm custom all-reduce"
  std::string op;       // all_reduce, all_to_all or any
};

class CollectiveRules {
 public:
  // The `collectives:` list of one YAML file; errors carry file:line:col.
  static CollectiveRules load_file(const std::filesystem::path& yaml_file);
  // configs/families/collectives.yaml of this installation.
  static CollectiveRules load_default();
  struct Entry {
    std::string pattern;
    CollectiveKind kind;
    SourcePos pos;
  };
  static CollectiveRules from_entries(const std::vector<Entry>& entries);

  // The kind of collective family `family` is, or none for a kernel that is not one.
  std::optional<CollectiveKind> kind_of(std::string_view family) const;
  // The kind of collective kernel `kernel_name` is, given its family under the run's rules: that
  // family first, then the kernel's family under configs/families alone, so that a runbook rule
  // that renames a collective's family (`{match: "cross_device_reduce_", family: all_reduce}`)
  // does not hide it.
  std::optional<CollectiveKind> kind_of_kernel(std::string_view kernel_name,
                                               std::string_view family) const;
  size_t size() const { return m_entries.size(); }

 private:
  std::vector<std::pair<Entry, std::regex>> m_entries;
  // configs/families alone (load_default); null for rules made from a file or entries.
  std::shared_ptr<const FamilyRules> m_default_families;
};

}  // namespace kprof::analysis
