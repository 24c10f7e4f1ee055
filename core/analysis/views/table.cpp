#include "core/analysis/views/table.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/base/terminal_text.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {
namespace {

std::string shortest(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back as d
  return std::string(buf, r.ptr);
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

using Json = nlohmann::ordered_json;

Json json_cell(const Cell& c) {
  if (auto* i = std::get_if<int64_t>(&c)) return *i;
  if (auto* d = std::get_if<double>(&c)) return std::isfinite(*d) ? Json(*d) : Json(nullptr);
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  return nullptr;
}

// Kernel names are bytes from a CSV; invalid UTF-8 is replaced rather than thrown on.
std::string dump(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// The run a table is of, as every form names it: "run" and its id, or "runs" and the two-run
// label of a comparison (Table::runs).
const char* run_key(const Table& t) { return t.runs.empty() ? "run" : "runs"; }
Json run_value(const Table& t) { return t.runs.empty() ? Json(t.run_id) : Json(t.runs); }
std::string run_text(const Table& t) { return t.runs.empty() ? std::to_string(t.run_id) : t.runs; }

std::string provenance(const Table& t) {
  return (t.runs.empty() ? "run " : "") + run_text(t) + ", " +
         (t.simulated ? "SIMULATED (rocprofv3 test double; figures are not measurements)"
                      : "measured");
}

std::string omitted_note(const Table& t) {
  return "(" + std::to_string(t.rows_omitted) + " more rows not shown; raise or drop --limit)";
}

}  // namespace

std::string exact_text(const Cell& c) {
  if (std::holds_alternative<std::monostate>(c)) return "";
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) return shortest(*d);
  return std::get<std::string>(c);
}

Cell opt(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"table", "csv", "jsonl", "json"};
  return names;
}

Format parse_format(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  if (s == "jsonl") return Format::jsonl;
  const std::string dym = did_you_mean(nearest_names(s, format_names(), 1));
  throw Error::input("unknown format '" + s + "'",
                     "choose table, csv, jsonl or json" + (dym.empty() ? "" : "; " + dym));
}

namespace {

Json table_json(const Table& t) {
  Json j = Json::object();
  j[run_key(t)] = run_value(t);
  j["simulated"] = t.simulated;
  j["title"] = t.title;
  j["columns"] = t.columns;
  j["rows"] = Json::array();
  j["rows_omitted"] = t.rows_omitted;
  j["notes"] = t.notes;
  for (const auto& row : t.rows) {
    Json r = Json::object();
    for (size_t i = 0; i < t.columns.size(); ++i) r[t.columns[i]] = json_cell(row[i]);
    j["rows"].push_back(std::move(r));
  }
  return j;
}

}  // namespace

void print_json_document(std::ostream& os, const std::vector<std::string>& notes,
                         const std::vector<std::pair<std::string, const Table*>>& tables) {
  Json j = {{"notes", notes}};
  for (const auto& [name, t] : tables) j[name] = table_json(*t);
  os << dump(j, 2) << "\n";
}

void print(std::ostream& os, const Table& t, Format f, const PrintOptions& options) {
  std::ostream& err = options.err ? *options.err : std::cerr;
  const bool extra = !options.exact_columns;
  if (f == Format::json) {
    os << dump(table_json(t), 2) << "\n";
    return;
  }
  if (f == Format::jsonl) {
    // One object per row: pandas.read_json(path, lines=True) reads it as it is.
    if (!extra) err << "kprof: " << t.title << ": " << provenance(t) << "\n";
    for (const auto& row : t.rows) {
      Json r = Json::object();
      if (extra) {
        r[run_key(t)] = run_value(t);
        r["simulated"] = t.simulated;
      }
      for (size_t i = 0; i < t.columns.size(); ++i) r[t.columns[i]] = json_cell(row[i]);
      os << dump(r) << "\n";
    }
    if (t.rows_omitted) err << "kprof: " << omitted_note(t) << "\n";
    for (const auto& n : t.notes) err << "kprof: " << n << "\n";
    return;
  }
  if (f == Format::csv) {
    if (!extra) err << "kprof: " << t.title << ": " << provenance(t) << "\n";
    std::vector<std::string> head;
    if (extra) head = {run_key(t), "simulated"};
    for (const auto& c : t.columns) head.push_back(csv_quote(c));
    os << join(head, ",") << "\n";
    for (const auto& row : t.rows) {
      std::vector<std::string> line;
      if (extra) line = {csv_quote(run_text(t)), t.simulated ? "1" : "0"};
      for (const auto& c : row) line.push_back(csv_quote(exact_text(c)));
      os << join(line, ",") << "\n";
    }
    if (t.rows_omitted) err << "kprof: " << omitted_note(t) << "\n";
    for (const auto& n : t.notes) err << "kprof: " << n << "\n";
    return;
  }
  const size_t width = options.layout.width;
  const std::string head =
      wrap_text(terminal_safe(t.title + " — " + provenance(t)), width ? width - 2 : 0, 0);
  for (const auto& line : split(head, '\n')) os << "# " << line << "\n";
  render_text(os, t, options.layout);
  for (const auto& n : t.notes) os << wrap_text(n, width, 2) << "\n";
  if (t.rows_omitted) os << omitted_note(t) << "\n";
}

}  // namespace kprof::analysis
