// Integration: the views that read joined counters (roofline, metrics, metric_sets, counters,
// samples) stream them from the stored join, one trace dispatch at a time, and give the tables
// they give from every dispatch's counters held at once; explain and phases load no counter pass,
// and with SessionOptions::bounded no trace dispatch either.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/views/session.hpp"
#include "tests/analysis/sim_capture_fixture.hpp"

namespace kprof::analysis {
namespace {

// A copy of the fixture's database with the join stored, as `kprof ingest` or `kprof run` leave it.
class StoredJoin : public SimCapture {
 protected:
  void SetUp() override {
    fs::copy_file(s_db->path(), m_copy.path(), fs::copy_options::overwrite_existing);
    store::CaptureDb rw(m_copy.path());
    store_results(rw, rw.find_last_run()->id);
  }
  test::TempDb m_copy{"bounded-views"};
};

const char* const k_joined_views[] = {"roofline", "metrics", "metric_sets", "counters", "samples"};

void expect_same(const Table& a, const Table& b, const std::string& what) {
  EXPECT_EQ(a.columns, b.columns) << what;
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.notes, b.notes) << what;
  EXPECT_EQ(a.title, b.title) << what;
}

TEST_F(StoredJoin, ExplainAndPhasesLoadNoCounterPass) {
  QuerySession q = QuerySession::open(m_copy.path(), SessionOptions{});
  EXPECT_TRUE(q.joins_computed().empty());
  for (const char* v : {"explain", "phases", "top", "families", "variants", "claims", "passes"}) {
    q.view(v, ViewOptions{});
    EXPECT_FALSE(q.trace_capture().counter_rows) << v;
    EXPECT_TRUE(q.trace_capture().counters.empty()) << v;
    EXPECT_EQ(q.whole_joins_loaded(), 0) << v;
  }
}

TEST_F(StoredJoin, JoinedViewsStreamAndGiveTheTablesOfTheWholeJoin) {
  QuerySession streamed = QuerySession::open(m_copy.path(), SessionOptions{});
  QuerySession whole = QuerySession::open(m_copy.path(), SessionOptions{});
  size_t with_counters = 0;
  for (const auto& d : whole.joined().by_dispatch) with_counters += d.empty() ? 0 : 1;
  ASSERT_GT(with_counters, 0u);
  ASSERT_EQ(whole.whole_joins_loaded(), 1);
  for (const bool compact : {false, true}) {
    for (const auto phase : {std::optional<Phase>{}, std::optional<Phase>{Phase::decode}}) {
      for (const char* v : k_joined_views) {
        ViewOptions o;
        o.compact = compact;
        o.phase = phase;
        o.structured = !compact;
        const std::string what =
            std::string(v) + (compact ? " compact" : "") + (phase ? " decode" : "");
        const Table s = streamed.view(v, o);
        EXPECT_FALSE(s.rows.empty()) << what;
        expect_same(s, whole.view(v, o), what);
      }
    }
  }
  // No view held every dispatch's counters, nor the counter passes' dispatches.
  EXPECT_EQ(streamed.whole_joins_loaded(), 0);
  EXPECT_FALSE(streamed.trace_capture().counter_rows);
  EXPECT_EQ(whole.whole_joins_loaded(), 1);
}

// The views of a bounded session (SessionOptions::bounded, the stored join current) hold no trace
// dispatch and give the tables of the session that loaded the capture, for the whole trace, one
// family, one phase, and in machine formats; those of joined counters stream them as well.
TEST_F(StoredJoin, BoundedSessionHoldsNoDispatchAndGivesTheLoadedTables) {
  SessionOptions bounded_options;
  bounded_options.bounded = true;
  QuerySession bounded = QuerySession::open(m_copy.path(), bounded_options);
  QuerySession loaded = QuerySession::open(m_copy.path(), SessionOptions{});
  ASSERT_TRUE(bounded.holds_no_dispatches());
  EXPECT_TRUE(bounded.trace_capture().trace.dispatches.empty());
  EXPECT_FALSE(loaded.holds_no_dispatches());
  ASSERT_FALSE(loaded.trace_capture().trace.dispatches.empty());
  EXPECT_EQ(bounded.notes(), loaded.notes());
  ASSERT_FALSE(loaded.model().variants.empty());
  const std::string family = loaded.model().variants.front().family;
  for (const char* v :
       {"top", "explain", "phases", "variants", "families", "structure", "windows", "roofline",
        "metrics", "metric_sets", "counters", "samples", "claims", "passes", "ranks"}) {
    ASSERT_TRUE(bounded_view(v)) << v;
    for (int k = 0; k < 4; ++k) {
      ViewOptions o;
      if (k == 1) o.family = family;
      if (k == 2) o.phase = Phase::decode;
      o.structured = k == 3;
      const std::string what = std::string(v) + " " + std::to_string(k);
      const Table b = bounded.view(v, o);
      if (k == 0) {
        EXPECT_FALSE(b.rows.empty()) << what;
      }
      expect_same(b, loaded.view(v, o), what);
    }
  }
  for (const auto& v : view_names()) EXPECT_TRUE(bounded_view(v)) << v;
  EXPECT_TRUE(bounded.trace_capture().trace.dispatches.empty());
  EXPECT_EQ(bounded.whole_joins_loaded(), 0);
}

// Spilled to a temporary file (about 1 KiB held per column), a bounded context still gives the
// tables of the loaded capture.
TEST_F(StoredJoin, BoundedContextSpilledGivesTheLoadedTables) {
  store::CaptureDb db(m_copy.path(), store::OpenMode::read_only);
  const auto bounded =
      QueryContext::bounded(db, find_run_trace(db, {}), FamilyRules::load_default(), 1024);
  QueryContext loaded(db, std::nullopt, FamilyRules::load_default());
  ASSERT_TRUE(bounded->holds_no_dispatches());
  EXPECT_TRUE(bounded->capture().trace.dispatches.empty());
  for (const char* v :
       {"explain", "phases", "variants", "families", "structure", "windows", "roofline", "samples"})
    expect_same(bounded->view(v, ViewOptions{}), loaded.view(v, ViewOptions{}), v);
}

// Without a stored join the bounded option is not taken: the session loads the capture, computes
// the join and says so, as without it.
TEST_F(SimCapture, BoundedOptionWithoutAStoredJoinLoadsTheCapture) {
  SessionOptions bounded_options;
  bounded_options.bounded = true;
  QuerySession q = QuerySession::open(s_db->path(), bounded_options);
  EXPECT_FALSE(q.holds_no_dispatches());
  EXPECT_FALSE(q.joins_computed().empty());
  EXPECT_FALSE(q.trace_capture().trace.dispatches.empty());
}

// The truth of `counters`, read by hand from the raw rows: per counter and pass, the values of the
// counter-pass dispatches the stored join matched, their count and sum.
TEST_F(StoredJoin, CountersCountEveryJoinedValueOnce) {
  std::map<std::pair<std::string, int64_t>, std::pair<int64_t, double>> truth;
  {
    SQLite::Database raw(m_copy.path().string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(raw,
                        "SELECT s.value, p.ordinal, c.value FROM analysis_join j, counter_values "
                        "c, strings s, passes p WHERE c.pass_id = j.counter_pass_id AND c.pid = "
                        "j.counter_pid AND c.dispatch_id = j.counter_dispatch_id AND s.id = "
                        "c.counter_id AND p.id = c.pass_id");
    while (q.executeStep()) {
      auto& t = truth[{q.getColumn(0).getString(), q.getColumn(1).getInt64()}];
      ++t.first;
      t.second += q.getColumn(2).getDouble();
    }
  }
  ASSERT_EQ(truth.size(), 3u);  // FETCH_SIZE, SQ_INSTS_VALU_MFMA_MOPS_BF16 (pass 1), WRITE_SIZE
  std::vector<std::string> notes;
  const auto fast =
      streamed_view(m_copy.path(), SessionOptions{}, "counters", ViewOptions{}, notes);
  ASSERT_TRUE(fast);
  QuerySession q = QuerySession::open(m_copy.path(), SessionOptions{});
  ViewOptions all_phases;
  for (const Table& t : {*fast, q.view("counters", all_phases)}) {
    ASSERT_EQ(t.rows.size(), truth.size());
    for (const auto& r : t.rows) {
      const auto it = truth.find({std::get<std::string>(r[0]), std::get<int64_t>(r[1])});
      ASSERT_NE(it, truth.end());
      EXPECT_EQ(std::get<int64_t>(r[2]), it->second.first);
      EXPECT_DOUBLE_EQ(std::get<double>(r[6]), it->second.second);
    }
  }
  EXPECT_EQ(q.whole_joins_loaded(), 0);
}

}  // namespace
}  // namespace kprof::analysis
