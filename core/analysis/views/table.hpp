// A query result (kprof::Table, core/base/table.hpp) printed as a terminal table, CSV, JSON Lines
// or one JSON document. Every form carries the run's simulated flag (the table in its header line,
// CSV and JSONL as `run` and `simulated` columns, JSON as fields), so a simulated figure never
// passes for a measured one. A table's notes (what could not be established, flags' causes) are
// printed under a terminal table, in JSON's `notes`, and on stderr for CSV and JSONL (one
// "kprof: " line each), so machine output keeps them without mixing them into its rows. Machine
// forms keep every digit (shortest round-trip text) and the full cell, never the brief terminal
// text. `--sql` results are printed with exactly the query's columns; their provenance goes to a
// comment line (table) or to stderr (CSV, JSONL).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/table.hpp"

namespace kprof::analysis {

using kprof::Cell;
using kprof::Table;

enum class Format { table, csv, json, jsonl };
Format parse_format(const std::string& s);  // throws Error(input) naming the choices
const std::vector<std::string>& format_names();

struct PrintOptions {
  TextLayout layout;            // terminal tables: width and --wide
  bool exact_columns = false;   // --sql: no run/simulated columns added
  std::ostream* err = nullptr;  // provenance, notes, omitted rows of CSV/JSONL (default std::cerr)
};

void print(std::ostream& os, const Table& t, Format f, const PrintOptions& options = {});

// Several results as ONE JSON document (what `json` means: one value a parser reads whole):
// {"notes": [...], "<name>": <the table as print() writes it in json>, ...}, in the given order.
void print_json_document(std::ostream& os, const std::vector<std::string>& notes,
                         const std::vector<std::pair<std::string, const Table*>>& tables);

// Cell as CSV/JSON text at full precision ("" / null when missing).
std::string exact_text(const Cell& c);

Cell opt(const std::optional<double>& v);

}  // namespace kprof::analysis
