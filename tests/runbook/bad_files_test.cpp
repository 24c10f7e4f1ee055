// Malformed runbooks kept as files in tests/data/runbooks/bad/: each <name>.yaml has a
// <name>.expected holding every diagnostic kprof must report, one line each, exactly as the CLI
// prints it (without the "kprof: " prefix; the folder is cut off the file name, and this build's
// configs/ folder is written <configs>).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/base/paths.hpp"
#include "core/base/text.hpp"
#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;

const fs::path k_bad_dir = fs::path(KPROF_TEST_DATA) / "runbooks" / "bad";

std::vector<fs::path> bad_runbooks() {
  std::vector<fs::path> out;
  for (const auto& f : fs::directory_iterator(k_bad_dir))
    if (f.path().extension() == ".yaml") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> expected_lines(const fs::path& file) {
  std::vector<std::string> out;
  for (auto& l : split(read_text(file), '\n'))
    if (!l.empty()) out.push_back(l);
  return out;
}

TEST(BadRunbooks, AtLeastFifteenEachWithPinnedErrors) {
  const auto files = bad_runbooks();
  EXPECT_GE(files.size(), 15u);
  for (const auto& f : files) {
    fs::path expected = f;
    expected.replace_extension(".expected");
    EXPECT_TRUE(fs::exists(expected)) << expected;
  }
}

TEST(BadRunbooks, EachReportsExactlyItsExpectedErrors) {
  for (const auto& f : bad_runbooks()) {
    SCOPED_TRACE(f.filename().string());
    fs::path expected = f;
    expected.replace_extension(".expected");
    std::vector<std::string> got;
    try {
      load_runbook(f);
      got.push_back("no error");
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      for (const auto& d : e.diagnostics()) {
        std::string line = strip_dir(d.line(), k_bad_dir);
        const std::string configs = config_dir().string();
        for (size_t at; (at = line.find(configs)) != std::string::npos;)
          line.replace(at, configs.size(), "<configs>");
        got.push_back(line);
        // Positioned errors carry their source line for the caret (binary junk excepted).
        if (d.pos && d.pos->line > 0 && f.filename() != "binary-junk.yaml") {
          EXPECT_FALSE(d.source_line.empty());
        }
      }
    }
    EXPECT_EQ(got, expected_lines(expected));
  }
}

}  // namespace
}  // namespace kprof::runbook::testing
