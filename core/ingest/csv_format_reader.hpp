// The part every rocprofv3 CSV reader shares: find columns by header name (case-insensitive,
// with aliases for renamed columns), check the field count of each row, and turn a row problem
// into a BadRow (or, with `strict`, an error) while a broken file — missing header columns, a
// truncated last row — throws kprof::Error with file:line:col and a hint.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ingest/csv_columns.hpp"
#include "core/ingest/csv_tokenizer.hpp"
#include "core/ingest/field_parse.hpp"
#include "core/ingest/read_options.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

// A problem with one row. Thrown inside read_row and caught by CsvFormatReader, never escapes.
struct RowProblem {
  int column = -1;  // index into the header, -1: the row as a whole
  std::string reason;
};

class CsvFormatReader : public CsvRowHandler {
 public:
  CsvFormatReader(std::string file, std::string kind, store::RowSink& sink,
                  const ReadOptions& options);

  void on_row(const CsvRow& row) final;
  // Call after the tokenizer's finish(): throws for an empty file, sends end_file.
  void finish();

  FileResult result() const;

 protected:
  // Column index by any of `names` (case-insensitive); -1 when absent.
  int column(std::initializer_list<std::string_view> names) const;
  // Like column(), but records the first name as missing when absent (see bind_columns).
  int require(std::initializer_list<std::string_view> names);
  // The one column whose text may itself contain `",` (kernel names): rows with extra fields are
  // re-joined there. -1 when the format has none.
  void set_text_column(int index) { m_text_col = index; }

  // Called with the header in place: look up columns with column()/require().
  virtual void bind_columns() = 0;
  // Turn one data row (exactly as many fields as the header) into rows for the sink; throw
  // RowProblem for a bad value.
  virtual void read_row(const CsvRow& row) = 0;
  // Called once after the last row (before end_file).
  virtual void flush() {}

  // Field helpers for read_row; they throw RowProblem naming the column.
  int64_t i64(const CsvRow& row, int col) const;
  double f64(const CsvRow& row, int col) const;
  // The field as it is; throws RowProblem when it is not valid UTF-8 (a damaged file: rocprofv3
  // writes UTF-8), so that no TEXT column of the database holds bytes its readers cannot decode.
  std::string_view text(const CsvRow& row, int col) const;
  // The value of an optional column: empty when the layout lacks it (col < 0).
  std::optional<int64_t> opt_i64(const CsvRow& row, int col) const;
  int64_t agent(const CsvRow& row, int col) const;
  int64_t pid_or_default(const CsvRow& row, int col) const;

  // The header column of each field of `fields` (a csv_columns.hpp table), in table order: -1 for
  // one the layout lacks; a missing required one is recorded (see require). Call from
  // bind_columns.
  template <class Fields>
  using Columns = std::array<int, std::tuple_size_v<Fields>>;
  template <class Fields>
  Columns<Fields> bind_fields(const Fields& fields) {
    Columns<Fields> cols{};
    size_t i = 0;
    std::apply([&](const auto&... f) { ((cols[i++] = bind_field(f.names, f.required)), ...); },
               fields);
    return cols;
  }
  // Reads the fields of the table `Fields` from `row` into `out`, in table order; the first bad
  // value or failed check is a RowProblem naming its column. The table is a template argument so
  // that each field's parse kind and check are settled at compile time.
  template <const auto& Fields, class Row>
  void read_fields(const CsvRow& row, const Columns<std::remove_cvref_t<decltype(Fields)>>& cols,
                   Row& out) const {
    constexpr size_t n = std::tuple_size_v<std::remove_cvref_t<decltype(Fields)>>;
    [&]<size_t... I>(std::index_sequence<I...>) { (read_field<Fields, I>(row, cols[I], out), ...); }
    (std::make_index_sequence<n>{});
  }

  // Field I of the table `Fields`, read from header column `col` (-1: the layout lacks it).
  template <const auto& Fields, size_t I, class Row>
  void read_field(const CsvRow& row, int col, Row& out) const {
    constexpr const auto& f = std::get<I>(Fields);
    auto& v = out.*f.field;
    using T = std::remove_cvref_t<decltype(v)>;
    // A column the layout lacks still gets its check: a row with a Start_Timestamp but no
    // End_Timestamp column ends (at 0) before it starts, and is a bad row as it was before the
    // column tables (found by fuzz_csv).
    if (col < 0) {
      if constexpr (std::is_same_v<T, std::string>) {
        v.clear();
      } else if constexpr (f.as == csv::As::pid) {
        v = m_options.pid.value_or(0);
      } else {
        v = T{};
      }
    } else if constexpr (std::is_same_v<T, std::string>) {
      v.assign(text(row, col));
    } else if constexpr (std::is_same_v<T, double>) {
      v = f64(row, col);
    } else if constexpr (f.as == csv::As::agent_or_none) {
      v.reset();
      if (!text(row, col).empty()) v = agent(row, col);
    } else if constexpr (f.as == csv::As::agent) {
      v = agent(row, col);
    } else {
      static_assert(std::is_same_v<T, int64_t> || std::is_same_v<T, std::optional<int64_t>>,
                    "a CSV field is an integer, number or text");
      v = i64(row, col);
    }
    // A plain `if`: GCC 12 with -fsanitize=undefined refuses a function pointer compared in a
    // constant expression (`if constexpr`); f is constexpr, so an optimised build folds it anyway.
    if (f.check != nullptr) {
      if (const char* why = f.check(out)) throw RowProblem{col, why};
    }
  }

  store::RowSink& sink() { return m_sink; }
  const std::string& file() const { return m_file; }
  const ReadOptions& options() const { return m_options; }
  int64_t m_dispatches = 0;
  int64_t m_counters = 0;

 private:
  int bind_field(const csv::Names& names, bool required);
  void read_header(const CsvRow& row);
  void reject(const CsvRow& row, int column, int col_in_line, const std::string& reason);
  const CsvRow& rejoin(const CsvRow& row);

  std::string m_file;
  std::string m_kind;
  store::RowSink& m_sink;
  const ReadOptions& m_options;
  std::vector<std::string> m_header;  // as written
  // Lower-case name -> index: lookups and the duplicate check stay linear in the header's width.
  std::unordered_map<std::string, int> m_column_of;
  std::vector<std::string> m_missing;
  int m_text_col = -1;
  bool m_have_header = false;
  int64_t m_rows_read = 0;
  int64_t m_rows_rejected = 0;
  std::string m_first_reject;  // "line 3, column 'X': ..." of the first rejected row
  int m_first_reject_line = 0;
  int m_first_reject_col = 0;
  std::vector<CsvField> m_joined;  // rejoin() scratch
  CsvRow m_joined_row;
  store::BadRow m_bad;
};

}  // namespace kprof::ingest
