// Captures without a kernel trace get the views their files allow: `top` from rocprofv3's kernel
// statistics of a stats-only capture, `counters` from the rows of a counter-only one. Real
// captures of tests/data/captures (tests/data/SOURCES.md), loaded with `kprof ingest`'s use case;
// the truths were recounted from the raw rows with the python one-liners quoted, run in the
// capture's folder, never taken from kprof's output.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <variant>

#include "core/analysis/views/query.hpp"
#include "core/exec/usecases/ingest_capture.hpp"
#include "tests/analysis/capture_fixture.hpp"

namespace kprof::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path k_captures = fs::path(KPROF_TEST_DATA) / "captures";

Table query(const fs::path& db, const std::string& view) {
  QueryRequest r;
  r.db = db;
  r.view = view;
  r.all = true;
  return run_query(r).table;
}

void ingest(const fs::path& db, const fs::path& input) {
  exec::IngestRequest req;
  req.db = db;
  req.inputs = {input.string()};
  exec::ingest_capture(req);
}

int64_t int_of(const Cell& c) { return std::get<int64_t>(c); }
double real_of(const Cell& c) {
  return std::holds_alternative<int64_t>(c) ? static_cast<double>(std::get<int64_t>(c))
                                            : std::get<double>(c);
}
std::string text_of(const Cell& c) { return std::get<std::string>(c); }

bool any_note_has(const Table& t, const std::string& what) {
  for (const auto& n : t.notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

// tinygrad-arkey rocprof_decode_d0: `rocprofv3 --stats` of llama-bench decode,
// trace_kernel_stats.csv alone (no trace):
//   python3 -c "import csv;r=list(csv.DictReader(open('trace_kernel_stats.csv')));
//     T=sum(int(x['TotalDurationNs']) for x in r);print(len(r),sum(int(x['Calls']) for x in r),T);
//     r.sort(key=lambda x:-int(x['TotalDurationNs']));x=r[0];
//     print(x['Name'][:49],x['Calls'],x['TotalDurationNs'],100*int(x['TotalDurationNs'])/T)"
//   -> 16 50066 557391077
//      void mul_mat_vec_q<(ggml_type)12, 1, true, false> 5785 307199974 55.11390237056127
// 16 kernel names, each once in the file; the largest is the q4_K mat-vec with the fused
// add, 5785 calls, 307199974 ns in all (53102.85 ns each), 55.11 % of the summed duration.
TEST(UntracedViews, StatsOnlyCaptureHasATopFromItsKernelStatistics) {
  test::TempDb tmp("stats_top");
  ingest(tmp.path(), k_captures /
                         "tinygrad-arkey/llama-kernel-residual-primitive-audit-20260619/"
                         "rocprof_decode_d0");
  const Table t = query(tmp.path(), "top");
  EXPECT_NE(t.title.find("from rocprofv3's kernel statistics, no trace"), std::string::npos)
      << t.title;
  ASSERT_EQ(t.columns.size(), 6u);
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(text_of(t.rows[0][0]).rfind("void mul_mat_vec_q<(ggml_type)12, 1, true, false>", 0), 0u)
      << text_of(t.rows[0][0]);
  EXPECT_EQ(int_of(t.rows[0][2]), 5785);
  EXPECT_EQ(int_of(t.rows[0][3]), 307199974);
  EXPECT_NEAR(real_of(t.rows[0][4]), 307199974.0 / 5785, 1e-6);
  EXPECT_NEAR(real_of(t.rows[0][5]), 55.11390237056127, 1e-9);
  int64_t calls = 0, total = 0;
  for (const auto& row : t.rows) {
    calls += int_of(row[2]);
    total += int_of(row[3]);
  }
  EXPECT_EQ(calls, 50066);
  EXPECT_EQ(total, 557391077);
  EXPECT_TRUE(any_note_has(t, "no kernel trace")) << t.notes.size();
}

// uLLM-project sq8_0-attention-optimization-u-v0.1/pmc/target-derived: counters only (pid
// 1330207, a kernel filter on ullm_cached_prefix_attn_f32_flash2_kernel), no trace:
//   python3 -c "import
//   csv,collections;r=list(csv.DictReader(open('1330207_counter_collection.csv')));
//     by=collections.defaultdict(list);[by[x['Counter_Name']].append(float(x['Counter_Value']))
//     for x in r];print(len(r),len({x['Dispatch_Id'] for x in r}));
//     [print(k,len(v),min(v),max(v),sum(v)) for k,v in sorted(by.items())]"
//   -> 480 160
//      FETCH_SIZE 160 0.0 0.0 0.0
//      VALUInsts 160 0.0 0.0 0.0
//      Wavefronts 160 40960.0 42736.0 6555376.0
// 160 dispatches with 3 counters each; FETCH_SIZE and VALUInsts read 0 on every one.
TEST(UntracedViews, CounterOnlyCaptureHasCountersFromItsOwnRows) {
  test::TempDb tmp("counters_only");
  ingest(tmp.path(), k_captures /
                         "uLLM-project/2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc/"
                         "target-derived");
  const Table t = query(tmp.path(), "counters");
  EXPECT_NE(t.title.find("no trace"), std::string::npos) << t.title;
  ASSERT_EQ(t.rows.size(), 3u);
  const char* names[] = {"FETCH_SIZE", "VALUInsts", "Wavefronts"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(text_of(t.rows[i][0]), names[i]);
    EXPECT_EQ(int_of(t.rows[i][2]), 160) << names[i];
  }
  EXPECT_DOUBLE_EQ(real_of(t.rows[2][4]), 40960.0);
  EXPECT_DOUBLE_EQ(real_of(t.rows[2][5]), 42736.0);
  EXPECT_DOUBLE_EQ(real_of(t.rows[2][6]), 6555376.0);
  EXPECT_DOUBLE_EQ(real_of(t.rows[2][3]), 6555376.0 / 160);
  EXPECT_DOUBLE_EQ(real_of(t.rows[0][6]), 0.0);
  EXPECT_TRUE(any_note_has(t, "FETCH_SIZE (pass 1) is 0 on all 160 dispatches"));
  EXPECT_TRUE(any_note_has(t, "not joined"));
}

}  // namespace
}  // namespace kprof::analysis
