// `kprof merge` end to end: real runs of the rocprofv3 test double into real SQLite files, split
// between "nodes" by resetting passes, merged back with the kprof executable. The merged database
// is compared with the uninterrupted run's by what the rows hold (kernel and counter names, not
// interned ids, which differ between files), checked by SQL written here, not by merge's digest.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/base/sha256.hpp"
#include "core/exec/node/process_runner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

using Out = testing::KprofOut;

Out kprof(const TempDir& dir, const std::vector<std::string>& args) {
  return testing::run_kprof(dir.path(), args, {{"ROCPROF_SIM_CLOCK_BASE_NS", "1000000000"}});
}

// A trace pass and two counter passes on the double's small model.
std::filesystem::path runbook(const TempDir& dir, int seed) {
  write_script(dir / "work.sh", "exit 0\n");
  const auto rb = dir / ("small-" + std::to_string(seed) + ".yaml");
  write_file(rb, "schema_version: 1\nname: small\nworkload:\n  command: [\"" +
                     (dir / "work.sh").string() +
                     "\"]\n  timeout: 60s\nprofiler:\n  output_format: csv\ntarget:\n  arch: "
                     "gfx942\npasses:\n  trace:\n    enabled: true\n  counters:\n    counters: "
                     "[GRBM_COUNT, GRBM_GUI_ACTIVE, GRBM_CP_BUSY, SQ_WAVES]\n    kernels:\n      "
                     "from_trace: {top: 2, by: total_duration}\ndatabase: full.db\nsim:\n  model: "
                     "doc-vector-ops\n  seed: " +
                     std::to_string(seed) + "\n");
  return rb;
}

// What the run's rows hold, per pass ordinal: every table's row count, every dispatch by kernel
// name and every counter value by counter name, as sorted lines.
std::vector<std::string> content(const std::filesystem::path& db_path) {
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  std::vector<std::string> lines;
  for (const char* table : {"agents", "dispatches", "counter_values", "kernel_stats",
                            "memory_copies", "api_calls", "ingest_stats"}) {
    SQLite::Statement q(db, std::string("SELECT p.ordinal, count(*) FROM ") + table +
                                " t JOIN passes p ON p.id = t.pass_id GROUP BY p.ordinal");
    while (q.executeStep())
      lines.push_back(std::string(table) + " " + q.getColumn(0).getString() + " " +
                      q.getColumn(1).getString());
  }
  SQLite::Statement d(db,
                      "SELECT p.ordinal, d.pid, d.dispatch_id, s.value, d.start_ns, d.end_ns FROM "
                      "dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings s ON s.id = "
                      "d.kernel_name_id");
  while (d.executeStep()) {
    std::string l = "d";
    for (int i = 0; i < 6; ++i) l += " " + d.getColumn(i).getString();
    lines.push_back(l);
  }
  SQLite::Statement c(db,
                      "SELECT p.ordinal, c.pid, c.dispatch_id, s.value, c.value FROM "
                      "counter_values c JOIN passes p ON p.id = c.pass_id JOIN strings s ON s.id "
                      "= c.counter_id");
  while (c.executeStep()) {
    std::string l = "c";
    for (int i = 0; i < 5; ++i) l += " " + c.getColumn(i).getString();
    lines.push_back(l);
  }
  SQLite::Statement k(db,
                      "SELECT s.value, k.rank FROM selected_kernels k JOIN strings s ON s.id = "
                      "k.name_id");
  while (k.executeStep())
    lines.push_back("k " + k.getColumn(0).getString() + " " + k.getColumn(1).getString());
  SQLite::Statement p(db, "SELECT ordinal, state, kind, counters FROM passes");
  while (p.executeStep()) {
    lines.push_back("p " + p.getColumn(0).getString() + " " + p.getColumn(1).getString() + " " +
                    p.getColumn(2).getString() + " " + p.getColumn(3).getString());
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// A copy of `from` in which the passes of `ordinals` never ran: rows gone, state planned (what a
// node that ran only the other passes holds).
std::filesystem::path node_copy(const std::filesystem::path& from, const std::filesystem::path& to,
                                const std::vector<int>& ordinals) {
  std::filesystem::copy_file(from, to);
  SQLite::Database db(to.string(), SQLite::OPEN_READWRITE);
  // Every table holding pass rows, whatever the schema version calls them.
  std::vector<std::string> tables;
  SQLite::Statement t(db,
                      "SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) c WHERE "
                      "m.type = 'table' AND c.name = 'pass_id' AND m.name <> 'passes'");
  while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
  for (int o : ordinals) {
    const std::string pass = "(SELECT id FROM passes WHERE ordinal = " + std::to_string(o) + ")";
    for (const auto& table : tables)
      db.exec("DELETE FROM \"" + table + "\" WHERE pass_id = " + pass);
    db.exec(
        "UPDATE passes SET state = 'planned', finished_ms = NULL, started_ms = NULL WHERE id = " +
        pass);
  }
  if (std::find(ordinals.begin(), ordinals.end(), 0) != ordinals.end())
    db.exec("DELETE FROM selected_kernels");
  db.exec("UPDATE runs SET status = 'interrupted'");
  return to;
}

std::string file_sha(const std::filesystem::path& p) { return sha256_hex(read_text(p)); }

class Merge : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto rb = runbook(dir, 7);
    const auto r = kprof(
        dir, {"run", rb.string(), "--simulate", "--quiet", "--db", (dir / "full.db").string()});
    ASSERT_EQ(r.code, 0) << r.text;
  }
  TempDir dir;
};

TEST_F(Merge, PassesFromTwoNodesMakeTheWholeRunAndMergingAgainChangesNothing) {
  const auto a = node_copy(dir / "full.db", dir / "a.db", {1, 2});  // node A ran the trace
  const auto b = node_copy(dir / "full.db", dir / "b.db", {0});     // node B the counter passes
  const auto merged = dir / "merged.db";
  auto r = kprof(dir, {"merge", merged.string(), b.string(), a.string()});
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("3/3 passes done, run done"), std::string::npos) << r.text;
  EXPECT_EQ(content(merged), content(dir / "full.db"));
  {
    SQLite::Database db(merged.string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM runs").getInt(), 1);
    EXPECT_EQ(db.execAndGet("SELECT status FROM runs").getString(), "done");
    // The strings of both nodes, each once.
    EXPECT_EQ(db.execAndGet("SELECT count(*) - count(DISTINCT value) FROM strings").getInt(), 0);
  }
  const auto before = file_sha(merged);
  r = kprof(dir, {"merge", merged.string(), a.string(), b.string(), (dir / "full.db").string()});
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("run 1: 0 passes added"), std::string::npos) << r.text;
  EXPECT_EQ(content(merged), content(dir / "full.db"));
  (void)before;  // the file's bytes may differ (WAL checkpoint); its content is what must not
}

TEST_F(Merge, ConflictingCapturesOfOnePassAreRefusedNamingBothAndTheTargetIsUntouched) {
  const auto a = node_copy(dir / "full.db", dir / "a.db", {2});
  const auto c = node_copy(dir / "full.db", dir / "c.db", {});
  {
    SQLite::Database db(c.string(), SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE counter_values SET value = value + 1 WHERE pass_id = (SELECT id FROM passes "
        "WHERE ordinal = 1) AND dispatch_id = (SELECT min(dispatch_id) FROM counter_values)");
  }
  const auto before = content(a);
  const auto b = node_copy(dir / "full.db", dir / "b.db", {0, 1});  // would add pass 2
  auto r = kprof(dir, {"merge", a.string(), b.string(), c.string()});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("pass 1 (counters"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(a.string()), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(c.string()), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("different rows"), std::string::npos) << r.text;
  EXPECT_EQ(content(a), before);  // pass 2 from b.db was rolled back with the rest
}

TEST_F(Merge, DatabasesOfAnotherRunbookAreRefusedAndANewTargetIsNotLeftBehind) {
  const auto rb = runbook(dir, 8);
  auto r = kprof(
      dir, {"run", rb.string(), "--simulate", "--quiet", "--db", (dir / "other.db").string()});
  ASSERT_EQ(r.code, 0) << r.text;
  const auto merged = dir / "new.db";
  r = kprof(dir,
            {"merge", merged.string(), (dir / "full.db").string(), (dir / "other.db").string()});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("runbook sha256"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("other.db"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(merged));
  const auto sha = file_sha(dir / "full.db");
  r = kprof(dir, {"merge", (dir / "full.db").string(), (dir / "full.db").string()});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("is the target database itself"), std::string::npos) << r.text;
  r = kprof(dir, {"merge", (dir / "full.db").string(), (dir / "work.sh").string()});
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_EQ(file_sha(dir / "full.db"), sha);
}

// Analysis results (the stored joins and outline that `query`, `report`, `export` and `compare`
// write into a database) are not capture data: a merge after any of them, into an analysed target
// or from an analysed source, keeps every capture row once, and the next analysis of the merged
// database works.
TEST_F(Merge, AMergeAfterEveryAnalysisCommandKeepsEveryCaptureRowOnce) {
  const auto full = dir / "full.db";
  const std::vector<std::pair<std::string, std::vector<std::string>>> analyses = {
      {"query", {"query", "DB", "roofline"}},
      {"report", {"report", "DB", "-o", (dir / "r.html").string()}},
      {"export", {"export", "DB", "--perfetto", (dir / "t.json").string()}},
      {"compare", {"compare", full.string(), "DB"}},
  };
  auto analyse = [&](const std::vector<std::string>& command, const std::filesystem::path& db) {
    std::vector<std::string> args = command;
    std::replace(args.begin(), args.end(), std::string("DB"), db.string());
    const auto r = kprof(dir, args);
    EXPECT_EQ(r.code, 0) << args[0] << " " << db << ": " << r.text;
  };
  analyse({"query", "DB", "roofline"}, full);  // the source analysed too
  const auto want = content(full);
  for (const auto& [name, command] : analyses) {
    SCOPED_TRACE(name);
    const auto a = node_copy(full, dir / (name + "-a.db"), {1, 2});  // the trace
    const auto b = node_copy(full, dir / (name + "-b.db"), {0});     // the counter passes
    analyse(command, a);
    const auto merged = dir / (name + "-merged.db");
    // Into a new database, from an analysed node and one that was not.
    auto r = kprof(dir, {"merge", merged.string(), a.string(), b.string()});
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_EQ(content(merged), want);
    // Into the analysed node itself; then the analysed whole run, which adds nothing.
    r = kprof(dir, {"merge", a.string(), b.string()});
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_EQ(content(a), want);
    r = kprof(dir, {"merge", a.string(), full.string()});
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_NE(r.text.find("run 1: 0 passes added"), std::string::npos) << r.text;
    EXPECT_EQ(content(a), want);
    // What the analysis stored about the node's old rows went; analysing again works.
    for (const auto& [again, again_command] : analyses) analyse(again_command, a);
    SQLite::Database db(a.string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA integrity_check").getString(), "ok");
  }
}

}  // namespace
}  // namespace kprof::exec
