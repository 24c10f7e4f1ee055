// ARCHITECTURE.md's folder table is the rule; this test fails on any include it forbids.
#include "tests/architecture/include_rules.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/base/text.hpp"

namespace kprof::architecture {
namespace {

namespace fs = std::filesystem;

TEST(IncludeRules, TheTreeKeepsArchitectureMd) {
  const auto v = include_violations(KPROF_SOURCE_DIR);
  EXPECT_TRUE(v.empty()) << join(v, "\n");
}

// ARCHITECTURE.md names the folders where SQL runs; no other folder includes SQLite or holds
// an SQL statement, and each named folder does.
TEST(SqlRule, OnlyTheNamedFoldersRunSql) {
  const auto v = sql_violations(KPROF_SOURCE_DIR);
  EXPECT_TRUE(v.empty()) << join(v, "\n");
}

// Comments cite upstream sources (repository + path, or URL); the team's notes are not in the repo.
TEST(Citations, NoCommentCitesPrivateNotes) {
  const auto v = private_citations(KPROF_SOURCE_DIR);
  EXPECT_TRUE(v.empty()) << join(v, "\n");
}

// No test or script reads, and no comment names, a path outside the checkout: the captures the
// tests read are in tests/data (tests/data/SOURCES.md).
TEST(Citations, NoCodeNamesAPathOutsideTheCheckout) {
  const auto v = outside_paths(KPROF_SOURCE_DIR);
  EXPECT_TRUE(v.empty()) << join(v, "\n");
}

// A copy of the real table over a small tree with one allowed and three forbidden includes.
class IncludeRulesOnATree : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("kprof_arch_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    fs::create_directories(m_root);
    fs::copy_file(fs::path(KPROF_SOURCE_DIR) / "ARCHITECTURE.md", m_root / "ARCHITECTURE.md");
  }
  void TearDown() override { fs::remove_all(m_root); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((m_root / rel).parent_path());
    std::ofstream(m_root / rel) << text;
  }
  fs::path m_root;
};

TEST_F(IncludeRulesOnATree, ForbiddenIncludesAreNamed) {
  write("core/analysis/ok.cpp", "#include \"core/store/capture_db.hpp\"\n#include <vector>\n");
  write("core/store/up.cpp",
        "// store must not see analysis\n#include \"core/analysis/join/join.hpp\"\n");
  write("core/ingest/rows.cpp", "#include \"core/store/rows.hpp\"\n");
  write("core/ingest/sql.cpp", "#include \"core/store/capture_db.hpp\"\n");
  write("core/plan/spawn.cpp", "#include <boost/process.hpp>\n");
  auto v = include_violations(m_root);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 3u) << join(v, "\n");
  EXPECT_EQ(v[0],
            "core/ingest/sql.cpp:1: includes core/store/capture_db.hpp; core/ingest may use: "
            "core/base, core/store (rows.hpp)");
  EXPECT_EQ(
      v[1],
      "core/plan/spawn.cpp:1: includes boost/process.hpp; only core/exec/node/process_runner.cpp "
      "may include Boost.Process");
  EXPECT_EQ(
      v[2],
      "core/store/up.cpp:2: includes core/analysis/join/join.hpp; core/store may use: core/base");
}

// The real subfolder rows of exec and analysis: a sibling above is forbidden, one below allowed,
// a library above names its subfolders through the library's name, and a new subfolder needs its
// row.
TEST_F(IncludeRulesOnATree, SubfoldersKeepTheirOwnRows) {
  write("core/exec/run/ok.cpp", "#include \"core/exec/launch/pass_launcher.hpp\"\n");
  write("core/exec/node/up.cpp", "#include \"core/exec/run/driver.hpp\"\n");
  write("core/report/ok.cpp", "#include \"core/analysis/views/session.hpp\"\n");
  write("core/analysis/structure/up.cpp", "#include \"core/analysis/join/join.hpp\"\n");
  write("core/exec/extra/new.cpp", "#include \"core/base/text.hpp\"\n");
  auto v = include_violations(m_root);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 3u) << join(v, "\n");
  EXPECT_EQ(v[0].substr(0, v[0].find(';')),
            "core/analysis/structure/up.cpp:1: includes core/analysis/join/join.hpp");
  EXPECT_EQ(v[1], "core/exec/extra: not in ARCHITECTURE.md's folder table; add its row");
  EXPECT_EQ(v[2],
            "core/exec/node/up.cpp:1: includes core/exec/run/driver.hpp; core/exec/node may use: "
            "core/base, core/runbook, core/store");
}

// A subfolder's row that names more than its library's row allows is itself a violation.
TEST_F(IncludeRulesOnATree, ASubfolderRowStaysWithinItsLibrary) {
  std::ifstream in(m_root / "ARCHITECTURE.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string md = text.str();
  const std::string row = "| base, runbook, store |";
  const auto at = md.find(row, md.find("| `core/exec/node` |"));
  ASSERT_NE(at, std::string::npos);
  md.replace(at, row.size(), "| base, runbook, store, analysis |");
  std::ofstream(m_root / "ARCHITECTURE.md") << md;
  const auto v = include_violations(m_root);
  ASSERT_EQ(v.size(), 1u) << join(v, "\n");
  EXPECT_EQ(v[0], "core/exec/node may use core/analysis, which core/exec may not");
}

TEST_F(IncludeRulesOnATree, PrivateCitationsAreFound) {
  write("core/hw/a.cpp", "// TCC has 4 slots (facts 1.2)\nint x;\n");
  write("configs/hw/b.yaml",
        "# see ../shared/facts/gfx942-counters.md\n# ROCm/aqlprofile is fine\n");
  auto v = private_citations(m_root);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 2u) << join(v, "\n");
  EXPECT_EQ(v[0], "configs/hw/b.yaml:1: # see ../shared/facts/gfx942-counters.md");
  EXPECT_EQ(v[1], "core/hw/a.cpp:1: // TCC has 4 slots (facts 1.2)");
}

TEST_F(IncludeRulesOnATree, AFolderMissingFromTheTableIsReported) {
  write("core/report/html.cpp", "#include \"core/base/text.hpp\"\n");
  write("core/web/page.cpp", "#include \"core/base/text.hpp\"\n");
  const auto v = include_violations(m_root);
  ASSERT_EQ(v.size(), 1u) << join(v, "\n");
  EXPECT_EQ(v[0], "core/web: not in ARCHITECTURE.md's folder table; add its row");
}

TEST_F(IncludeRulesOnATree, SqlOutsideTheNamedFoldersIsFound) {
  write("core/store/db.cpp", "#include <SQLiteCpp/Database.h>\n");
  write("core/ingest/r.cpp", "#include <SQLiteCpp/Statement.h>\n");
  write("core/sim/w.cpp", "#include <sqlite3.h>\n");
  EXPECT_TRUE(sql_violations(m_root).empty()) << join(sql_violations(m_root), "\n");
  write("core/analysis/a.cpp", "#include <sqlite3.h>\n");
  write("core/report/r.cpp", "#include <SQLiteCpp/Statement.h>\n");
  write("core/exec/e.cpp", "int f();\nconst char* q = \"SELECT id FROM passes\";\n");
  write("apps/kprof/help.cpp", "const char* h = \"--sql \\\"SELECT ...\\\"\";\n");
  const auto v = sql_violations(m_root);
  ASSERT_EQ(v.size(), 3u) << join(v, "\n");
  EXPECT_EQ(v[0].substr(0, v[0].find(';')), "core/analysis/a.cpp:1: includes sqlite3.h");
  EXPECT_EQ(v[1].substr(0, v[1].find(';')),
            "core/exec/e.cpp:2: has the SQL statement \"SELECT ...\"");
  EXPECT_EQ(v[2].substr(0, v[2].find(';')), "core/report/r.cpp:1: includes SQLiteCpp/Statement.h");
  fs::remove(m_root / "core/sim/w.cpp");
  const auto w = sql_violations(m_root);
  EXPECT_NE(std::find(w.begin(), w.end(),
                      "core/sim: ARCHITECTURE.md says SQL runs here, but no file includes SQLite"),
            w.end());
}

TEST_F(IncludeRulesOnATree, PathsOutsideTheCheckoutAreFound) {
  write("tests/ingest/a_test.cpp", "const char* p = KPROF_SHARED_DIR \"/captures\";\n");
  write("tests/CMakeLists.txt", "# the data in tests/data\nset(D ${CMAKE_SOURCE_DIR}/../shared)\n");
  write("scripts/run", "#!/bin/sh\ncat /work/main/notes.txt\n");
  write("tests/data/x/SOURCES.md", "copied from ../shared/captures\n");
  auto v = outside_paths(m_root);
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 3u) << join(v, "\n");
  EXPECT_EQ(v[0], "scripts/run:2: cat /work/main/notes.txt");
  EXPECT_EQ(v[1], "tests/CMakeLists.txt:2: set(D ${CMAKE_SOURCE_DIR}/../shared)");
  EXPECT_EQ(v[2], "tests/ingest/a_test.cpp:1: const char* p = KPROF_SHARED_DIR \"/captures\";");
}

}  // namespace
}  // namespace kprof::architecture
