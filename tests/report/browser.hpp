// Loads an HTML file in headless Chromium (Debian's `chromium`, installed by scripts/bootstrap)
// and returns what a check script measured in the rendered page: errors, text that overflows its
// box, and counts of the report's marks. The check script is added to a copy of the page; the
// report itself has no script (its Content-Security-Policy forbids any, and any fetch).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kprof::report::test {

struct Rendered {
  nlohmann::json check;     // what the check script wrote (errors, overflow, counts)
  std::string console;      // Chromium's CONSOLE lines (console messages, CSP violations)
  std::string diagnostics;  // the command and its stderr, for failure messages
};

// Renders `html` at 1280 px wide. Fails the calling test (ADD_FAILURE) and returns an empty check
// when Chromium is missing, times out (`budget_s`) or writes no check result.
Rendered render(const std::filesystem::path& html, const std::filesystem::path& work_dir,
                int budget_s = 30);

}  // namespace kprof::report::test
