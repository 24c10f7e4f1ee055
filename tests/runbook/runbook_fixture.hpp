// Shared by the runbook tests: a temp folder per test, runbooks written there as real files, and
// diagnostics printed the way the CLI prints them with the temp folder cut off the file names.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/runbook/runbook.hpp"

namespace kprof::runbook::testing {

// The smallest valid runbook; tests append keys to it.
inline constexpr const char* k_minimal =
    "schema_version: 1\n"
    "name: t\n"
    "workload:\n"
    "  command: [app, --flag]\n";

class RunbookTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Writes `text` to <dir>/rb.yaml and loads it with hw files gfx942.yaml and gfx950.yaml in
  // <dir>/hw.
  Runbook load(const std::string& text);
  // The diagnostics' one-line forms (file names relative to dir), or {"no error"} when it loads.
  std::vector<std::string> errors(const std::string& text);
  // The only diagnostic of `text` (fails the test when there is not exactly one).
  std::string error(const std::string& text);
  // The diagnostics of `text` as thrown (for source lines and positions).
  std::vector<Diagnostic> diagnostics(const std::string& text);

  std::filesystem::path m_dir;
};

// `line` with every "<dir>/" removed.
std::string strip_dir(std::string line, const std::filesystem::path& dir);
std::string read_text(const std::filesystem::path& file);

}  // namespace kprof::runbook::testing
