// Short, readable kernel names for terminal tables. A demangled kernel name can be hundreds of
// characters of namespaces, template arguments and parameter types; its family (family.hpp) is
// short but several kernels share it. The brief name is the family alone when the family has one
// kernel in the table, else what tells its kernels apart: the function's own name when those
// differ, plus the template arguments that differ ("wvSplitK_hf_sml_<64,2>"), plus "#k" when
// nothing in the name does. `--wide`, CSV and JSON show the full name.
#pragma once

#include <string>
#include <vector>

namespace kprof::analysis {

// One brief name per entry of `full`; `family[i]` is the family of `full[i]`.
std::vector<std::string> brief_kernel_names(const std::vector<std::string>& full,
                                            const std::vector<std::string>& family);

// The function's own identifier and its top-level template arguments, from a demangled name
// ("void ns::f<int, 4>(float*)" -> "f", {"int", "4"}). Empty identifier when it cannot tell.
struct NameParts {
  std::string identifier;
  std::vector<std::string> template_args;
};
NameParts split_kernel_name(const std::string& demangled);

}  // namespace kprof::analysis
