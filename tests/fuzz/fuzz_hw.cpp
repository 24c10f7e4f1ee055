// libFuzzer target: the hardware-file loader (configs/hw/<arch>.yaml: blocks, base counters,
// derived expressions, peaks). Any bytes must end in a Target or in kprof::Error; a Target it
// accepts must answer occupancy() for every counter it names without throwing anything else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/base/error.hpp"
#include "core/hw/target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto target = kprof::hw::Target::parse(text, "fuzz.yaml");
    for (const auto& name : target.counter_names()) (void)target.occupancy({name});
  } catch (const kprof::Error&) {
  }
  return 0;
}
