// The query use case (core/analysis/views/query.hpp) on a small hand-made capture loaded through
// the real ingest library: a streamed view, a view through a session that joins the counter pass
// first and says so, the view-name errors, and one read-only SELECT.
#include "core/analysis/views/query.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/views/session.hpp"
#include "core/base/error.hpp"
#include "core/store/analysis_results.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Three launches: gemm twice, copy once; a counter pass over the same three dispatches.
struct SmallCapture {
  test::TempDb tmp{"query"};
  SmallCapture() {
    const auto dir = tmp.dir();
    write(dir / "100_kernel_trace.csv",
          "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
          "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
          "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
          "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
          "\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
          "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,1,7,\"gemm_kernel\",1,1000000,1005000,0,0,"
          "16,0,32,256,1,1,65536,1,1\n"
          "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,2,8,\"copy_kernel\",2,1006000,1007000,0,0,"
          "16,0,32,256,1,1,65536,1,1\n"
          "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,3,7,\"gemm_kernel\",3,1008000,1013000,0,0,"
          "16,0,32,256,1,1,65536,1,1\n");
    std::string counters =
        "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
        "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
        "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
        "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    const char* names[] = {"gemm_kernel", "copy_kernel", "gemm_kernel"};
    const char* ids[] = {"7", "8", "7"};
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i + 1);
      counters += n + "," + n + ",\"Agent 1\",1,200,200,65536," + ids[i] + ",\"" + names[i] +
                  "\",256,0,0,16,0,32,\"SQ_WAVES\"," + std::to_string(100 * (i + 1)) + ",0,0\n";
    }
    write(dir / "200_counter_collection.csv", counters);
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(db, run, 0, store::PassKind::trace, {(dir / "100_kernel_trace.csv").string()});
    test::load_pass(db, run, 1, store::PassKind::counters,
                    {(dir / "200_counter_collection.csv").string()});
  }
  QueryRequest request(const std::string& view) const {
    QueryRequest r;
    r.db = tmp.path();
    r.view = view;
    return r;
  }
};

size_t column(const Table& t, const std::string& name) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(QueryUseCase, TopNeedsNoSessionAndListsKernelsByTime) {
  SmallCapture c;
  const QueryResult r = run_query(c.request("top"));
  EXPECT_TRUE(r.joins.empty());  // streamed: nothing joined
  ASSERT_EQ(r.table.rows.size(), 2u);
  EXPECT_NE(cell_text(r.table.rows[0][column(r.table, "kernel")]).find("gemm"), std::string::npos);
}

TEST(QueryUseCase, ACounterViewJoinsTheStalePassFirstAndSaysSo) {
  SmallCapture c;
  const QueryResult first = run_query(c.request("passes"));
  ASSERT_EQ(first.joins.size(), 1u);
  EXPECT_NE(first.joins[0].find("joined pass 1 to the trace"), std::string::npos) << first.joins[0];
  EXPECT_EQ(first.table.rows.size(), 2u);
  EXPECT_NE(std::find(first.notes.begin(), first.notes.end(), k_join_not_stored),
            first.notes.end());
}

// A query never writes the database: the join it computes is its own, so the next query computes
// it again, and no analysis row appears in the file. A command that writes (store_results, as
// `kprof ingest` calls it) stores it; then a query reads it and joins nothing. (Before the store
// owned the writes, the first query stored the join and the second found it: `again.joins` was
// empty and analysis_join held the 3 matched dispatches.)
TEST(QueryUseCase, AQueryNeverWritesTheDatabase) {
  SmallCapture c;
  auto stored_joins = [&] {
    store::CaptureDb db(c.tmp.path(), store::OpenMode::read_only);
    return store::read_join(db, 2).has_value() || store::read_join(db, 1).has_value();
  };
  run_query(c.request("passes"));
  EXPECT_FALSE(stored_joins());
  const QueryResult again = run_query(c.request("counters"));
  EXPECT_EQ(again.joins.size(), 1u);
  EXPECT_FALSE(stored_joins());
  {
    store::CaptureDb db(c.tmp.path());
    EXPECT_EQ(store_results(db, 1),
              "run 1: stored for queries: the counter join of 1 pass and the run's outline");
  }
  EXPECT_TRUE(stored_joins());
  const QueryResult third = run_query(c.request("passes"));
  EXPECT_TRUE(third.joins.empty());
  EXPECT_EQ(std::find(third.notes.begin(), third.notes.end(), k_join_not_stored),
            third.notes.end());
}

TEST(QueryUseCase, AMissingOrUnknownViewIsAnInputErrorNamingTheViews) {
  SmallCapture c;
  try {
    run_query(c.request("tpo"));
    FAIL() << "queried";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("unknown view 'tpo'"), std::string::npos);
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_NE(e.diagnostics()[0].hint.find("top"), std::string::npos);
  }
  EXPECT_THROW(run_query(c.request("")), Error);
}

TEST(QueryUseCase, ThePhaseIsReadOnceAndAnUnknownWordNamesTheAllowedOnes) {
  EXPECT_EQ(parse_phase_option(""), std::nullopt);
  for (Phase p : k_all_phases) EXPECT_EQ(parse_phase_option(to_string(p)), p);
  try {
    parse_phase_option("tail");
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("unknown phase 'tail'"), std::string::npos);
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].hint, "choose " + phase_choices());
  }
}

TEST(QueryUseCase, TheFlagsAreCheckedIntoOneRequest) {
  QueryArgs a;
  a.db = "k.db";
  a.view = "explain";
  a.family_arg = "gemm";
  a.phase = "decode";
  a.limit = 5;
  a.expect_layers = 48;
  const QueryRequest r = query_request(a);
  EXPECT_EQ(r.options.family, "gemm");
  EXPECT_EQ(r.options.phase, Phase::decode);
  EXPECT_EQ(r.options.limit, 5u);
  EXPECT_EQ(r.session.layers, 48);
  EXPECT_FALSE(r.session.output_tokens);
  EXPECT_FALSE(r.sql);
  a.family = "copy";  // two different families
  EXPECT_THROW(query_request(a), Error);
  a.family = "gemm";
  EXPECT_NO_THROW(query_request(a));
  a.sql = "SELECT 1";  // a view and --sql
  EXPECT_THROW(query_request(a), Error);
  a.view.clear();
  a.timeout = "90s";
  EXPECT_EQ(query_request(a).timeout, std::chrono::seconds(90));
  a.timeout = "soon";
  EXPECT_THROW(query_request(a), Error);
  a.db.clear();
  EXPECT_THROW(query_request(QueryArgs{}), Error);
}

TEST(QueryUseCase, ASelectRunsOnTheLastRun) {
  SmallCapture c;
  QueryRequest r = c.request("");
  r.sql = "SELECT count(*) AS n FROM dispatches";
  const QueryResult out = run_query(r);
  ASSERT_EQ(out.table.rows.size(), 1u);
  EXPECT_EQ(cell_text(out.table.rows[0][0]), "6");  // 3 in the trace, 3 in the counter pass
  EXPECT_FALSE(out.table.simulated);
}

}  // namespace
}  // namespace kprof::analysis
