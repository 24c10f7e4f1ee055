// Streaming tokenizer for the CSV dialect rocprofv3 writes (rocprofiler-sdk
// source/lib/output/csv.hpp: string fields are wrapped in '"' with NO escaping of embedded quotes,
// numbers are bare, lines end in '\n', CRLF accepted too) and for the same files once another tool
// rewrote them by RFC 4180 (https://www.rfc-editor.org/rfc/rfc4180, section 2: a '"' inside a
// quoted field written as '""', line breaks allowed inside quotes).
//
// Because rocprofv3 does not escape quotes, a quoted field is read twice over when needed: first
// by RFC 4180 (every inner quote doubled, the field closed by one quote before a ',' or the end of
// the line: its '""' pairs become one '"' each); a field that is not RFC 4180's is rocprofv3's,
// closed by the first '"' before a ',' or the end of the line, every other quote kept as it is.
// Kernel names such as `void f<(char)34>(int, "x")` survive intact as long as they contain no `",`
// sequence. (A name whose only quotes are pairs, `operator""_x`, reads as RFC 4180's
// `operator"_x`.) A line that ends inside a quoted field continues on the next line, the line break
// part of the field, up to the longest row allowed.
//
// Bytes arrive in chunks of any size (feed), rows leave through a RowHandler as views into either
// the chunk itself or, for a row split across chunks or lines or holding '""' pairs, buffers of
// bounded size. No allocation happens per row or per field once the buffers have grown to the
// widest row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::ingest {

struct CsvField {
  std::string_view text;  // without the surrounding quotes
  uint32_t col = 0;       // 1-based byte column of the field's first character (the quote if any)
  bool quoted = false;
};

// How a quoted field reads (see the file comment).
struct QuoteScan {
  const char* close = nullptr;  // the closing '"', nullptr: the field runs past `end`
  bool pairs = false;           // RFC 4180's '""' pairs inside
  bool lone = false;            // rocprofv3's: inner quotes are text, kept as they are
};
// Scans the quoted field whose text starts at `p` (after its opening quote) up to `end`.
QuoteScan scan_quoted(const char* p, const char* end);

struct CsvRow {
  int64_t line = 0;                     // 1-based physical line number
  std::string_view text;                // the whole line without its terminator
  const std::vector<CsvField>* fields;  // valid until the handler returns
  bool terminated = true;               // false: the last line of the file had no '\n'
  // A malformed line (e.g. an unterminated quote): `error` says what, at column `error_col`;
  // `fields` then holds what could be split before the problem.
  std::string_view error;
  uint32_t error_col = 0;

  size_t size() const { return fields->size(); }
  const CsvField& operator[](size_t i) const { return (*fields)[i]; }
};

class CsvRowHandler {
 public:
  virtual ~CsvRowHandler() = default;
  virtual void on_row(const CsvRow& row) = 0;
};

class CsvTokenizer {
 public:
  // A line longer than `max_row_bytes` is taken as a broken (binary or newline-free) file and
  // throws; it also bounds the carry buffer, which is what keeps memory flat.
  static constexpr size_t k_default_max_row_bytes = size_t{4} << 20;

  CsvTokenizer(std::string file, CsvRowHandler& handler,
               size_t max_row_bytes = k_default_max_row_bytes);

  void feed(std::string_view chunk);
  // Delivers a final line that had no '\n'. Call once, after the last feed.
  void finish();

  int64_t lines() const { return m_line; }
  const std::string& file() const { return m_file; }

 private:
  void process_line(std::string_view line, bool terminated);
  // Splits one row (one line, or lines joined by '\n') and hands it on; false, handing nothing
  // on, when `open_allowed` and the text ends inside a quoted field.
  bool tokenize(std::string_view text, int64_t line, bool terminated, bool open_allowed);
  void append_carry(std::string_view part);
  void check_length(size_t bytes) const;

  std::string m_file;
  CsvRowHandler& m_handler;
  size_t m_max_row_bytes;
  std::string m_carry;  // a line split across chunks
  std::string m_open;   // the lines of a row whose quoted field is still open, joined by '\n'
  int64_t m_open_line = 0;
  std::vector<CsvField> m_fields;
  std::vector<std::string> m_unescaped;  // per field index: RFC 4180 text with pairs made single
  std::vector<size_t> m_to_unescape;     // the fields of the row being split that need it
  int64_t m_line = 0;
  bool m_finished = false;
};

}  // namespace kprof::ingest
