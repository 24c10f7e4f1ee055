// A query result: named columns, typed cells, notes; printed as an aligned table, CSV or JSON.
// Every printed form carries the run's simulated flag (the table in its header line, CSV as a
// `simulated` column, JSON as a field), so a simulated figure never passes for a measured one.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace kprof::analysis {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
  std::string title;  // "top kernels of run 1"
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;  // printed under a table, as "notes" in JSON, not in CSV
  bool simulated = false;
  int64_t run_id = 0;
};

enum class Format { table, csv, json };
Format parse_format(const std::string& s);  // throws Error(input) naming the choices

void print(std::ostream& os, const Table& t, Format f);

Cell opt(const std::optional<double>& v);

}  // namespace kprof::analysis
