// The fixture of the runbook key tests (keys_test.cpp, keys_profiler_test.cpp,
// keys_settings_test.cpp): one class for the `Keys` suite in every file (GoogleTest requires the
// same fixture type across a suite), and k_minimal with more lines after it.
#pragma once

#include <string>

#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {

inline std::string with(const std::string& more) { return std::string(k_minimal) + more; }

class Keys : public RunbookTest {};

}  // namespace kprof::runbook::testing
