// Opening, migrating, version checks and read-only connections, on real files.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/base/error.hpp"
#include "core/store/pass_ranks.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

std::string error_line(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.diagnostics().at(0).line();
  }
  return "(no error)";
}

TEST(OpenMigrate, CreatesEveryTableFromEmpty) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  EXPECT_EQ(db.schema_version(), 10);
  EXPECT_EQ(CaptureDb::latest_schema_version(), 10);
  SQLite::Statement st(db.sql(),
                       "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema "
                       "WHERE type = 'table' ORDER BY name)");
  ASSERT_TRUE(st.executeStep());
  EXPECT_EQ(st.getColumn(0).getString(),
            "agents,analysis_join,analysis_join_files,analysis_join_passes,analysis_join_proofs,"
            "analysis_outline,analysis_outline_passes,analysis_outline_segments,"
            "analysis_unmatched,api_calls,counter_values,dispatch_rows,ingest_stats,kernel_stats,"
            "kernel_variants,memory_allocations,memory_copies,pass_processes,passes,run_family_"
            "rules,run_lock,"
            "run_metric_sets,run_runbook_hints,runs,schema_version,selected_kernels,strings");
  EXPECT_EQ(db.sql().execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(db.sql().execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_EQ(db.sql().execAndGet("PRAGMA synchronous").getInt(), 1);  // NORMAL
  EXPECT_EQ(db.sql().execAndGet("PRAGMA busy_timeout").getInt(), 60000);
  EXPECT_FALSE(db.read_only());
}

TEST(OpenMigrate, ReopenKeepsDataAndDoesNotReapply) {
  TempDir dir;
  int64_t run;
  {
    CaptureDb db(dir / "c.db");
    run = testing::make_run(db, "first");
  }
  CaptureDb db(dir / "c.db");
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM schema_version").getInt(),
            CaptureDb::latest_schema_version());
  auto r = db.find_run(run);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "first");
}

TEST(OpenMigrate, ProcessesCreatingOneFileTogetherMigrateOnce) {
  TempDir dir;
  const auto path = dir / "shared.db";
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        CaptureDb db(path);
        testing::make_run(db, "child" + std::to_string(i));
      } catch (...) {
        rc = 1;
      }
      ::_exit(rc);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  CaptureDb db(path);
  EXPECT_EQ(db.list_runs().size(), 4u);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM schema_version").getInt(),
            CaptureDb::latest_schema_version());
}

// A run row as every schema since 1 holds it (profiler_version came with 2, and has a default).
const char* k_old_run =
    "INSERT INTO runs(id, name, runbook_path, runbook_sha256, runbook_text, host, started_ms, "
    "status, kprof_version, simulated) VALUES (1, 'old', '', '', '', 'h', 1, 'done', 'v', 0)";

// Version 3 adds memory_allocations (memory_allocation_trace.csv).
TEST(OpenMigrate, AVersionTwoDatabaseGainsTheMemoryAllocationsTable) {
  TempDir dir;
  const auto path = dir / "c.db";
  testing::make_db_at_version(path, 2);
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE).exec(k_old_run);
  CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), CaptureDb::latest_schema_version());
  EXPECT_TRUE(db.find_run(1));
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM memory_allocations").getInt(), 0);
}

// Version 4 makes runs.simulated the one record: a run ingested before the loader set it, whose
// agents carry the test double's "(simulated)" product name, gets the flag; a measured one keeps 0.
TEST(OpenMigrate, AVersionThreeDatabaseMarksRunsWithSimulatedAgents) {
  TempDir dir;
  const auto path = dir / "c.db";
  testing::make_db_at_version(path, 3);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(k_old_run);
    raw.exec(
        "INSERT INTO runs(id, name, runbook_path, runbook_sha256, runbook_text, host, started_ms, "
        "status, kprof_version, simulated) VALUES (2, 'real', '', '', '', 'h', 1, 'done', 'v', 0)");
    raw.exec(
        "INSERT INTO passes(id, run_id, ordinal, kind) VALUES (1, 1, 0, 'trace'), "
        "(2, 2, 0, 'trace')");
    raw.exec(
        "INSERT INTO agents VALUES (1, 1, 1, 'GPU', 'gfx942', 'AMD Instinct MI300X (simulated)', "
        "304, 1216, 64, 8, 8, 2100), (2, 1, 1, 'GPU', 'gfx942', 'AMD Instinct MI300X', 304, "
        "1216, 64, 8, 8, 2100)");
  }
  CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), CaptureDb::latest_schema_version());
  EXPECT_TRUE(db.find_run(1)->simulated);
  EXPECT_FALSE(db.find_run(2)->simulated);
}

// Version 5 stores each kernel variant of a pass once and a dispatch as a narrow row; a schema-1
// file's dispatches read back exactly as before (NULL registers, both layouts, two passes), the
// variants are the distinct ones, and `dispatches` answers as the table did.
TEST(OpenMigrate, ASchemaOneFileKeepsEveryDispatchAsNarrowRowsAndVariants) {
  TempDir dir;
  const auto path = dir / "v1.db";
  testing::make_db_at_version(path, 1);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(k_old_run);
    raw.exec(
        "INSERT INTO passes(id, run_id, ordinal, kind) VALUES (1, 1, 0, 'trace'), "
        "(2, 1, 1, 'counters')");
    raw.exec("INSERT INTO strings(id, value) VALUES (1, 'gemm'), (2, 'norm')");
    // pass, dispatch, kernel, corr, agent, queue, stream, pid, tid, start, end, grid xyz, wg xyz,
    // dims_known, lds, scratch, vgpr, agpr, sgpr, name
    raw.exec(
        "INSERT INTO dispatches VALUES "
        "(1, 1, 7, 11, 2, 0, 5, 100, 101, 1000, 2000, 256, 1, 1, 64, 1, 1, 1, 0, 0, 32, 0, 16, 1),"
        "(1, 2, 8, 12, 2, 0, 5, 100, 101, 2100, 2500, 128, 1, 1, 128, 1, 1, 1, 512, 0, 8, 0, 8, 2),"
        "(1, 3, 7, 13, 2, 0, 5, 100, 101, 2600, 3600, 256, 1, 1, 64, 1, 1, 1, 0, 0, 32, 0, 16, 1),"
        "(1, 4, 7, 14, 2, 0, NULL, 100, 101, 3700, 3900, 512, 1, 1, 64, 1, 1, 1, 0, 0, NULL, NULL, "
        "NULL, 1),"
        "(2, 1, 7, 11, 2, 0, NULL, 100, 0, 0, 0, 256, 1, 1, 64, 1, 1, 0, 0, 0, 32, 0, 16, 1),"
        "(2, 2, 8, 12, 2, 0, NULL, 100, 0, 0, 0, 128, 1, 1, 128, 1, 1, 0, 512, 0, 8, NULL, 8, 2)");
  }
  std::vector<std::string> before;
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(raw, "SELECT * FROM dispatches ORDER BY pass_id, pid, dispatch_id");
    while (st.executeStep()) {
      std::string row;
      for (int i = 0; i < st.getColumnCount(); ++i)
        row += (st.getColumn(i).isNull() ? "NULL" : st.getColumn(i).getString()) + ",";
      before.push_back(row);
    }
  }
  CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), CaptureDb::latest_schema_version());
  SQLite::Statement st(db.sql(), "SELECT * FROM dispatches ORDER BY pass_id, pid, dispatch_id");
  std::vector<std::string> after;
  while (st.executeStep()) {
    std::string row;
    for (int i = 0; i < st.getColumnCount(); ++i)
      row += (st.getColumn(i).isNull() ? "NULL" : st.getColumn(i).getString()) + ",";
    after.push_back(row);
  }
  EXPECT_EQ(after, before);
  // Pass 1: gemm 256, norm, gemm 512 without registers; pass 2: its own two.
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM kernel_variants").getInt(), 5);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM dispatch_rows").getInt(), 6);
  EXPECT_EQ(db.row_counts(1).dispatches, 4);
  std::vector<DispatchRow> rows;
  db.for_each_dispatch(1, [&](const DispatchRow& d) { rows.push_back(d); });
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].kernel_name, "gemm");
  EXPECT_EQ(rows[3].grid_x, 512);
  EXPECT_FALSE(rows[3].vgpr);
  EXPECT_FALSE(rows[3].stream_id);
  EXPECT_EQ(rows[1].lds, 512);
}

// The migrations are one transaction: when one fails after earlier statements (and earlier files)
// succeeded, the file keeps its old version and schema, with its data, and says which failed.
// Here 0005 creates kernel_variants, then fails on a dispatch_rows table that is already there.
TEST(OpenMigrate, AMigrationThatFailsMidwayLeavesTheFileAsItWas) {
  TempDir dir;
  const auto path = dir / "c.db";
  testing::make_db_at_version(path, 3);
  const auto schema = [&] {
    SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
    std::vector<std::string> out;
    SQLite::Statement q(raw,
                        "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM "
                        "sqlite_schema ORDER BY type, name");
    while (q.executeStep()) out.push_back(q.getColumn(0).getString());
    out.push_back("version " +
                  raw.execAndGet("SELECT max(version) FROM schema_version").getString());
    out.push_back("runs " + raw.execAndGet("SELECT count(*) FROM runs").getString());
    return out;
  };
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(k_old_run);
    raw.exec("CREATE TABLE dispatch_rows (x INTEGER)");
  }
  const auto before = schema();
  const std::string line = error_line([&] { CaptureDb db(path); });
  EXPECT_NE(line.find("migration 0005_kernel_variants.sql failed"), std::string::npos) << line;
  EXPECT_NE(line.find("the database was left as it was"), std::string::npos) << line;
  EXPECT_EQ(schema(), before);
}

TEST(OpenMigrate, NewerSchemaIsRefusedNamingBothVersions) {
  TempDir dir;
  const auto path = dir / "c.db";
  {
    CaptureDb db(path);
    db.sql().exec("INSERT INTO schema_version(version, applied_ms) VALUES (" +
                  std::to_string(CaptureDb::latest_schema_version() + 1) + ", 0)");
  }
  const int64_t latest = CaptureDb::latest_schema_version();
  const std::string expected =
      "capture database '" + path.string() + "' has schema version " + std::to_string(latest + 1) +
      ", but this kprof (" KPROF_VERSION ") knows versions up to " + std::to_string(latest) +
      " (open it with a newer kprof, or give "
      "this one another database file)";
  EXPECT_EQ(error_line([&] { CaptureDb db(path); }), expected);
  EXPECT_EQ(error_line([&] { CaptureDb db(path, OpenMode::read_only); }), expected);
  try {
    CaptureDb db(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
  }
}

// Version 6 adds the launch of a running pass's attempt (with owner_pid/host, the owner record).
TEST(OpenMigrate, AVersionFiveDatabaseGainsThePassLaunchColumns) {
  TempDir dir;
  const auto path = dir / "c.db";
  testing::make_db_at_version(path, 5);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(k_old_run);
    raw.exec("INSERT INTO passes(id, run_id, ordinal, kind) VALUES (1, 1, 0, 'trace')");
  }
  CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), CaptureDb::latest_schema_version());
  EXPECT_EQ(db.find_pass(1)->launcher, "");
  EXPECT_EQ(db.find_pass(1)->launch_id, "");
  PassTransition t;
  t.state = PassState::running;
  db.set_pass_state(1, t);
  db.set_pass_launch(1, "local", "123:456");
  EXPECT_EQ(db.find_pass(1)->launcher, "local");
  EXPECT_EQ(db.find_pass(1)->launch_id, "123:456");
}

// Version 2 adds runs.profiler_version; a version-1 file with a run gains it, as '' (not recorded).
TEST(OpenMigrate, VersionOneFileGainsTheProfilerVersionColumn) {
  TempDir dir;
  const auto path = dir / "v1.db";
  testing::make_db_at_version(path, 1);
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE).exec(k_old_run);
  CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), CaptureDb::latest_schema_version());
  const auto runs = db.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].profiler_version, "");
  store::NewRun nr{"new", "", "", "", "h", "v", false, {}};
  nr.profiler_version = "    version: 1.0.0";
  const int64_t id = db.create_run(nr);
  EXPECT_EQ(db.find_run(id)->profiler_version, "    version: 1.0.0");
}

TEST(OpenMigrate, ForeignSqliteFileIsNotTouched) {
  TempDir dir;
  const auto path = dir / "other.db";
  {
    SQLite::Database other(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE t(x)");
  }
  EXPECT_EQ(error_line([&] { CaptureDb db(path); }),
            "capture database '" + path.string() +
                "' is an SQLite database but not one of kprof's (no schema_version table) (give "
                "kprof a new file name for its database)");
  SQLite::Database other(path.string());
  EXPECT_EQ(other.execAndGet("SELECT count(*) FROM sqlite_schema").getInt(), 1);
}

TEST(OpenMigrate, NonSqliteFileIsAnInputError) {
  TempDir dir;
  const auto path = dir / "junk.db";
  std::ofstream(path) << "this is not a database, just some text that is long enough to matter\n"
                      << std::string(200, 'x');
  std::string line = error_line([&] { CaptureDb db(path); });
  EXPECT_NE(line.find("not an SQLite database file"), std::string::npos) << line;
}

TEST(OpenMigrate, ReadOnlyRefusesMissingAndEmptyFiles) {
  TempDir dir;
  EXPECT_EQ(error_line([&] { CaptureDb db(dir / "none.db", OpenMode::read_only); }),
            "capture database '" + (dir / "none.db").string() +
                "' does not exist (check the path, or create it with `kprof run` or `kprof "
                "ingest`)");
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  std::ofstream(dir / "empty.db").close();
  EXPECT_EQ(error_line([&] { CaptureDb db(dir / "empty.db", OpenMode::read_only); }),
            "capture database '" + (dir / "empty.db").string() +
                "' is an empty file, not a kprof database (create it with `kprof run` or `kprof "
                "ingest` under a new name)");
}

TEST(OpenMigrate, ReadOnlyConnectionReadsButRefusesWrites) {
  TempDir dir;
  const auto path = dir / "c.db";
  int64_t run, pass;
  {
    CaptureDb db(path);
    run = testing::make_run(db, "ro");
    pass = testing::make_pass(db, run, 0);
  }
  CaptureDb ro(path, OpenMode::read_only);
  EXPECT_TRUE(ro.read_only());
  ASSERT_TRUE(ro.find_run(run));
  EXPECT_EQ(ro.find_run(run)->name, "ro");
  EXPECT_EQ(ro.list_passes(run).size(), 1u);

  std::string line = error_line([&] { ro.create_run({"x", "", "", "", "h", "v", false, {}}); });
  EXPECT_NE(line.find("creating a run: attempt to write a readonly database"), std::string::npos)
      << line;
  EXPECT_NE(line.find("(the database was opened read-only"), std::string::npos) << line;
  EXPECT_NE(error_line([&] { ro.intern("k"); }).find("readonly"), std::string::npos);
  EXPECT_NE(error_line([&] { ro.set_run_status(run, RunStatus::done); }).find("readonly"),
            std::string::npos);
  EXPECT_EQ(error_line([&] { PassLoader l(ro, pass); }),
            "capture database '" + path.string() +
                "' was opened read-only (open it read-write to ingest)");
  EXPECT_EQ(ro.list_runs().size(), 1u);
  EXPECT_EQ(ro.find_run(run)->status, RunStatus::running);
}

TEST(OpenMigrate, ForeignKeysAndChecksCatchMistakes) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  // A pass of a run that does not exist.
  std::string line = error_line([&] { testing::make_pass(db, 999, 0); });
  EXPECT_NE(line.find("FOREIGN KEY constraint failed"), std::string::npos) << line;
  int64_t run = testing::make_run(db);
  testing::make_pass(db, run, 0);
  // The same ordinal twice in one run.
  line = error_line([&] { testing::make_pass(db, run, 0); });
  EXPECT_NE(line.find("UNIQUE constraint failed: passes.run_id, passes.ordinal"), std::string::npos)
      << line;
  // A status the schema does not know, and a value of the wrong type (STRICT).
  EXPECT_THROW(db.sql().exec("UPDATE runs SET status = 'finished'"), SQLite::Exception);
  EXPECT_THROW(db.sql().exec("UPDATE runs SET started_ms = 'yesterday'"), SQLite::Exception);
  EXPECT_THROW(db.sql().exec("UPDATE passes SET argv = 'not json'"), SQLite::Exception);
  EXPECT_THROW(db.sql().exec("UPDATE runs SET runbook_sha256 = 'abc'"), SQLite::Exception);
}

// Version 10 counts every stored pass's dispatches per (process, agent) once, from its rows: a
// version-9 file whose pass holds 2 dispatches of pid 7 on agent 1 and 1 of pid 8 on agent 2 reads
// as those counts (spans 10-40 and 10-20) and as two ranks.
TEST(OpenMigrate, AVersionNineDatabaseGainsItsPassProcessesAndRanks) {
  TempDir dir;
  const auto path = dir / "c.db";
  testing::make_db_at_version(path, 9);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(k_old_run);
    raw.exec("INSERT INTO passes(id, run_id, ordinal, kind) VALUES (1, 1, 0, 'trace')");
    raw.exec("INSERT INTO strings(id, value) VALUES (1, 'gemm')");
    raw.exec(
        "INSERT INTO kernel_variants(id, pass_id, kernel_id, kernel_name_id, grid_x, grid_y, "
        "grid_z, wg_x, wg_y, wg_z, dims_known, lds, scratch) "
        "VALUES (1, 1, 9, 1, 64, 1, 1, 64, 1, 1, 1, 0, 0)");
    raw.exec(
        "INSERT INTO dispatch_rows(pass_id, dispatch_id, correlation_id, agent, queue_id, pid, "
        "tid, start_ns, end_ns, variant_id) VALUES (1, 1, 1, 1, 1, 7, 7, 10, 20, 1), "
        "(1, 2, 2, 1, 1, 7, 7, 30, 40, 1), (1, 1, 1, 2, 1, 8, 8, 10, 20, 1)");
  }
  CaptureDb db(path);
  EXPECT_EQ(pass_processes(db, 1),
            (std::vector<PassProcess>{{7, 1, 2, 10, 40}, {8, 2, 1, 10, 20}}));
  EXPECT_EQ(pass_ranks(db, 1), (std::vector<PassRank>{{0, 7, 1, 2}, {1, 8, 2, 1}}));
}

}  // namespace
}  // namespace kprof::store
