// A 64 kB kernel name (Tensile solution names run to several kB) works in every command that
// reads a capture: the double's small run, one kernel renamed in the real database, then every
// view of `kprof query`, `--sql`, `report`, `export`, `compare`, `status` and `merge` through the
// kprof executable. Before family rules saw a bounded name, std::regex's recursion overflowed the
// stack (SIGSEGV) in every analysis command.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

testing::KprofOut kprof(const TempDir& dir, const std::vector<std::string>& args) {
  return testing::run_kprof(dir.path(), args);
}

TEST(LongKernelName, A64KilobyteNameWorksInEveryCommand) {
  TempDir dir;
  write_script(dir / "work.sh", "exit 0\n");
  write_file(dir / "rb.yaml",
             "schema_version: 1\nname: small\nworkload:\n  command: [\"" +
                 (dir / "work.sh").string() +
                 "\"]\nprofiler:\n  output_format: csv\ntarget:\n  arch: gfx942\npasses:\n  "
                 "trace:\n    enabled: true\n  counters:\n    counters: [GRBM_COUNT, SQ_WAVES]\n"
                 "database: q.db\nsim:\n  model: doc-vector-ops\n  seed: 7\n");
  const auto db = dir / "q.db";
  auto r =
      kprof(dir, {"run", (dir / "rb.yaml").string(), "--simulate", "--quiet", "--db", db.string()});
  ASSERT_EQ(r.code, 0) << r.text;
  // A Tensile-shaped name: the default rule that keeps its operand layouts ends in `_.*$`.
  const std::string name = "Cijk_Alik_Bljk_BBS_" + std::string(64 * 1024, 'X');
  {
    SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
    SQLite::Statement up(d,
                         "UPDATE strings SET value = ? WHERE id = (SELECT kernel_name_id FROM "
                         "dispatches ORDER BY dispatch_id LIMIT 1)");
    up.bind(1, name);
    ASSERT_EQ(up.exec(), 1);
  }
  fs::copy_file(db, dir / "other.db");
  std::vector<std::vector<std::string>> commands;
  for (const char* view :
       {"top", "families", "variants", "phases", "structure", "windows", "explain", "counters",
        "metrics", "metric_sets", "roofline", "passes", "samples"})
    commands.push_back({"query", db.string(), view, "--wide"});
  commands.push_back({"query", db.string(), "--sql",
                      "SELECT length(kernel_name) FROM v_dispatches WHERE kernel_name LIKE "
                      "'Cijk%'"});
  commands.push_back({"report", db.string(), "-o", (dir / "r.html").string()});
  commands.push_back({"export", db.string(), "--perfetto", (dir / "t.json").string()});
  commands.push_back({"compare", (dir / "other.db").string(), db.string()});
  commands.push_back({"status", db.string()});
  commands.push_back({"merge", (dir / "merged.db").string(), db.string()});
  for (const auto& c : commands) {
    r = kprof(dir, c);
    EXPECT_EQ(r.code, 0) << c[0] << " " << c[2] << ": " << r.describe << "\n"
                         << r.text.substr(0, 2000);
  }
  r = kprof(dir, {"query", db.string(), "families", "--format", "csv"});
  EXPECT_NE(r.text.find("Cijk_Alik_Bljk,"), std::string::npos) << r.text.substr(0, 2000);
  EXPECT_NE(read_text(dir / "r.html").find("Cijk_Alik_Bljk"), std::string::npos);
  EXPECT_NE(read_text(dir / "t.json").find(name), std::string::npos);
}

}  // namespace
}  // namespace kprof::exec
