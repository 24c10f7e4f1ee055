#include "core/analysis/views/table.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/analysis/views/brief.hpp"
#include "core/analysis/views/compact_views.hpp"
#include "core/base/error.hpp"

namespace kprof::analysis {
namespace {

Table sample(bool simulated) {
  Table t;
  t.title = "demo";
  t.run_id = 3;
  t.simulated = simulated;
  t.columns = {"kernel", "launches", "share"};
  t.rows = {{std::string("a,\"b\""), int64_t{6144}, 25.72}, {std::string("c"), int64_t{1}, Cell()}};
  t.notes = {"note"};
  return t;
}

// The terminal's default roofline: the rows with counters and the figures that matter, the % of
// the peak that bounds each row, and a note naming what --all adds; other views stay whole.
TEST(CompactViews, RooflineKeepsRowsWithCountersAndTheFiguresThatMatter) {
  Table t;
  t.columns = {"family",           "phase",         "launches",       "with_counters",
               "flops_per_launch", "tflops",        "pct_peak_flops", "tbps",
               "pct_peak_hbm",     "flop_per_byte", "bound",          "suspect"};
  const auto row = [](std::string f, int64_t with, std::string bound) {
    return std::vector<Cell>{
        f, std::string("decode"), int64_t{10}, with, 1e6, 3.0, 0.3, 3.8, 72.0, 1.0, bound, Cell()};
  };
  t.rows = {row("a", 10, "memory"), row("b", 0, ""), row("c", 5, "compute")};
  Table top = t;
  EXPECT_FALSE(compact_counter_view("top", top));
  EXPECT_EQ(top.columns.size(), t.columns.size());
  ASSERT_TRUE(compact_counter_view("roofline", t));
  EXPECT_EQ(t.columns, (std::vector<std::string>{"family", "phase", "launches", "tflops", "tbps",
                                                 "flop_per_byte", "bound", "pct_peak"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "a");
  EXPECT_EQ(std::get<double>(t.rows[0][7]), 72.0);  // memory-bound: % of the HBM peak
  EXPECT_EQ(std::get<double>(t.rows[1][7]), 0.3);   // compute-bound: % of the FLOP peak
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes[0].find("1 rows without counters"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[0].find("--all shows every row and column"), std::string::npos) << t.notes[0];
}

TEST(Table, EveryFormatSaysWhetherTheRunWasSimulated) {
  std::ostringstream tab, csv, json, jsonl;
  print(tab, sample(true), Format::table);
  print(csv, sample(true), Format::csv);
  print(json, sample(false), Format::json);
  print(jsonl, sample(true), Format::jsonl);
  EXPECT_NE(tab.str().find("# demo — run 3, SIMULATED"), std::string::npos);
  EXPECT_EQ(csv.str(),
            "run,simulated,kernel,launches,share\n3,1,\"a,\"\"b\"\"\",6144,25.72\n3,1,c,1,\n");
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["simulated"], false);
  EXPECT_EQ(j["rows"][0],
            nlohmann::json::parse(R"({"kernel": "a,\"b\"", "launches": 6144, "share": 25.72})"));
  EXPECT_TRUE(j["rows"][1]["share"].is_null());
  EXPECT_EQ(jsonl.str(),
            "{\"run\":3,\"simulated\":true,\"kernel\":\"a,\\\"b\\\"\",\"launches\":6144,"
            "\"share\":25.72}\n"
            "{\"run\":3,\"simulated\":true,\"kernel\":\"c\",\"launches\":1,\"share\":null}\n");
}

TEST(Table, MachineFormatsKeepEveryDigitAndTheFullName) {
  Table t = sample(false);
  t.rows[0][2] = 0.1 + 0.2;      // 0.30000000000000004
  t.rows[1][2] = 38521234.5678;  // a table shows 38.52M
  t.brief["kernel"] = {"short-a", "short-c"};
  std::ostringstream csv, tab;
  print(csv, t, Format::csv);
  print(tab, t, Format::table);
  EXPECT_NE(csv.str().find(",0.30000000000000004\n"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",38521234.5678\n"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find("\"a,\"\"b\"\"\""), std::string::npos);
  EXPECT_NE(tab.str().find("short-a"), std::string::npos);
  EXPECT_NE(tab.str().find("38.52M"), std::string::npos) << tab.str();
}

TEST(Table, SqlResultsHaveExactlyTheQueryColumnsAndProvenanceOnStderr) {
  PrintOptions o;
  o.exact_columns = true;
  std::ostringstream err;
  o.err = &err;
  std::ostringstream csv, jsonl;
  print(csv, sample(true), Format::csv, o);
  print(jsonl, sample(true), Format::jsonl, o);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')), "kernel,launches,share");
  EXPECT_EQ(jsonl.str().substr(0, jsonl.str().find(',')), "{\"kernel\":\"a");
  EXPECT_NE(err.str().find("demo: run 3, SIMULATED"), std::string::npos) << err.str();
}

TEST(Table, LimitedRowsAreNeverSilent) {
  Table t = sample(false);
  t.rows_omitted = 7;
  std::ostringstream err, csv, jsonl, json, tab;
  PrintOptions o;
  o.err = &err;
  print(csv, t, Format::csv, o);
  print(jsonl, t, Format::jsonl, o);
  print(json, t, Format::json, o);
  print(tab, t, Format::table, o);
  EXPECT_EQ(err.str(),
            "kprof: (7 more rows not shown; raise or drop --limit)\nkprof: note\n"
            "kprof: (7 more rows not shown; raise or drop --limit)\nkprof: note\n");
  EXPECT_EQ(nlohmann::json::parse(json.str())["rows_omitted"], 7);
  EXPECT_NE(tab.str().find("(7 more rows not shown"), std::string::npos);
}

// What a view could not establish is in its notes: CSV and JSONL keep them on stderr (their
// stdout is rows only), JSON in `notes`, a terminal table under the rows.
TEST(Table, NotesOfMachineFormatsGoToStderr) {
  Table t = sample(false);
  t.notes = {"prefill: not established: nothing precedes the first repeated step"};
  for (Format f : {Format::csv, Format::jsonl}) {
    std::ostringstream out, err;
    PrintOptions o;
    o.err = &err;
    print(out, t, f, o);
    EXPECT_EQ(err.str(),
              "kprof: prefill: not established: nothing precedes the first repeated step\n");
    EXPECT_EQ(out.str().find("not established"), std::string::npos);
  }
}

TEST(Table, UnknownFormatIsAnInputError) {
  try {
    parse_format("jsn");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(e.diagnostics()[0].hint.find("json"), std::string::npos);
  }
  EXPECT_EQ(parse_format("jsonl"), Format::jsonl);
}

TEST(BriefNames, FamilyAloneOrWhatTellsTheKernelsApart) {
  const std::vector<std::string> full = {
      "fused_moe_kernel",
      "void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, __hip_bfloat16 "
      "const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)",
      "void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 4>(int, int, __hip_bfloat16 "
      "const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)",
      "void wvSplitK_hf_big_<__hip_bfloat16, 64, 2, 16, 8, 2, 4>(int, int, __hip_bfloat16 "
      "const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)",
      "void at::native::(anonymous namespace)::elementwise_kernel<128, 4>(int, float*)",
      "void at::native::(anonymous namespace)::elementwise_kernel<128, 4>(int, double*)"};
  const std::vector<std::string> family = {"fused_moe_kernel",   "wvSplitK",
                                           "wvSplitK",           "wvSplitK",
                                           "elementwise_kernel", "elementwise_kernel"};
  const auto b = brief_kernel_names(full, family);
  EXPECT_EQ(b[0], "fused_moe_kernel");
  EXPECT_EQ(b[1], "wvSplitK_hf_sml_<1>");
  EXPECT_EQ(b[2], "wvSplitK_hf_sml_<4>");
  EXPECT_EQ(b[3], "wvSplitK_hf_big_<4>");
  EXPECT_EQ(b[4], "elementwise_kernel #1");
  EXPECT_EQ(b[5], "elementwise_kernel #2");
  const auto parts = split_kernel_name(full[4]);
  EXPECT_EQ(parts.identifier, "elementwise_kernel");
  EXPECT_EQ(parts.template_args, (std::vector<std::string>{"128", "4"}));
}

}  // namespace
}  // namespace kprof::analysis
