// libFuzzer target: the kernel-family rules (core/analysis/structure/family.hpp), configs/families
// with the structural operations and the regex rules, on kernel names up to 64 kB (the fuzz test's
// -max_len): a Tensile or Triton name runs to several kB, and std::regex once overflowed the stack
// on one of ~30 kB. Any bytes must give a family (never an empty one for a non-empty name) or
// kprof::Error; the same name must always give the same family.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/analysis/structure/family.hpp"
#include "core/base/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const kprof::analysis::FamilyRules rules =
      kprof::analysis::FamilyRules::load_dir(std::string(KPROF_SOURCE_DIR) + "/configs/families");
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  std::string family;
  try {
    family = rules.family_of(name);
  } catch (const kprof::Error&) {
    return 0;
  }
  if (rules.family_of(name) != family) std::abort();
  return 0;
}
