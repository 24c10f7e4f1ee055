// Integration: the rocprofv3 test double (KPROF_BIN_DIR/rocprofv3-sim, default model
// qwen3-30b-a3b-mi300x) runs as a real process for a trace pass and two counter passes; the files
// go through the ingest library into a real capture database; the analysis explains and joins.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/structure/explain.hpp"
#include "core/analysis/views/query.hpp"
#include "core/analysis/views/session.hpp"
#include "core/analysis/views/table.hpp"
#include "core/analysis/views/views.hpp"
#include "core/store/runbook_hints.hpp"
#include "tests/analysis/metrics_cache_check.hpp"
#include "tests/analysis/sim_capture_fixture.hpp"

namespace kprof::analysis {
namespace {

FamilyRules rules() {
  return FamilyRules::load_dir(fs::path(KPROF_SOURCE_DIR) / "configs" / "families");
}

TEST_F(SimCapture, ExplainsTheMoeFamilyFromTheDataAlone) {
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  const Capture cap = load_capture(db, std::nullopt);
  EXPECT_TRUE(cap.run.simulated);
  EXPECT_EQ(cap.trace.dispatches.size(), 54194u);
  EXPECT_EQ(cap.arch, "gfx942");
  EXPECT_EQ(cap.wave_size, 64);
  const TraceModel m = build_trace_model(cap.trace, cap.names, rules(), cap.wave_size);
  EXPECT_EQ(m.phases.prefill_steps, 1);
  EXPECT_EQ(m.phases.decode_steps, 63);
  EXPECT_EQ(m.phases.layers, 48);
  const auto moe = explain(m, "fused_moe_kernel");
  ASSERT_EQ(moe.size(), 1u);
  EXPECT_EQ(moe[0].text,
            "fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 variants) + 3024 + "
            "3024 (decode, 63 steps × 48 layers × 2 variants)");
  int variants = 0;
  for (const auto& v : m.variants) {
    if (v.family != "fused_moe_kernel") continue;
    ++variants;
    EXPECT_EQ(v.vgpr, 80);
    EXPECT_EQ(v.sgpr, 48);
    EXPECT_EQ(v.lds, 0);
    EXPECT_EQ(v.scratch, 0);
    EXPECT_EQ(v.waves_per_workgroup, 4);
  }
  EXPECT_EQ(variants, 4);
}

TEST_F(SimCapture, JoinsFilteredCounterPassesAndFlagsMixedRatios) {
  {
    store::CaptureDb db(s_db->path());
    const Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.counters.size(), 2u);
    EXPECT_FALSE(joins_current(db, cap));
    const auto joins = ensure_joins(db, cap);
    ASSERT_EQ(joins.size(), 2u);
    for (const auto& j : joins) {
      EXPECT_TRUE(j.filtered);
      EXPECT_EQ(j.trace_considered, 6144);
      // The double may add or drop a lazy-init kernel in counter passes; MoE launches all match.
      EXPECT_GE(j.matched, 6144 - 2);
      EXPECT_GT(j.matched_share, 0.999);
    }
    EXPECT_TRUE(joins_current(db, cap));
  }
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, rules());
  ViewOptions o;
  o.family = "fused_moe_kernel";
  o.phase = Phase::decode;
  const Table roof = q.view("roofline", o);
  ASSERT_EQ(roof.rows.size(), 1u);
  EXPECT_TRUE(roof.simulated);
  const auto col = [&](const std::string& name) {
    for (size_t i = 0; i < roof.columns.size(); ++i)
      if (roof.columns[i] == name) return i;
    ADD_FAILURE() << name;
    return size_t{0};
  };
  const auto& row = roof.rows[0];
  EXPECT_EQ(std::get<int64_t>(row[col("launches")]), 6048);
  // Bytes read and written came from two passes: the ratio is flagged.
  EXPECT_EQ(std::get<std::string>(row[col("passes")]).find("(mixed)") != std::string::npos, true);
  EXPECT_EQ(std::get<std::string>(row[col("bound")]), "memory (mixed passes)");
  const double flops = std::get<double>(row[col("flops_per_launch")]);
  const double bytes = std::get<double>(row[col("bytes_per_launch")]);
  // Decode MoE GEMMs at one token: per the model (configs/sim/qwen3-30b-a3b-mi300x.yaml) gate/up
  // does 2*8*2048*1536 FLOPs and down 2*8*768*2048; the mean over both is their average. The
  // double adds small noise, so 2 %.
  const double expected_flops = (2.0 * 8 * 2048 * 1536 + 2.0 * 8 * 768 * 2048) / 2;
  EXPECT_NEAR(flops, expected_flops, 0.02 * expected_flops);
  EXPECT_GT(bytes, 0);
  EXPECT_LT(flops / bytes, 10.0);  // one token: weights dominate, about 1 FLOP per byte
}

// The export's metrics per slice (DispatchMetricsCache, bound once per sequence of counter ids)
// are dispatch_metrics' for every dispatch of the simulated run: two kernel-filtered counter
// passes, so dispatches hold different counter sets (FLOP counters, HBM bytes, both or none).
TEST_F(SimCapture, ExportMetricsCacheSaysWhatDispatchMetricsSays) {
  {
    store::CaptureDb db(s_db->path());
    ensure_joins(db, load_capture(db, std::nullopt));
  }
  store::CaptureDb db(s_db->path(), store::OpenMode::read_only);
  const Capture cap = load_capture(db, std::nullopt);
  const hw::Target target = hw::Target::load_arch(cap.arch);
  EXPECT_GT(test::expect_cache_matches_dispatch_metrics(target, load_joined_counters(db, cap)),
            1000u);
}

// A copy of the fixture's database for a test that writes into it (the fixture's is shared).
fs::path private_copy(const test::TempDb& fixture, const std::string& name) {
  const fs::path copy = fixture.dir() / (name + ".db");
  fs::remove(copy);
  SQLite::Database(fixture.path().string(), SQLite::OPEN_READONLY)
      .exec("VACUUM INTO '" + copy.string() + "'");
  return copy;
}

// The joins of every stale counter pass are stored in one transaction: when storing the second
// fails (an SQLite trigger aborts its insert), the first pass's join is not left behind either, and
// the next call stores both.
TEST_F(SimCapture, AJoinThatFailsMidwayStoresNothing) {
  store::CaptureDb db(private_copy(*s_db, "midway"));
  const Capture cap = load_capture(db, std::nullopt);
  ASSERT_EQ(cap.counters.size(), 2u);
  for (const char* table : {"analysis_join", "analysis_unmatched", "analysis_join_passes",
                            "analysis_join_proofs", "analysis_join_files"})
    db.sql().exec(std::string("DELETE FROM ") + table);  // an earlier test may have joined them
  db.sql().exec(
      "CREATE TRIGGER fail_second BEFORE INSERT ON analysis_join_proofs WHEN "
      "NEW.counter_pass_id = " +
      std::to_string(cap.counters[1].pass_id) +
      " BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
  EXPECT_THROW(ensure_joins(db, cap), std::exception);
  for (const char* table : {"analysis_join", "analysis_unmatched", "analysis_join_passes",
                            "analysis_join_proofs", "analysis_join_files"})
    EXPECT_EQ(db.sql().execAndGet(std::string("SELECT count(*) FROM ") + table).getInt64(), 0)
        << table;
  EXPECT_FALSE(joins_current(db, cap));
  db.sql().exec("DROP TRIGGER fail_second");
  EXPECT_EQ(ensure_joins(db, cap).size(), 2u);
  EXPECT_TRUE(joins_current(db, cap));
}

// A stored join is current while both passes hold the files it was made from, whatever the clocks
// say: a pass re-ingested with its load time before the join's (a clock set back, or a database
// copied from a machine whose clock runs behind) is joined again, and a join is not made stale by
// time passing or by a copy.
TEST_F(SimCapture, AJoinIsCurrentWhileItsPassesHoldTheSameFilesWhateverTheClock) {
  store::CaptureDb db(private_copy(*s_db, "clock"));
  const Capture cap = load_capture(db, std::nullopt);
  ASSERT_EQ(cap.counters.size(), 2u);
  ensure_joins(db, cap);
  ASSERT_TRUE(joins_current(db, cap));
  // Time passes (the join's own time moves back a day): nothing was ingested.
  db.sql().exec("UPDATE analysis_join_passes SET joined_ms = joined_ms - 86400000");
  EXPECT_TRUE(joins_current(db, cap));
  // The trace pass's file loaded again, stamped a day before the join.
  db.sql().exec("UPDATE ingest_stats SET loaded_ms = loaded_ms - 2 * 86400000 WHERE pass_id = " +
                std::to_string(cap.trace.pass_id));
  EXPECT_FALSE(joins_current(db, cap));
  ensure_joins(db, cap);
  EXPECT_TRUE(joins_current(db, cap));
  // A counter pass's file replaced by another with as many rows (its hash differs).
  db.sql().exec("UPDATE ingest_stats SET sha256 = 'another file' WHERE pass_id = " +
                std::to_string(cap.counters[1].pass_id));
  EXPECT_TRUE(
      pass_join_current(db,
                        {cap.counters[0].pass_id, cap.counters[0].ordinal,
                         static_cast<int64_t>(cap.counters[0].dispatches.size())},
                        {cap.trace.pass_id, 0, static_cast<int64_t>(cap.trace.dispatches.size())}));
  EXPECT_FALSE(joins_current(db, cap));
}

// A roofline-style pass collects the HBM request counters instead of FETCH_SIZE (which, with
// WRITE_SIZE, cannot fit gfx942's 4 TCC slots). Bytes read then come from the roofline formula over
// TCC_EA0_RDREQ*/TCC_BUBBLE, and must agree with FETCH_SIZE measured in another pass of the same
// model.
TEST(SimCaptureRoofline, BytesFromHbmRequestCountersMatchFetchSize) {
  test::TempDb tmp("sim-roof");
  const fs::path d = tmp.dir();
  run_sim(d / "trace", "--kernel-trace --stats");
  run_sim(d / "hbm",
          "--pmc TCC_EA0_RDREQ_32B_sum TCC_EA0_RDREQ_sum TCC_BUBBLE_sum "
          "--kernel-include-regex fused_moe");
  run_sim(d / "fetch", "--pmc FETCH_SIZE --kernel-include-regex fused_moe");
  const auto bytes_per_decode_launch = [&](const std::string& pass_dir, const std::string& tag) {
    test::TempDb one(tag);
    {
      store::CaptureDb db(one.path());
      const int64_t run = test::new_run(db, true);
      test::load_pass(db, run, 0, store::PassKind::trace, files_in(d / "trace"));
      test::load_pass(db, run, 1, store::PassKind::counters, files_in(d / pass_dir));
      ensure_joins(db, load_capture(db, std::nullopt));
    }
    store::CaptureDb db(one.path(), store::OpenMode::read_only);
    QueryContext q(db, std::nullopt, rules());
    ViewOptions o;
    o.family = "fused_moe_kernel";
    o.phase = Phase::decode;
    const Table roof = q.view("roofline", o);
    EXPECT_EQ(roof.rows.size(), 1u);
    for (size_t i = 0; i < roof.columns.size(); ++i)
      if (roof.columns[i] == "bytes_per_launch" && !roof.rows.empty())
        return std::get<double>(roof.rows[0][i]);
    ADD_FAILURE() << "no bytes_per_launch";
    return 0.0;
  };
  const double from_requests = bytes_per_decode_launch("hbm", "sim-roof-hbm");
  const double from_fetch_size = bytes_per_decode_launch("fetch", "sim-roof-fetch");
  EXPECT_GT(from_fetch_size, 1e7);  // tens of MB of expert weights per decode launch
  EXPECT_NEAR(from_requests, from_fetch_size, 0.02 * from_fetch_size);
}

// The query use case: a run recorded with its runbook; the session joins once and applies the
// runbook's family rule (wvSplitK_hf_* kernels are one family only through that rule).
// Distinct Dispatch_Ids of the counter_collection CSVs under `dir`: the launches a counter pass
// counted, read from the raw rows (one row per dispatch and counter).
size_t counted_launches(const fs::path& dir) {
  std::set<std::string> ids;
  for (const auto& f : files_in(dir)) {
    if (f.find("counter_collection") == std::string::npos) continue;
    std::ifstream in(f);
    std::string line;
    std::getline(in, line);
    size_t col = 0;
    std::istringstream head(line);
    for (std::string h; std::getline(head, h, ',') && h != "\"Dispatch_Id\"";) ++col;
    while (std::getline(in, line)) {
      std::istringstream row(line);
      std::string cell;
      for (size_t i = 0; i <= col; ++i) std::getline(row, cell, ',');
      ids.insert(cell);
    }
  }
  return ids.size();
}

// `kprof query DB samples` on a terminal: one row per family and phase, the columns that matter,
// fitting 80 columns as a table (not one record per row); --all keeps a row per variant and
// counter. The launches counted are those of the two counter passes' raw rows: each fused_moe
// launch of pass 1 and of pass 2 counts once (the passes are separate runs of the application).
TEST_F(SimCapture, SamplesFitEightyColumnsWithOneRowPerFamilyAndPhase) {
  QueryArgs a;
  a.db = s_db->path().string();
  a.view = "samples";
  a.run = 1;  // the suite's run (a test below adds another)
  const QueryResult r = run_query(query_request(a));
  const Table& t = r.table;
  EXPECT_EQ(t.columns, (std::vector<std::string>{"family", "phase", "launches", "flops", "bytes",
                                                 "flop_per_byte", "max_rse_pct", "basis"}));
  std::set<std::pair<std::string, std::string>> keys;
  int64_t launches = 0;
  for (const auto& row : t.rows) {
    EXPECT_TRUE(keys.insert({cell_text(row[0]), cell_text(row[1])}).second) << cell_text(row[0]);
    EXPECT_EQ(cell_text(row[0]), "fused_moe_kernel");
    launches += std::get<int64_t>(row[2]);
    EXPECT_GT(std::get<double>(row[3]), 0);  // FLOPs per launch, from the MFMA counter
    EXPECT_GT(std::get<double>(row[4]), 0);  // bytes, FETCH_SIZE and WRITE_SIZE
  }
  ASSERT_FALSE(t.rows.empty());
  EXPECT_EQ(static_cast<size_t>(launches),
            counted_launches(s_db->dir() / "c1") + counted_launches(s_db->dir() / "c2"));
  PrintOptions po;
  po.layout.width = 80;
  std::ostringstream out, err;
  po.err = &err;
  print(out, t, Format::table, po);
  std::istringstream lines(out.str());
  size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n)
    EXPECT_LE(display_width(line), 80u) << line;
  EXPECT_LE(n, t.rows.size() + 12) << out.str();  // a table with its notes, not records
  EXPECT_NE(out.str().find("\nfamily "), std::string::npos) << out.str();

  a.all = true;
  const QueryResult all = run_query(query_request(a));
  EXPECT_EQ(all.table.columns[2], "counter");
  EXPECT_GT(all.table.rows.size(), t.rows.size());
}

TEST_F(SimCapture, QuerySessionJoinsOnceAndUsesTheStoredRunbook) {
  // A run of its own in a copy: the fixture's database stays as the other tests expect it.
  const fs::path db_path = private_copy(*s_db, "with-runbook");
  const fs::path rb_path = fs::path(KPROF_SOURCE_DIR) / "runbooks" / "qwen3-30b-a3b-sim.yaml";
  std::ifstream in(rb_path);
  const std::string rb_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int64_t run = 0;
  {
    store::CaptureDb db(db_path);
    store::NewRun r;
    r.name = "with-runbook";
    r.runbook_path = rb_path.string();
    r.runbook_text = rb_text;
    r.simulated = true;
    run = db.create_run(r);
    test::load_pass(db, run, 0, store::PassKind::trace, files_in(s_db->dir() / "trace"));
    test::load_pass(db, run, 1, store::PassKind::counters, files_in(s_db->dir() / "c1"));
    const RunbookAnalysis ra = runbook_analysis(db, *db.find_run(run));
    EXPECT_EQ(ra.layers, 48);
    EXPECT_EQ(ra.output_tokens, 64);
    ASSERT_EQ(ra.rules.size(), 1u);
    EXPECT_EQ(ra.rules[0].text, "wvSplitK");
    EXPECT_TRUE(ra.not_used_because.empty());
  }
  SessionOptions so;
  so.run_id = run;
  {
    QuerySession first = QuerySession::open(db_path, so);
    ASSERT_EQ(first.joins_computed().size(), 1u);
    EXPECT_NE(join_note(first.joins_computed()[0]).find("joined pass 1 to the trace: "),
              std::string::npos);
    EXPECT_EQ(first.notes(), std::vector<std::string>{k_join_not_stored});  // a query never writes
  }
  {
    store::CaptureDb rw(db_path);
    store_results(rw, run);
  }
  QuerySession again = QuerySession::open(db_path, so);
  EXPECT_TRUE(again.joins_computed().empty());
  EXPECT_EQ(again.capture().run.id, run);
  const Table families = again.view("families", {});
  std::set<std::string> names;
  for (const auto& row : families.rows)
    if (auto* name = std::get_if<std::string>(&row[0])) names.insert(*name);
  EXPECT_EQ(names.count("wvSplitK"), 1u) << families.rows.size();

  store::CaptureDb rw(db_path);
  store::RunInfo broken = *rw.find_run(run);
  broken.runbook_text = "name: [unclosed\n";
  broken.runbook_path = "gone.yaml";
  // Recorded before the hints were stored: the text is all there is, and it does not parse here.
  EXPECT_FALSE(runbook_analysis(rw, broken).not_used_because.empty());
  // Once stored, the hints are what a query reads: the text is not parsed again.
  store::RunbookHints hints;
  hints.layers = 48;
  hints.family_rules = {{"wvSplitK", "wvSplitK", {"rb.yaml", 9, 12}}};
  store::store_runbook_hints(rw, run, hints);
  const RunbookAnalysis stored = runbook_analysis(rw, broken);
  EXPECT_TRUE(stored.not_used_because.empty());
  EXPECT_EQ(stored.layers, 48);
  EXPECT_FALSE(stored.output_tokens.has_value());
  ASSERT_EQ(stored.rules.size(), 1u);
  EXPECT_EQ(stored.rules[0].text, "wvSplitK");
  EXPECT_EQ(stored.rules[0].pos.str(), "rb.yaml:9:12");
}

// A query while another process writes (a real writer process holding SQLite's write lock, as
// `kprof run` does while it loads a pass): the session neither waits nor writes; it computes the
// join in memory, uses it, and says it was not stored. The writer's commit then goes through and
// the file stays intact; a query never stores the join, store_results (`kprof ingest`) does.
TEST_F(SimCapture, QueryDuringAWriterNeitherWaitsNorWrites) {
  test::TempDb own("concurrent");
  {
    store::CaptureDb db(own.path());
    const int64_t run = test::new_run(db, true);
    test::load_pass(db, run, 0, store::PassKind::trace, files_in(s_db->dir() / "trace"));
    test::load_pass(db, run, 1, store::PassKind::counters, files_in(s_db->dir() / "c1"));
  }
  int locked[2], release[2];
  ASSERT_EQ(::pipe(locked), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    ::close(locked[0]);
    ::close(release[1]);
    int rc = 1;
    try {
      SQLite::Database w(own.path().string(), SQLite::OPEN_READWRITE);
      SQLite::Transaction tx(w, SQLite::TransactionBehavior::IMMEDIATE);
      w.exec("CREATE TABLE writer_was_here (x INTEGER)");
      w.exec("INSERT INTO writer_was_here VALUES (42)");
      char c = 'L';
      if (::write(locked[1], &c, 1) == 1 && ::read(release[0], &c, 1) == 1) {
        tx.commit();
        rc = 0;
      }
    } catch (...) {
    }
    ::_exit(rc);
  }
  ::close(locked[1]);
  ::close(release[0]);
  char c = 0;
  ASSERT_EQ(::read(locked[0], &c, 1), 1);  // the writer holds the write lock now

  {
    QuerySession q = QuerySession::open(own.path(), SessionOptions{});
    ASSERT_EQ(q.joins_computed().size(), 1u);
    EXPECT_GT(q.joins_computed()[0].matched, 0);
    ASSERT_EQ(q.notes().size(), 1u);
    EXPECT_EQ(q.notes()[0], k_join_not_stored);
    // The views use the in-memory join: counters land on trace dispatches.
    size_t with_counters = 0;
    for (const auto& d : q.joined().by_dispatch) with_counters += d.empty() ? 0 : 1;
    EXPECT_EQ(with_counters, static_cast<size_t>(q.joins_computed()[0].matched));
  }
  c = 'R';
  ASSERT_EQ(::write(release[1], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);  // its commit was not disturbed
  ::close(locked[0]);
  ::close(release[1]);
  {
    SQLite::Database check(own.path().string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(check.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(check.execAndGet("SELECT x FROM writer_was_here").getInt(), 42);
    EXPECT_EQ(check.execAndGet("SELECT count(*) FROM analysis_join").getInt(),
              0);  // the query wrote nothing
  }
  {
    QuerySession q = QuerySession::open(own.path(), SessionOptions{});
    EXPECT_EQ(q.joins_computed().size(), 1u);
    EXPECT_EQ(q.notes(), std::vector<std::string>{k_join_not_stored});
  }
  {
    store::CaptureDb rw(own.path());
    EXPECT_EQ(store_results(rw, 1),
              "run 1: stored for queries: the counter join of 1 pass and the run's outline");
  }
  QuerySession stored = QuerySession::open(own.path(), SessionOptions{});
  EXPECT_TRUE(stored.joins_computed().empty());
  size_t with_counters = 0;
  for (const auto& d : stored.joined().by_dispatch) with_counters += d.empty() ? 0 : 1;
  EXPECT_GT(with_counters, 0u);
}

}  // namespace
}  // namespace kprof::analysis
