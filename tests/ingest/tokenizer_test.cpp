#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/ingest/csv_tokenizer.hpp"

namespace kprof::ingest {
namespace {

struct Collect : CsvRowHandler {
  std::vector<std::vector<std::string>> rows;
  std::vector<int64_t> lines;
  std::vector<std::string> errors;
  std::vector<bool> terminated;
  void on_row(const CsvRow& row) override {
    std::vector<std::string> f;
    for (size_t i = 0; i < row.size(); ++i) f.emplace_back(row[i].text);
    rows.push_back(f);
    lines.push_back(row.line);
    errors.emplace_back(row.error);
    terminated.push_back(row.terminated);
  }
};

Collect tokenize(const std::string& text, size_t chunk = 0) {
  Collect c;
  CsvTokenizer tok("t.csv", c);
  if (chunk == 0) {
    tok.feed(text);
  } else {
    for (size_t i = 0; i < text.size(); i += chunk)
      tok.feed(std::string_view(text).substr(i, chunk));
  }
  tok.finish();
  return c;
}

using Fields = std::vector<std::string>;

TEST(CsvTokenizer, QuotedAndBareFields) {
  auto c = tokenize("\"Kind\",\"Agent_Id\",\"N\"\n\"KERNEL_DISPATCH\",\"Agent 2\",17\n");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0], (Fields{"Kind", "Agent_Id", "N"}));
  EXPECT_EQ(c.rows[1], (Fields{"KERNEL_DISPATCH", "Agent 2", "17"}));
  EXPECT_EQ(c.lines[1], 2);
}

TEST(CsvTokenizer, KernelNamesWithCommasQuotesAndBrackets) {
  // rocprofv3 does not escape embedded quotes: only `",` or `"` at the end of the line closes.
  auto c = tokenize(
      "1,\"void f<float, 4>(float*, int const&)\",2\n"
      "1,\"op\"\"x \"q\" <a&b>\",3\n"
      "1,\"ends with quote\"\"\n");
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0], (Fields{"1", "void f<float, 4>(float*, int const&)", "2"}));
  EXPECT_EQ(c.rows[1], (Fields{"1", "op\"\"x \"q\" <a&b>", "3"}));
  EXPECT_EQ(c.rows[2], (Fields{"1", "ends with quote\""}));
}

TEST(CsvTokenizer, CrlfEmptyFieldsAndMissingFinalNewline) {
  auto c = tokenize("a,b,c\r\n1,,3\r\n,,\r\n4,5,6");
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[1], (Fields{"1", "", "3"}));
  EXPECT_EQ(c.rows[2], (Fields{"", "", ""}));
  EXPECT_EQ(c.rows[3], (Fields{"4", "5", "6"}));
  EXPECT_TRUE(c.terminated[2]);
  EXPECT_FALSE(c.terminated[3]);
}

TEST(CsvTokenizer, BlankLinesAreSkippedButCounted) {
  auto c = tokenize("a\n\n\nb\n");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.lines[1], 4);
}

// A quoted field open at the end of the file is cut off, whatever line break came last: an error
// row, not terminated (the reader's "the file ends in the middle of a row").
TEST(CsvTokenizer, UnterminatedQuoteIsARowErrorWithColumn) {
  Collect c;
  CsvTokenizer tok("t.csv", c);
  tok.feed("1,2\n3,\"abc\n5,6\n");
  tok.finish();
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.errors[1], "unterminated quoted field");
  EXPECT_EQ(c.lines[1], 2);
  EXPECT_FALSE(c.terminated[1]);
}

// RFC 4180, section 2, rules 6 and 7 (https://www.rfc-editor.org/rfc/rfc4180): a line break
// inside quotes is part of the field, and "" inside quotes is one ".
TEST(CsvTokenizer, Rfc4180QuotedLineBreaksAndDoubledQuotes) {
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{3}, size_t{7}}) {
    auto c = tokenize(
        "\"h1\",\"h2\",\"h3\"\r\n"
        "1,\"say \"\"hi\"\", then \"\"bye\"\"\",2\n"
        "3,\"two\r\nlines\",4\n"
        "5,\"three\n\nlines, \"\"q\"\"\",6\n"
        "7,\"a\"\"\"\n"
        "8,\"\"\"\"\"\",9\n",
        chunk);
    ASSERT_EQ(c.rows.size(), 6u) << chunk;
    EXPECT_EQ(c.rows[1], (Fields{"1", "say \"hi\", then \"bye\"", "2"})) << chunk;
    EXPECT_EQ(c.rows[2], (Fields{"3", "two\nlines", "4"})) << chunk;
    EXPECT_EQ(c.rows[3], (Fields{"5", "three\n\nlines, \"q\"", "6"})) << chunk;
    EXPECT_EQ(c.rows[4], (Fields{"7", "a\""})) << chunk;
    EXPECT_EQ(c.rows[5], (Fields{"8", "\"\"", "9"})) << chunk;
    EXPECT_EQ(c.lines, (std::vector<int64_t>{1, 2, 3, 5, 8, 9})) << chunk;
  }
}

// rocprofv3's own quotes (never doubled) stay as they are: a field with a lone quote is not RFC
// 4180's, so its pairs are kept too.
TEST(CsvTokenizer, AFieldWithALoneQuoteKeepsItsPairs) {
  auto c = tokenize("1,\"f<\"\"> \"x\"\",2\n");
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0], (Fields{"1", "f<\"\"> \"x\"", "2"}));
}

TEST(CsvTokenizer, NulByteThrowsWithPosition) {
  Collect c;
  CsvTokenizer tok("junk.csv", c);
  try {
    tok.feed(std::string("a,b\nxy\0z\n", 9));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].line(),
              "junk.csv:2:3: binary data (a NUL byte) in a CSV file (this is not a rocprofv3 CSV "
              "file, or it was damaged; re-capture it)");
  }
}

TEST(CsvTokenizer, OverlongLineThrows) {
  Collect c;
  CsvTokenizer tok("big.csv", c, 1024);
  std::string blob(3000, 'x');
  EXPECT_THROW(
      {
        tok.feed(blob.substr(0, 1000));
        tok.feed(blob.substr(1000));
      },
      Error);
}

TEST(CsvTokenizer, AnyChunkingGivesTheSameRows) {
  std::string text =
      "\"h1\",\"h2\",\"h3\"\r\n1,\"a, \"b\"\",3\n\n2,\"x\",\"\"\r\n3,\"long name <t, u>\",9";
  auto whole = tokenize(text);
  std::mt19937 rng(42);
  for (size_t chunk = 1; chunk <= text.size(); ++chunk) {
    auto c = tokenize(text, chunk);
    ASSERT_EQ(c.rows, whole.rows) << "chunk " << chunk;
    ASSERT_EQ(c.lines, whole.lines) << "chunk " << chunk;
  }
}

}  // namespace
}  // namespace kprof::ingest
