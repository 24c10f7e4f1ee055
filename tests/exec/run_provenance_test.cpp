// A run's provenance (simulated, profiler binary, rocprofv3 release) is decided once when `kprof
// run` starts, stored with the run (schema 8) and read back from the database; runs in a database
// made before schema 8 read as 'unknown' where nothing recorded it.
#include "core/exec/passes/run_provenance.hpp"

#include <SQLiteCpp/Database.h>

#include "core/store/runbook_hints.hpp"
#include "tests/exec/executor_unit_fixture.hpp"
#include "tests/store/store_test_util.hpp"

namespace kprof::exec {
namespace {

using namespace unit;

TEST(RunProvenance, RunStoresWhatItsBackendDecided) {
  Fixture f;
  FakeLauncher launcher([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  ASSERT_EQ(r.exit_code, 0);
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  const auto p = stored_provenance(db, r.run_id);
  ASSERT_TRUE(p.has_value());
  // FakeBackend: simulated, executable "fakeprof", a version that names no release.
  EXPECT_TRUE(p->simulated);
  EXPECT_EQ(p->profiler_path, "fakeprof");
  EXPECT_EQ(p->profiler_release, "unknown");
  EXPECT_TRUE(db.find_run(r.run_id)->simulated);
  EXPECT_FALSE(stored_provenance(db, r.run_id + 1).has_value());
}

// The runbook's analysis hints go with the run too, so that a query reads them as rows and never
// parses the runbook text again (store/runbook_hints.hpp).
TEST(RunProvenance, RunStoresItsRunbookHintsForQueries) {
  Fixture f;
  f.rb.analysis.layers.value = 48;
  f.rb.analysis.output_tokens.value = 64;
  runbook::FamilyRule rule;
  rule.match.value = "wvSplitK";
  rule.match.pos = {"small.yaml", 40, 12};
  rule.family.value = "skinny_gemm";
  f.rb.analysis.families.value.push_back(rule);
  FakeLauncher launcher([](const LaunchSpec& s, int) { return works(s); });
  const ExecResult r = run_runbook(f.rb, f.options, f.seams(launcher));
  ASSERT_EQ(r.exit_code, 0);
  store::CaptureDb db(f.db(), store::OpenMode::read_only);
  const auto hints = store::runbook_hints(db, r.run_id);
  ASSERT_TRUE(hints.has_value());
  EXPECT_EQ(hints->layers, 48);
  EXPECT_EQ(hints->output_tokens, 64);
  ASSERT_EQ(hints->family_rules.size(), 1u);
  EXPECT_EQ(hints->family_rules[0].match, "wvSplitK");
  EXPECT_EQ(hints->family_rules[0].family, "skinny_gemm");
  EXPECT_EQ(hints->family_rules[0].pos.str(), "small.yaml:40:12");
  EXPECT_TRUE(hints->metric_sets.empty());  // the fixture names counters, no metric set
}

TEST(RunProvenance, WrittenAndReadBack) {
  TempDir dir;
  store::CaptureDb db(dir / "c.db");
  const int64_t run = store::testing::make_run(db);
  store::RunProvenance p;
  p.simulated = false;
  p.profiler_path = "/opt/rocm/bin/rocprofv3";
  p.profiler_release = "7.0";
  db.set_run_provenance(run, p);
  const auto back = stored_provenance(db, run);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->simulated);
  EXPECT_EQ(back->profiler_path, "/opt/rocm/bin/rocprofv3");
  EXPECT_EQ(back->profiler_release, "7.0");
  EXPECT_FALSE(db.find_run(run)->simulated);
  EXPECT_THROW(db.set_run_provenance(run + 1, p), Error);
}

// A schema-6 database: no provenance columns. Run 1 recorded rocprofv3 1.0.0 of ROCm 7.0 (the
// release is read from that text); run 2 was simulated and recorded no version.
TEST(RunProvenance, ADatabaseBeforeSchema8ReadsUnknownWhereNothingRecordedIt) {
  TempDir dir;
  const auto path = dir / "v6.db";
  store::testing::make_db_at_version(path, 6);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec(
        "INSERT INTO runs(id, name, runbook_path, runbook_sha256, runbook_text, host, started_ms, "
        "status, kprof_version, simulated, profiler_version) VALUES "
        "(1, 'real', '', '', '', 'h', 1, 'done', 'v', 0, "
        "'version: 1.0.0\ngit_revision: abc\nrocm_version: 7.0.0'), "
        "(2, 'sim', '', '', '', 'h', 2, 'done', 'v', 1, '')");
  }
  store::CaptureDb db(path);
  EXPECT_EQ(db.schema_version(), store::CaptureDb::latest_schema_version());
  const auto real = stored_provenance(db, 1);
  ASSERT_TRUE(real.has_value());
  EXPECT_FALSE(real->simulated);
  EXPECT_EQ(real->profiler_path, "unknown");
  EXPECT_EQ(real->profiler_release, "7.0");
  const auto sim = stored_provenance(db, 2);
  ASSERT_TRUE(sim.has_value());
  EXPECT_TRUE(sim->simulated);
  EXPECT_EQ(sim->profiler_path, "unknown");
  EXPECT_EQ(sim->profiler_release, "unknown");
  // The raw column says 'unknown' for both: the migration's default.
  EXPECT_EQ(db.run_provenance(1)->profiler_release, "unknown");
}

}  // namespace
}  // namespace kprof::exec
