#include "core/ingest/csv_format_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::ingest {

namespace {

std::string shown(std::string_view s) {
  constexpr size_t k_max = 40;
  std::string out(s.substr(0, k_max));
  if (s.size() > k_max) out += "...";
  return "'" + out + "'";
}

}  // namespace

CsvFormatReader::CsvFormatReader(std::string file, std::string kind, store::RowSink& sink,
                                 const ReadOptions& options)
    : m_file(std::move(file)), m_kind(std::move(kind)), m_sink(sink), m_options(options) {}

int CsvFormatReader::column(std::initializer_list<std::string_view> names) const {
  for (auto name : names) {
    const auto it = m_column_of.find(to_lower(name));
    if (it != m_column_of.end()) return it->second;
  }
  return -1;
}

int CsvFormatReader::require(std::initializer_list<std::string_view> names) {
  int c = column(names);
  if (c < 0) m_missing.emplace_back(*names.begin());
  return c;
}

void CsvFormatReader::read_header(const CsvRow& row) {
  // A first line with a bare number is data: the header is missing (cut off, or stripped).
  for (size_t i = 0; i < row.size(); ++i) {
    int64_t v = 0;
    if (!row[i].quoted && parse_i64(row[i].text, v)) {
      throw Error::input(
          "the first line is data, not a header",
          "rocprofv3 CSV files start with a line of quoted column names; was the "
          "header cut off?",
          SourcePos{m_file, static_cast<int>(row.line), static_cast<int>(row[i].col)});
    }
  }
  for (size_t i = 0; i < row.size(); ++i) {
    std::string name(trim(row[i].text));
    if (!m_column_of.emplace(to_lower(name), static_cast<int>(i)).second) {
      throw Error::input(
          "column '" + name + "' appears twice in the header",
          "this is not a file rocprofv3 wrote; re-capture it",
          SourcePos{m_file, static_cast<int>(row.line), static_cast<int>(row[i].col)});
    }
    m_header.push_back(std::move(name));
  }
  if (!row.error.empty()) {
    throw Error::input(
        "broken header: " + std::string(row.error),
        "the first line must be rocprofv3's quoted column names",
        SourcePos{m_file, static_cast<int>(row.line), static_cast<int>(row.error_col)});
  }
  bind_columns();
  if (!m_missing.empty()) {
    std::string hint;
    if (m_missing.size() == 1) hint = did_you_mean(nearest_names(m_missing[0], m_header));
    if (!hint.empty()) hint += "; ";
    hint += "expected a rocprofv3 " + m_kind + ".csv header (first columns here: " +
            join(std::vector<std::string>(m_header.begin(),
                                          m_header.begin() + std::min<size_t>(m_header.size(), 4)),
                 ",") +
            ")";
    std::vector<std::string> quoted;
    constexpr size_t k_listed = 4;
    for (size_t i = 0; i < m_missing.size() && i < k_listed; ++i)
      quoted.push_back("'" + m_missing[i] + "'");
    if (m_missing.size() > k_listed)
      quoted.push_back("and " + std::to_string(m_missing.size() - k_listed) + " more");
    throw Error::input(
        "header lacks column" + std::string(m_missing.size() > 1 ? "s " : " ") + join(quoted, ", "),
        hint, SourcePos{m_file, static_cast<int>(row.line), 1});
  }
  m_have_header = true;
  m_sink.begin_file(m_file, m_kind);
}

const CsvRow& CsvFormatReader::rejoin(const CsvRow& row) {
  // The text column swallowed `extra` more fields: glue them back over the original bytes. Valid
  // only when both pieces were quoted, i.e. the name really contained `",`.
  const size_t extra = row.size() - m_header.size();
  const auto t = static_cast<size_t>(m_text_col);
  if (!row[t].quoted || !row[t + extra].quoted) return row;
  // Both pieces must be the line's own bytes (not fields whose '""' pairs were made single).
  const auto in_line = [&row](std::string_view f) {
    return f.data() >= row.text.data() && f.data() + f.size() <= row.text.data() + row.text.size();
  };
  if (!in_line(row[t].text) || !in_line(row[t + extra].text)) return row;
  m_joined.clear();
  for (size_t i = 0; i < t; ++i) m_joined.push_back(row[i]);
  CsvField name = row[t];
  const char* b = row[t].text.data();
  const char* e = row[t + extra].text.data() + row[t + extra].text.size();
  name.text = std::string_view(b, static_cast<size_t>(e - b));
  // A name rocprofv3 wrote is one line; glued across a line break it would swallow the next row
  // (a quote left open in a damaged file).
  if (name.text.find('\n') != std::string_view::npos) return row;
  m_joined.push_back(name);
  for (size_t i = t + extra + 1; i < row.size(); ++i) m_joined.push_back(row[i]);
  m_joined_row = row;
  m_joined_row.fields = &m_joined;
  return m_joined_row;
}

void CsvFormatReader::on_row(const CsvRow& raw) {
  if (!m_have_header) {
    read_header(raw);
    return;
  }
  ++m_rows_read;
  const bool short_row = !raw.error.empty() || raw.size() < m_header.size();
  if (short_row && !raw.terminated) {
    throw Error::input(
        "the file ends in the middle of a row (" +
            (raw.error.empty()
                 ? std::to_string(raw.size()) + " of " + std::to_string(m_header.size()) + " fields"
                 : std::string(raw.error)) +
            ")",
        "it was cut off while being written or copied; re-capture or re-copy it",
        SourcePos{m_file, static_cast<int>(raw.line), static_cast<int>(raw.text.size() + 1)});
  }
  if (!raw.error.empty()) {
    reject(raw, -1, static_cast<int>(raw.error_col), std::string(raw.error));
    return;
  }
  const CsvRow* row = &raw;
  if (raw.size() > m_header.size() && m_text_col >= 0) row = &rejoin(raw);
  if (row->size() != m_header.size()) {
    const auto breaks = std::count(raw.text.begin(), raw.text.end(), '\n');
    reject(raw, -1, 1,
           "expected " + std::to_string(m_header.size()) + " fields, got " +
               std::to_string(raw.size()) +
               (breaks ? ": a quoted field runs on to line " + std::to_string(raw.line + breaks) +
                             " (a quote left open?)"
                       : std::string()));
    return;
  }
  try {
    read_row(*row);
  } catch (const RowProblem& p) {
    int col = p.column >= 0 ? static_cast<int>((*row)[static_cast<size_t>(p.column)].col) : 1;
    reject(*row, p.column, col, p.reason);
  }
}

void CsvFormatReader::reject(const CsvRow& row, int column, int col_in_line,
                             const std::string& reason) {
  std::string what = reason;
  if (column >= 0) what = "column '" + m_header[static_cast<size_t>(column)] + "': " + reason;
  if (m_options.strict) {
    throw Error::input("bad row: " + what, "without --strict, bad rows are counted and skipped",
                       SourcePos{m_file, static_cast<int>(row.line), col_in_line});
  }
  ++m_rows_rejected;
  m_bad.file = m_file;
  m_bad.line = row.line;
  m_bad.reason = "line " + std::to_string(row.line) + ", " + what;
  if (m_first_reject.empty()) {
    m_first_reject = "line " + std::to_string(row.line) + ", " + what;
    m_first_reject_line = static_cast<int>(row.line);
    m_first_reject_col = col_in_line;
  }
  m_sink.bad_row(m_bad);
}

void CsvFormatReader::finish() {
  if (!m_have_header) {
    throw Error::input("empty file: no header line",
                       "rocprofv3 writes a file only for domains with data; this one is empty or "
                       "was truncated to nothing — re-capture it",
                       SourcePos{m_file, 0, 0});
  }
  if (m_rows_read > 0 && m_rows_rejected == m_rows_read) {
    // Positioned at the first rejected row, with its column and value: the reason is the fix.
    throw Error::input("none of the " + std::to_string(m_rows_read) +
                           " rows is usable; the first: " + m_first_reject,
                       "the header is rocprofv3's but the data is not; re-capture the file",
                       SourcePos{m_file, m_first_reject_line, m_first_reject_col});
  }
  if (m_rows_read == 0) {
    // rocprofv3 opens a CSV file only when it has records for it (every generate_csv overload
    // returns on `data.empty()` before writing the header: ROCm/rocprofiler-sdk,
    // source/lib/output/generateCSV.cpp), so a header alone is a file cut off after its first line.
    throw Error::input("a header and no rows",
                       "rocprofv3 writes a file only for domains with data, so this one was cut "
                       "off after its header; re-capture it, or leave the file out",
                       SourcePos{m_file, 2, 1});
  }
  flush();
  m_sink.end_file(m_rows_read);
}

FileResult CsvFormatReader::result() const {
  FileResult r;
  r.path = m_file;
  r.kind = m_kind;
  r.rows_read = m_rows_read;
  r.rows_rejected = m_rows_rejected;
  r.dispatches = m_dispatches;
  r.counters = m_counters;
  return r;
}

std::string_view CsvFormatReader::text(const CsvRow& row, int col) const {
  std::string_view s = row[static_cast<size_t>(col)].text;
  if (const size_t at = invalid_utf8_at(s); at != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(s[at]));
    throw RowProblem{col, "not valid UTF-8: byte " + std::string(byte) + " at offset " +
                              std::to_string(at) +
                              (at > 0 ? " (after " + shown(s.substr(0, at)) + ")" : "")};
  }
  return s;
}

int64_t CsvFormatReader::i64(const CsvRow& row, int col) const {
  int64_t v = 0;
  std::string_view s = row[static_cast<size_t>(col)].text;
  if (!parse_i64(s, v)) {
    // A value between 2^63 and 2^64 is a negative one written unsigned: an end - start that
    // wrapped because the end came first.
    uint64_t u = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), u);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty())
      throw RowProblem{
          col,
          "ends before it starts: " + shown(s) +
              " is past 2^63: a negative duration (an end before its start) written unsigned (" +
              std::to_string(static_cast<int64_t>(u)) + " ns)"};
    throw RowProblem{col, "expected an integer, got " + shown(s)};
  }
  return v;
}

std::optional<int64_t> CsvFormatReader::opt_i64(const CsvRow& row, int col) const {
  if (col < 0) return std::nullopt;
  return i64(row, col);
}

int CsvFormatReader::bind_field(const csv::Names& names, bool required) {
  int c = names.alias.empty() ? column({names.name}) : column({names.name, names.alias});
  if (c < 0 && required) m_missing.emplace_back(names.name);
  return c;
}

double CsvFormatReader::f64(const CsvRow& row, int col) const {
  double v = 0;
  std::string_view s = row[static_cast<size_t>(col)].text;
  if (!parse_f64(s, v)) throw RowProblem{col, "expected a number, got " + shown(s)};
  // from_chars reads "nan" and "inf" too. Neither is a measurement, and the database could not
  // hold both alike: SQLite stores a bound NaN as NULL (sqlite/sqlite src/vdbemem.c,
  // sqlite3VdbeMemSetDouble), which the schema's NOT NULL refuses, while an infinity would be
  // stored and poison every sum over it. So both are a bad row, named and skipped like any other.
  if (!std::isfinite(v)) throw RowProblem{col, "expected a finite number, got " + shown(s)};
  return v;
}

int64_t CsvFormatReader::agent(const CsvRow& row, int col) const {
  std::string_view s = row[static_cast<size_t>(col)].text;
  int64_t n = 0;
  AgentForm form{};
  if (!parse_agent(s, n, form)) {
    throw RowProblem{col, "expected an agent id like 'Agent 2' or 2, got " + shown(s)};
  }
  if (form == AgentForm::agent || form == AgentForm::bare) return n;
  // "GPU N": the N-th agent of that type in logical order (--agent-index type-relative).
  const std::string type = form == AgentForm::gpu ? "GPU" : "CPU";
  int64_t seen = 0;
  for (const auto& a : m_options.agents) {
    if (a.type != type) continue;
    if (seen++ == n) return a.logical_node_id;
  }
  throw RowProblem{col, "agent " + shown(s) +
                            " is type-relative; its agent_info.csv is needed to resolve it and "
                            "lists no such agent"};
}

int64_t CsvFormatReader::pid_or_default(const CsvRow& row, int col) const {
  if (col >= 0) return i64(row, col);
  return m_options.pid.value_or(0);
}

}  // namespace kprof::ingest
