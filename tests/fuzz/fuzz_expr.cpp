// libFuzzer target: the derived-counter expression parser (core/hw/expr.hpp), the language of
// rocprofiler-sdk's counter_defs.yaml. Any bytes must end in an Expr or in kprof::Error, and an
// expression printed by str() must parse back to the same text (so a formula kprof shows can be
// pasted into a metric set).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/hw/expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<const kprof::hw::Expr> e;
  try {
    e = kprof::hw::Expr::parse(text);
  } catch (const kprof::Error&) {
    return 0;  // refused with a positioned message: the expected outcome for most inputs
  }
  const std::string once = e->str();
  // ".5" prints as "0.5": a canonical text may outgrow the length bound its input met, and
  // parse() then refuses it by design; the fixed-point property is checked below that bound.
  if (once.size() > kprof::hw::Expr::max_chars) return 0;
  std::string twice;
  try {
    twice = kprof::hw::Expr::parse(once)->str();
  } catch (const kprof::Error&) {
    std::abort();  // str() printed something parse() refuses
  }
  if (twice != once) std::abort();  // printing is not a fixed point
  std::vector<std::pair<std::string, int>> names;
  e->collect_names(names);
  for (const auto& [name, offset] : names)
    if (offset < 0 || static_cast<size_t>(offset) > size) std::abort();
  return 0;
}
