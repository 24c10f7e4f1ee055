// Integration: the rocprofv3 test double (KPROF_BIN_DIR/rocprofv3-sim, default model
// qwen3-30b-a3b-mi300x) runs as a real process for a trace pass and two counter passes; the files
// go through the ingest library into a real capture database; the views that are queries (top,
// families, counters) agree with the trace model's.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/structure/explain.hpp"
#include "core/analysis/views/session.hpp"
#include "core/analysis/views/views.hpp"
#include "tests/analysis/sim_capture_fixture.hpp"

namespace kprof::analysis {
namespace {

// `kprof query DB top` streams the trace pass's rows instead of loading the capture (memory
// independent of the trace's length); it is the table the trace model gives, row for row, with the
// same short names, notes and limit. A filter needs the model, so it is not streamed.
TEST_F(SimCapture, StreamedTopAndFamiliesAreTheModels) {
  SessionOptions so;
  ViewOptions o;
  std::vector<std::string> notes;
  const auto streamed = streamed_view(s_db->path(), so, "top", o, notes);
  ASSERT_TRUE(streamed);
  QuerySession session = QuerySession::open(s_db->path(), so);
  const Table model = session.view("top", o);
  EXPECT_GT(model.rows.size(), 10u);
  EXPECT_EQ(streamed->columns, model.columns);
  EXPECT_EQ(streamed->rows, model.rows);
  EXPECT_EQ(streamed->brief, model.brief);
  EXPECT_EQ(streamed->notes, model.notes);
  EXPECT_EQ(streamed->title, model.title);
  EXPECT_EQ(streamed->run_id, model.run_id);
  EXPECT_TRUE(streamed->simulated);
  // The session's notes but the one on a join it computed (top needs none).
  std::vector<std::string> session_notes = session.notes();
  std::erase(session_notes, std::string(k_join_not_stored));
  EXPECT_EQ(notes, session_notes);

  o.limit = 5;
  const auto five = streamed_view(s_db->path(), so, "top", o, notes);
  const Table model_five = session.view("top", o);
  ASSERT_EQ(five->rows.size(), 5u);
  EXPECT_EQ(five->rows, model_five.rows);
  EXPECT_EQ(five->rows_omitted, model_five.rows_omitted);

  o.limit = 0;
  const auto families = streamed_view(s_db->path(), so, "families", o, notes);
  ASSERT_TRUE(families);
  const Table model_families = session.view("families", o);
  EXPECT_GT(model_families.rows.size(), 5u);
  EXPECT_EQ(families->columns, model_families.columns);
  EXPECT_EQ(families->rows, model_families.rows);
  EXPECT_EQ(families->title, model_families.title);
  EXPECT_EQ(families->notes, model_families.notes);

  o.phase = Phase::decode;
  EXPECT_FALSE(streamed_view(s_db->path(), so, "top", o, notes));
  EXPECT_FALSE(streamed_view(s_db->path(), so, "families", o, notes));
  o.phase.reset();
  EXPECT_FALSE(streamed_view(s_db->path(), so, "explain", o, notes));
}

// `counters` is aggregated by SQLite from the stored join once one is current, as the model's
// view computes it; before the first join (or after a re-ingest) only the model can say.
TEST_F(SimCapture, StreamedCountersAreTheModelsOnceTheJoinIsStored) {
  const test::TempDb copy("streamed-counters");
  fs::copy_file(s_db->path(), copy.path(), fs::copy_options::overwrite_existing);
  {
    // Whatever earlier tests stored, the copy starts with no current join.
    SQLite::Database w(copy.path().string(), SQLite::OPEN_READWRITE);
    w.exec("DELETE FROM analysis_join_proofs");
  }
  SessionOptions so;
  ViewOptions o;
  std::vector<std::string> notes;
  EXPECT_FALSE(streamed_view(copy.path(), so, "counters", o, notes));  // no join stored yet
  QuerySession session = QuerySession::open(copy.path(), so);          // joins in memory
  ASSERT_EQ(session.joins_computed().size(), 2u);
  const Table model = session.view("counters", o);
  EXPECT_FALSE(streamed_view(copy.path(), so, "counters", o, notes));  // a query stored nothing
  {
    store::CaptureDb rw(copy.path());
    store_results(rw, session.capture().run.id);  // what `kprof ingest` does after loading
  }
  notes.clear();
  const auto streamed = streamed_view(copy.path(), so, "counters", o, notes);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(model.rows.size(), 3u);  // FETCH_SIZE, SQ_INSTS_VALU_MFMA_MOPS_BF16, WRITE_SIZE
  EXPECT_EQ(streamed->columns, model.columns);
  EXPECT_EQ(streamed->rows, model.rows);
  EXPECT_EQ(streamed->notes, model.notes);
  EXPECT_EQ(streamed->title, model.title);
  EXPECT_EQ(streamed->run_id, model.run_id);
  EXPECT_EQ(streamed->simulated, model.simulated);

  o.limit = 1;
  const auto one = streamed_view(copy.path(), so, "counters", o, notes);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->rows, session.view("counters", o).rows);
  o.limit = 0;
  o.phase = Phase::decode;
  EXPECT_FALSE(streamed_view(copy.path(), so, "counters", o, notes));
}

}  // namespace
}  // namespace kprof::analysis
