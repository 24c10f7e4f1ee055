#include "core/base/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/base/text.hpp"

namespace kprof {
namespace {

std::vector<std::string> lines_of(const Table& t, TextLayout l) {
  std::ostringstream os;
  render_text(os, t, l);
  auto lines = split(os.str(), '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

size_t widest(const std::vector<std::string>& lines) {
  size_t w = 0;
  for (const auto& l : lines) w = std::max(w, display_width(l));
  return w;
}

Table roofline_like() {
  Table t;
  t.columns = {"family",
               "phase",
               "launches",
               "flops_per_launch",
               "bytes_per_launch",
               "flop_per_byte",
               "tflops",
               "peak_tflops",
               "pct_peak_flops",
               "tbps",
               "pct_peak_hbm",
               "ridge_flop_per_byte",
               "bound",
               "passes"};
  t.rows.push_back({std::string("vllm::moe::moe_align_block_size_kernel"), std::string("decode"),
                    int64_t{6048}, 3.8521e7, 3.7786e7, 1.019, 3.727, 1307.4, 0.285, 3.658, 68.7,
                    245.5, std::string("memory (mixed passes)"), std::string("1+2+3 (mixed)")});
  t.rows.push_back({std::string("fused_moe_kernel"), std::string("prefill"), int64_t{96}, Cell(),
                    Cell(), Cell(), Cell(), Cell(), Cell(), Cell(), Cell(), Cell(), Cell(),
                    std::string("")});
  return t;
}

TEST(TableText, NumbersRightAlignedOnePrecisionPerColumnMissingAsDash) {
  Table t;
  t.columns = {"name", "n", "share"};
  t.rows = {{std::string("a"), int64_t{6144}, 25.72}, {std::string("bb"), Cell(), 0.5}};
  EXPECT_EQ(lines_of(t, {}), (std::vector<std::string>{"name     n   share", "a     6144  25.720",
                                                       "bb       -   0.500"}));
}

TEST(TableText, RightAlignedTextColumnLinesUpItsUnits) {
  Table t;
  t.columns = {"pass", "duration", "reason"};
  t.rows = {{int64_t{0}, std::string("2.1s"), std::string("a")},
            {int64_t{1}, std::string("1m05s"), Cell()},
            {int64_t{2}, Cell(), std::string("b")}};
  t.right_aligned = {"duration"};
  EXPECT_EQ(lines_of(t, {}),
            (std::vector<std::string>{"pass  duration  reason", "   0      2.1s  a",
                                      "   1     1m05s  -", "   2         -  b"}));
}

TEST(TableText, WrappedTextKeepsItsOwnIndent) {
  EXPECT_EQ(wrap_text("  steps: one two three four", 14, 2),
            "  steps: one\n    two three\n    four");
  EXPECT_EQ(wrap_text("steps: one two", 0, 2), "steps: one two");
}

TEST(TableText, LargeValuesGetSuffixes) {
  Table t;
  t.columns = {"bytes"};
  t.rows = {{3.8521e7}, {1.3074e15}, {512.25}, {0.0}};
  EXPECT_EQ(lines_of(t, {}),
            (std::vector<std::string>{" bytes", "38.52M", "1.307P", " 512.2", "     0"}));
}

TEST(TableText, PipedOutputHasNoWidthLimit) {
  const auto lines = lines_of(roofline_like(), {});
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_GT(widest(lines), 120u);
}

TEST(TableText, NoLineExceedsTheTerminalAndNothingIsLost) {
  for (size_t width : {120u, 100u, 80u, 60u, 40u}) {
    const auto lines = lines_of(roofline_like(), {width, false});
    EXPECT_LE(widest(lines), width) << width;
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    // every value is still there (a long name may be split across lines, so look for its parts)
    for (const char* v : {"38.52M", "245.5", "memory", "1+2+3", "decode", "prefill", "fused_moe"})
      EXPECT_NE(all.find(v), std::string::npos) << width << ": " << v << "\n" << all;
  }
}

TEST(TableText, WideTablesFoldIntoBlocksThatRepeatTheRowName) {
  const auto lines = lines_of(roofline_like(), {120, false});
  size_t blocks = 1;
  for (const auto& l : lines) blocks += l.empty();
  EXPECT_GE(blocks, 2u);
  size_t family_headers = 0;
  for (const auto& l : lines) family_headers += l.rfind("family", 0) == 0;
  EXPECT_EQ(family_headers, blocks);
}

TEST(TableText, LongTextWrapsAtSpacesInItsColumn) {
  Table t;
  t.columns = {"family", "launches", "explanation"};
  t.rows = {{std::string("fused_moe_kernel"), int64_t{6144},
             std::string("fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 "
                         "variants) + 3024 + 3024 (decode, 63 steps × 48 layers × 2 variants)")}};
  const auto lines = lines_of(t, {80, false});
  EXPECT_LE(widest(lines), 80u);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[2].find_first_not_of(' '), lines[1].find("fused_moe_kernel:"));
}

TEST(TableText, BriefTextUnlessWide) {
  Table t;
  t.columns = {"kernel", "n"};
  t.rows = {{std::string("void f<int, 4>(float*)"), int64_t{1}}};
  t.brief["kernel"] = {"f<4>"};
  EXPECT_EQ(lines_of(t, {})[1], "f<4>    1");
  EXPECT_EQ(lines_of(t, {40, true})[1], "void f<int, 4>(float*)  1");
}

TEST(TableText, RecordsWhenColumnsCannotFit) {
  Table t;
  t.columns = {"averylongheadernamewithoutbreaks", "anotherheaderthatislong"};
  t.rows = {{int64_t{123456789012345}, int64_t{1}}};
  const auto lines = lines_of(t, {30, false});
  EXPECT_LE(widest(lines), 30u);
  EXPECT_EQ(lines[0], "[1]");
}

TEST(WrapText, WrapsAtSpacesAndSplitsLongWords) {
  EXPECT_EQ(wrap_text("aaa bbb ccc", 7), "aaa bbb\nccc");
  EXPECT_EQ(wrap_text("aaa bbb ccc", 0), "aaa bbb ccc");
}

}  // namespace
}  // namespace kprof
