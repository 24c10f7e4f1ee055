#include "core/ingest/csv_tokenizer.hpp"

#include <cstring>

#include "core/base/error.hpp"

namespace kprof::ingest {

namespace {

const char* find_char(const char* p, const char* end, char c) {
  return static_cast<const char*>(std::memchr(p, c, static_cast<size_t>(end - p)));
}

}  // namespace

CsvTokenizer::CsvTokenizer(std::string file, CsvRowHandler& handler, size_t max_row_bytes)
    : m_file(std::move(file)), m_handler(handler), m_max_row_bytes(max_row_bytes) {
  m_fields.reserve(64);
}

void CsvTokenizer::check_length(size_t bytes) const {
  if (bytes > m_max_row_bytes) {
    throw Error::input("line " + std::to_string(m_line + 1) + " is longer than " +
                           std::to_string(m_max_row_bytes >> 20) + " MiB without a line break",
                       "this is not a rocprofv3 CSV file (binary data, or the wrong file)",
                       SourcePos{m_file, static_cast<int>(m_line + 1), 1});
  }
}

void CsvTokenizer::append_carry(std::string_view part) {
  check_length(m_carry.size() + part.size());
  m_carry.append(part);
}

void CsvTokenizer::feed(std::string_view chunk) {
  const char* p = chunk.data();
  const char* end = p + chunk.size();
  if (!m_carry.empty()) {
    const char* nl = find_char(p, end, '\n');
    if (!nl) {
      append_carry(chunk);
      return;
    }
    append_carry(std::string_view(p, static_cast<size_t>(nl - p)));
    process_line(m_carry, true);
    m_carry.clear();
    p = nl + 1;
  }
  while (p < end) {
    const char* nl = find_char(p, end, '\n');
    if (!nl) {
      append_carry(std::string_view(p, static_cast<size_t>(end - p)));
      return;
    }
    check_length(static_cast<size_t>(nl - p));
    process_line(std::string_view(p, static_cast<size_t>(nl - p)), true);
    p = nl + 1;
  }
}

void CsvTokenizer::finish() {
  if (m_finished) return;
  m_finished = true;
  if (!m_carry.empty()) {
    std::string last;
    last.swap(m_carry);
    process_line(last, false);
  }
  // The file ended inside a quoted field: the row is cut off, whatever line break came last.
  if (!m_open.empty()) tokenize(m_open, m_open_line, false, false);
  m_open.clear();
}

QuoteScan scan_quoted(const char* p, const char* end) {
  const auto ends_field = [end](const char* c) { return c == end || *c == ','; };
  // RFC 4180 first: every inner quote doubled, then one quote before a ',' or the end.
  QuoteScan rfc;
  bool clean = true;
  for (const char* q = p; q < end;) {
    const char* c = find_char(q, end, '"');
    if (!c) break;
    if (c + 1 < end && c[1] == '"') {
      rfc.pairs = true;
      q = c + 2;
    } else if (ends_field(c + 1)) {
      rfc.close = c;
      return rfc;
    } else {
      clean = false;
      break;
    }
  }
  // rocprofv3's: the first quote before a ',' or the end closes; every other quote is text.
  QuoteScan raw;
  raw.lone = !clean || rfc.pairs;
  for (const char* q = p; q < end;) {
    const char* c = find_char(q, end, '"');
    if (!c) break;
    if (ends_field(c + 1)) {
      raw.close = c;
      return raw;
    }
    q = c + 1;
  }
  return rfc;  // open: no close on this line
}

void CsvTokenizer::process_line(std::string_view line, bool terminated) {
  ++m_line;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (std::memchr(line.data(), '\0', line.size())) {
    const auto col =
        static_cast<const char*>(std::memchr(line.data(), '\0', line.size())) - line.data() + 1;
    throw Error::input("binary data (a NUL byte) in a CSV file",
                       "this is not a rocprofv3 CSV file, or it was damaged; re-capture it",
                       SourcePos{m_file, static_cast<int>(m_line), static_cast<int>(col)});
  }
  if (!m_open.empty()) {
    // The row's quoted field is open: this line belongs to it until a quote closes it.
    check_length(m_open.size() + 1 + line.size());
    m_open += '\n';
    m_open.append(line);
    if (terminated && !scan_quoted(line.data(), line.data() + line.size()).close) return;
    if (tokenize(m_open, m_open_line, terminated, terminated)) m_open.clear();
    return;
  }
  // rocprofv3 writes no blank lines; one left by an editor is skipped, not a row.
  if (line.empty()) return;
  if (!tokenize(line, m_line, terminated, terminated)) {
    m_open.assign(line);
    m_open_line = m_line;
  }
}

bool CsvTokenizer::tokenize(std::string_view line, int64_t line_no, bool terminated,
                            bool open_allowed) {
  m_fields.clear();
  m_to_unescape.clear();
  CsvRow row;
  row.line = line_no;
  row.text = line;
  row.fields = &m_fields;
  row.terminated = terminated;

  const char* begin = line.data();
  const char* end = begin + line.size();
  const char* p = begin;
  for (;;) {
    CsvField f;
    f.col = static_cast<uint32_t>(p - begin + 1);
    if (p < end && *p == '"') {
      f.quoted = true;
      const QuoteScan q = scan_quoted(p + 1, end);
      if (!q.close) {
        if (open_allowed) return false;
        row.error = "unterminated quoted field";
        row.error_col = f.col;
        break;
      }
      f.text = std::string_view(p + 1, static_cast<size_t>(q.close - p - 1));
      if (q.pairs && !q.lone) m_to_unescape.push_back(m_fields.size());
      m_fields.push_back(f);
      p = q.close + 1;
    } else {
      const char* c = p;
      while (c < end && *c != ',') ++c;
      f.text = std::string_view(p, static_cast<size_t>(c - p));
      m_fields.push_back(f);
      p = c;
    }
    if (p == end) break;
    ++p;  // the ','; a line ending in ',' has a final empty field, taken on the next turn
  }
  // Views into m_unescaped are taken only after it has its final size.
  if (!m_to_unescape.empty() && m_unescaped.size() < m_fields.size())
    m_unescaped.resize(m_fields.size());
  for (const size_t i : m_to_unescape) {
    std::string& out = m_unescaped[i];
    out.clear();
    const std::string_view in = m_fields[i].text;
    for (size_t k = 0; k < in.size(); ++k) {
      out += in[k];
      if (in[k] == '"') ++k;  // the pair's second quote (scan_quoted saw only pairs)
    }
    m_fields[i].text = out;
  }
  m_handler.on_row(row);
  return true;
}

}  // namespace kprof::ingest
