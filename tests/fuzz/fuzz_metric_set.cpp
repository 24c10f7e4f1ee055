// libFuzzer target: the metric-set loader (configs/metrics/<name>.yaml:
// counters to collect and formulas over them), checked against the gfx942
// hardware file read once. Any bytes must end in a MetricSet or in
// kprof::Error; a set it accepts names only counters the target knows, and each
// formula's parsed expression prints back to text that parses again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "core/base/error.hpp"
#include "core/hw/expr.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"

namespace {

const kprof::hw::Target& target() {
  static const kprof::hw::Target t =
      kprof::hw::Target::load(std::filesystem::path(KPROF_SOURCE_DIR) / "configs/hw/gfx942.yaml");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const kprof::hw::Target& t = target();
  try {
    const auto set = kprof::hw::parse_metric_set(text, "fuzz.yaml", "fuzz", t);
    for (const auto& c : set.counters)
      if (t.kind_of(c) == kprof::hw::CounterKind::unknown) std::abort();
    for (const auto& m : set.metrics) {
      if (!m.expr) std::abort();
      (void)kprof::hw::Expr::parse(m.expr->str(), kprof::SourcePos{"fuzz.yaml", 1, 1}, "");
    }
  } catch (const kprof::Error&) {
  }
  return 0;
}
