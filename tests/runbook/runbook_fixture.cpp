#include "tests/runbook/runbook_fixture.hpp"

#include <unistd.h>

#include <fstream>
#include <iterator>

namespace kprof::runbook::testing {

namespace fs = std::filesystem;

void RunbookTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  m_dir = fs::temp_directory_path() / ("kprof-runbook-" + std::to_string(getpid()) + "-" +
                                       info->test_suite_name() + "-" + info->name());
  fs::remove_all(m_dir);
  fs::create_directories(m_dir / "hw");
  std::ofstream(m_dir / "hw" / "gfx942.yaml") << "arch: gfx942\n";
  std::ofstream(m_dir / "hw" / "gfx950.yaml") << "arch: gfx950\n";
}

void RunbookTest::TearDown() { fs::remove_all(m_dir); }

Runbook RunbookTest::load(const std::string& text) {
  {
    std::ofstream out(m_dir / "rb.yaml", std::ios::binary);
    out << text;
  }
  LoadOptions options;
  options.hw_dir = m_dir / "hw";
  return load_runbook(m_dir / "rb.yaml", options);
}

std::vector<Diagnostic> RunbookTest::diagnostics(const std::string& text) {
  try {
    load(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    return e.diagnostics();
  }
  return {};
}

std::vector<std::string> RunbookTest::errors(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& d : diagnostics(text)) out.push_back(strip_dir(d.line(), m_dir));
  if (out.empty()) out.push_back("no error");
  return out;
}

std::string RunbookTest::error(const std::string& text) {
  auto e = errors(text);
  EXPECT_EQ(e.size(), 1u) << ::testing::PrintToString(e);
  return e.empty() ? std::string() : e.front();
}

std::string strip_dir(std::string line, const fs::path& dir) {
  const std::string prefix = dir.string() + "/";
  for (size_t at; (at = line.find(prefix)) != std::string::npos;) line.erase(at, prefix.size());
  return line;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace kprof::runbook::testing
