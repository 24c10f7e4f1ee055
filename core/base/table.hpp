// The one table type and its terminal renderer, used by every command that prints rows (query
// views, status, counters, ingest, plan). CSV/JSON forms of a query table live in
// core/analysis/views/table.hpp; this file knows only aligned text.
//
// The terminal form fits the terminal: numbers right-aligned, each floating-point column at one
// precision (k/M/G/T suffixes from 1e6 up), missing values '-'. When a line would be too wide, the
// widest columns give way first: headers wrap at '_', text wraps at spaces (a word longer than its
// column is split, never dropped), then the gap narrows; a table that still cannot fit is printed
// as one block of "column value" lines per row. Nothing is cut off.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kprof {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
  std::string title;  // "kernels by summed trace duration"
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;  // printed under a table, as "notes" in JSON, not in CSV
  bool simulated = false;
  int64_t run_id = 0;
  // Set for a table of two runs (kprof compare: "A: a.db run 1, B: b.db run 2"): printed instead
  // of run_id, which names one run, in every form (JSON and JSONL "runs", CSV column "runs").
  std::string runs;
  size_t rows_omitted = 0;  // rows left out by --limit; every output form says so
  // Column name -> one short text per row, shown instead of the cell in terminal tables unless
  // --wide (kernel names: family + the template arguments that tell them apart). Machine formats
  // always carry the full cell.
  std::map<std::string, std::vector<std::string>> brief;
  // Text columns aligned like numbers, on the right (durations such as "1m05s" and "2.1s", whose
  // units end the text).
  std::vector<std::string> right_aligned;
};

struct TextLayout {
  size_t width = 0;   // 0: no limit (output is not a terminal)
  bool wide = false;  // full cells instead of brief ones
};

// Columns and rows (not title or notes) as aligned text, every line at most layout.width wide.
void render_text(std::ostream& os, const Table& t, const TextLayout& layout);

// The display text of one cell outside a table ("-" for a missing value).
std::string cell_text(const Cell& c);

// `text` wrapped at spaces into lines of at most `width` columns (0 = no wrap); lines after the
// first start with `indent` spaces. Words longer than a line are split. Spaces that start `text`
// start every line too.
std::string wrap_text(std::string_view text, size_t width, size_t indent = 0);

// Columns a UTF-8 string takes on a terminal (one per code point; kernel names are ASCII).
size_t display_width(std::string_view s);

// The width of the terminal on `fd`: $COLUMNS when set, else the terminal's own; 0 when `fd` is
// not a terminal.
size_t terminal_width(int fd);

// kprof's one-line message "kprof: TEXT" as it should go to `fd`: whole when `fd` is not a
// terminal (a log keeps each message on one line, for grep), wrapped at the terminal's width with
// its continuation lines indented under TEXT when it is, so no line runs past a 120-column tmux.
std::string note_line(std::string_view text, int fd);

}  // namespace kprof
