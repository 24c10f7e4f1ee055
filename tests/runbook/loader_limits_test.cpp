// The runbook loader against what an adversary or a slip of the finger gives it: files that are
// not files, files without end, and documents built to be slow.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/base/error.hpp"
#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> load_errors(const fs::path& file) {
  std::vector<std::string> out;
  try {
    load_runbook(file);
    out.push_back("no error");
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) out.push_back(d.line());
  }
  return out;
}

class LoaderLimits : public RunbookTest {};

// `ln -s /dev/zero rb.yaml` used to be read without end (700 MB in 4 s).
TEST_F(LoaderLimits, SymlinkToDevZeroIsRefused) {
  fs::create_symlink("/dev/zero", m_dir / "zero.yaml");
  EXPECT_EQ(load_errors(m_dir / "zero.yaml"),
            std::vector<std::string>{"runbook '" + (m_dir / "zero.yaml").string() +
                                     "' is a character device, not a regular file (name a "
                                     "regular file)"});
}

// Opening a FIFO for reading blocks until a writer comes; kprof must not wait for one.
TEST_F(LoaderLimits, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((m_dir / "pipe.yaml").c_str(), 0600), 0);
  EXPECT_EQ(load_errors(m_dir / "pipe.yaml"),
            std::vector<std::string>{"runbook '" + (m_dir / "pipe.yaml").string() +
                                     "' is a FIFO, not a regular file (name a regular file)"});
}

TEST_F(LoaderLimits, FileLargerThanOneMegabyteIsRefused) {
  {
    std::ofstream big(m_dir / "big.yaml");
    big << k_minimal << "description: \"" << std::string(1 << 20, 'x') << "\"\n";
  }
  EXPECT_EQ(load_errors(m_dir / "big.yaml"),
            std::vector<std::string>{"runbook '" + (m_dir / "big.yaml").string() +
                                     "' is larger than 1048576 bytes (is this the right file?)"});
}

// Many unknown keys: a hash set of seen keys (a list made 100k keys take 27 s) and the first 100
// errors listed, then how many more.
TEST_F(LoaderLimits, ManyKeysGiveAHundredErrorsAndACount) {
  std::string text = k_minimal;
  for (int i = 0; i < 30000; ++i) text += "k" + std::to_string(i) + ": 1\n";
  const auto errs = errors(text);
  ASSERT_EQ(errs.size(), 101u);
  EXPECT_EQ(errs[0], "rb.yaml:5:1: unknown key 'k0' (did you mean 'sim'?)");
  EXPECT_EQ(errs[100],
            "rb.yaml: 29900 more errors not shown (fix the ones above first; only the "
            "first 100 are listed)");
}

// yaml-cpp's LoadAll() looped without end (and without memory bound) on these.
TEST_F(LoaderLimits, StrayCommasAreSyntaxErrorsNotHangs) {
  for (const std::string text : {",", " ,", ",a", "\"x\",", "[a], b"}) {
    SCOPED_TRACE(text);
    const auto errs = errors(text);
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_NE(errs[0].find("YAML syntax error"), std::string::npos) << errs[0];
  }
}

}  // namespace
}  // namespace kprof::runbook::testing
