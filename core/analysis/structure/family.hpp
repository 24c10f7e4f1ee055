// Kernel families: a kernel name normalised so that launches of "the same kernel" with different
// template arguments, Triton specialisations or tile configurations group together
// (`void vllm::rms_norm_kernel<c10::BFloat16, 1>(...)` and `<float, 1>` are both
// `vllm::rms_norm_kernel`). The rules are data: configs/families/*.yaml (read in file-name order),
// and a runbook's own rules, which are tried first and so override the defaults.
#pragma once

#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::analysis {

// abi::__cxa_demangle of an Itanium-mangled name (`_Z...`, also with a trailing `.kd` descriptor
// suffix); the input unchanged when it is not mangled or does not demangle.
std::string demangle(std::string_view name);

// Structural operations a rule file can ask for; each is bracket-aware, which a regex is not.
std::string strip_descriptor_suffix(std::string_view name);  // " [clone .kd]", ".kd"
std::string strip_return_type(std::string_view name);  // "void ns::f<T>(...)" -> "ns::f<T>(...)"
std::string strip_arguments(std::string_view name);    // "ns::f<T>(int, float) const" -> "ns::f<T>"
std::string fold_templates(std::string_view name);     // "ns::f<T, 4>" -> "ns::f"

// One rule as a runbook or a rule file writes it: `{match: REGEX, family: NAME}` names the family
// of every kernel whose (normalised-so-far) name the regex searches successfully;
// `{match: REGEX, replace: TEXT}` rewrites the name (ECMAScript regex, $1 back-references);
// `{op: demangle|strip_descriptor_suffix|strip_return_type|strip_arguments|fold_templates}`.
struct FamilyRule {
  enum class Kind { op, replace, family };
  Kind kind = Kind::replace;
  std::string op;
  std::string pattern;
  std::string text;  // the replacement or the family name
  SourcePos pos;
};

class FamilyRules {
 public:
  // Rules of one YAML file (a top-level `rules:` list). Errors carry file:line:col.
  static FamilyRules load_file(const std::filesystem::path& yaml_file);
  // Every *.yaml under `dir`, in file-name order.
  static FamilyRules load_dir(const std::filesystem::path& dir);
  // configs/families/ of this installation.
  static FamilyRules load_default();
  static FamilyRules from_rules(const std::vector<FamilyRule>& rules);

  // User rules (a runbook's `analysis.families`) go before every loaded rule: a matching `family`
  // rule decides immediately, `replace` rules run first.
  void prepend(const std::vector<FamilyRule>& user_rules);

  // The ops see the whole name; regex rules see at most about 2 kB of it (its first and last kB
  // around "...", family.cpp says why), so a name of any length is grouped without a crash.
  std::string family_of(std::string_view kernel_name) const;
  size_t size() const { return m_rules.size(); }

 private:
  struct Compiled {
    FamilyRule rule;
    std::regex re;
  };
  static Compiled compile(const FamilyRule& rule);
  std::vector<Compiled> m_rules;
};

}  // namespace kprof::analysis
