// The store owns every table and statement (ARCHITECTURE.md, "SQL runs in"): the analysis, the
// report and the command-line front end reach the capture database through core/store's typed
// functions only. None of them may call CaptureDb::sql(), the raw connection, or name a
// function that hands out SQL text: the test fails on any "sql(" in their files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::vector<std::string> raw_sql_calls(const fs::path& root) {
  std::vector<std::string> out;
  for (const char* top : {"core/analysis", "core/report", "apps"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path());
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.find("sql(") != std::string::npos)
          out.push_back(fs::relative(e.path(), root).generic_string() + ":" + std::to_string(n) +
                        ": " + line);
      }
    }
  }
  return out;
}

TEST(StoreSeam, AnalysisReportAndAppsRunNoSql) {
  const auto v = raw_sql_calls(KPROF_SOURCE_DIR);
  std::string text;
  for (const auto& l : v) text += l + "\n";
  EXPECT_TRUE(v.empty()) << "call a core/store function instead (analysis_reads.hpp, "
                            "analysis_results.hpp, user_query.hpp):\n"
                         << text;
}

// The check itself finds a call where there is one.
TEST(StoreSeam, TheCheckFindsACall) {
  const fs::path root =
      fs::temp_directory_path() / ("kprof_store_seam_" + std::to_string(::getpid()));
  fs::create_directories(root / "core/analysis");
  std::ofstream(root / "core/analysis/x.cpp") << "int f() {\n  db.sql().exec(\"\");\n}\n";
  const auto v = raw_sql_calls(root);
  fs::remove_all(root);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rfind("core/analysis/x.cpp:2:", 0), 0u) << v[0];
}

}  // namespace
