// tests/data/ingest/bad/: malformed files, each with its pinned outcome in EXPECTED.txt — a
// positioned error for a broken file, or one BadRow (and a positioned error under --strict) for
// a bad row in an otherwise good file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/ingest/read_file.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_bad = fs::path(KPROF_TEST_DATA) / "ingest" / "bad";

struct Expectation {
  std::string file, kind, a, b;
};

std::vector<Expectation> load_manifest() {
  std::vector<Expectation> out;
  std::ifstream in(k_bad / "EXPECTED.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts;
    size_t pos = 0;
    for (;;) {
      size_t bar = line.find(" | ", pos);
      parts.push_back(line.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos));
      if (bar == std::string::npos) break;
      pos = bar + 3;
    }
    Expectation e{parts.at(0), parts.at(1), parts.at(2), parts.size() > 3 ? parts[3] : ""};
    out.push_back(e);
  }
  return out;
}

std::string error_line(const std::string& path, bool strict) {
  test::VectorSink sink;
  ReadOptions o;
  o.strict = strict;
  try {
    read_file(path, sink, o);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << path;  // input error
    return e.diagnostics().at(0).line();
  }
  return "(no error)";
}

std::string with_path(std::string s, const std::string& path) {
  auto at = s.find("{file}");
  if (at != std::string::npos) s.replace(at, 6, path);
  return s;
}

TEST(BadCorpus, EveryFileGivesItsPinnedOutcome) {
  auto manifest = load_manifest();
  std::set<std::string> listed;
  int errors = 0, bad_rows = 0;
  for (const auto& e : manifest) {
    const std::string path = (k_bad / e.file).string();
    SCOPED_TRACE(e.file);
    ASSERT_TRUE(fs::exists(path));
    listed.insert(e.file);
    if (e.kind == "error") {
      EXPECT_EQ(error_line(path, false), with_path(e.a, path));
      EXPECT_NE(error_line(path, true), "(no error)");  // strict may stop earlier (own line)
      ++errors;
    } else if (e.kind == "bad") {
      test::VectorSink sink;
      FileResult r = read_file(path, sink);
      ASSERT_EQ(sink.bad.size(), 1u);
      EXPECT_EQ(std::to_string(sink.bad[0].line), e.a);
      EXPECT_EQ(sink.bad[0].reason, e.b);
      EXPECT_EQ(sink.bad[0].file, path);
      EXPECT_EQ(r.rows_rejected, 1);
      EXPECT_EQ(r.rows_read, 3);
      // The good rows around the bad one still arrive.
      EXPECT_EQ(sink.dispatches.size(), 2u);
      ++bad_rows;
    } else if (e.kind == "strict") {
      EXPECT_EQ(error_line(path, true), with_path(e.a, path));
    } else {
      ADD_FAILURE() << "unknown kind " << e.kind;
    }
  }
  EXPECT_GE(errors, 20);
  EXPECT_GE(bad_rows, 6);
  // Every file in the folder is pinned.
  for (const auto& f : fs::directory_iterator(k_bad)) {
    auto name = f.path().filename().string();
    if (name == "EXPECTED.txt") continue;
    EXPECT_TRUE(listed.count(name)) << name << " has no expectation";
  }
}

// A header 100,000 columns wide (rocprofv3's columns, then extra ones) is read with one lookup per
// column: the duplicate check once compared each name with every one before it.
TEST(BadCorpus, AHundredThousandColumnHeaderIsRead) {
  const fs::path dir = fs::temp_directory_path() / ("kprof_wide_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path good = k_bad / "badrow_bad_value_counter_collection.csv";
  std::ifstream in(good);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  constexpr int k_extra = 100'000;
  std::string wide_header = header, wide_row = row;
  for (int i = 0; i < k_extra; ++i) {
    wide_header += ",\"Extra_" + std::to_string(i) + "\"";
    wide_row += ",0";
  }
  const fs::path path = dir / "1_counter_collection.csv";
  std::ofstream(path) << wide_header << "\n" << wide_row << "\n";
  test::VectorSink sink;
  const FileResult r = read_file(path.string(), sink);
  EXPECT_EQ(r.rows_read, 1);
  EXPECT_EQ(r.rows_rejected, 0);
  fs::remove_all(dir);
}

// A stats row whose durations wrapped past 2^64 (an unsigned end - start with the end first): the
// row is rejected as ending before it starts, not as "expected an integer"; the good row arrives.
// tests/data/ingest/wrapped_duration_kernel_stats.csv: the header and first row's figures of
// uLLM-project component-m8_kernel_stats.csv (kernel names shortened), and a row written by hand
// with 2^64 - 100 in its duration columns.
TEST(BadCorpus, AWrappedDurationIsNamedAsEndingBeforeItStarts) {
  const std::string path =
      (fs::path(KPROF_TEST_DATA) / "ingest" / "wrapped_duration_kernel_stats.csv").string();
  test::VectorSink sink;
  const FileResult r = read_file(path, sink);
  EXPECT_EQ(r.rows_read, 2);
  EXPECT_EQ(r.rows_rejected, 1);
  ASSERT_EQ(sink.stats.size(), 1u);
  EXPECT_EQ(sink.stats[0].name, "gemm_kernel");
  ASSERT_EQ(sink.bad.size(), 1u);
  EXPECT_EQ(sink.bad[0].reason,
            "line 3, column 'TotalDurationNs': ends before it starts: '18446744073709551516' is "
            "past 2^63: a negative duration (an end before its start) written unsigned (-100 ns)");
}

}  // namespace
}  // namespace kprof::ingest
