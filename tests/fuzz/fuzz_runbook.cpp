// libFuzzer target: the runbook loader (YAML through yaml-cpp, then kprof's checks). Any bytes must
// end in a Runbook or in kprof::Error, in bounded time and memory: the inputs that once hung or
// crashed it (a stray
// ',' that made yaml-cpp's LoadAll loop, 100k keys) are in the seed corpus's regressions.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/base/error.hpp"
#include "core/runbook/runbook.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  kprof::runbook::LoadOptions options;
  // No hardware files: the arch is checked for form only, so each input costs only its own parse.
  options.hw_dir = "/nonexistent/kprof-fuzz-hw";
  try {
    (void)kprof::runbook::parse_runbook(text, "/nonexistent/kprof-fuzz/runbook.yaml", options);
  } catch (const kprof::Error&) {
  }
  return 0;
}
