#include "core/analysis/table.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {
namespace {

std::string text_of(const Cell& c) {
  if (std::holds_alternative<std::monostate>(c)) return "";
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) {
    char buf[64];
    const double a = std::fabs(*d);
    if (*d == 0 || (a >= 1e-3 && a < 1e7)) {
      std::snprintf(buf, sizeof buf, "%.4g", *d);
    } else {
      std::snprintf(buf, sizeof buf, "%.4e", *d);
    }
    return buf;
  }
  return std::get<std::string>(c);
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

nlohmann::ordered_json json_cell(const Cell& c) {
  if (auto* i = std::get_if<int64_t>(&c)) return *i;
  if (auto* d = std::get_if<double>(&c))
    return std::isfinite(*d) ? nlohmann::ordered_json(*d) : nullptr;
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  return nullptr;
}

// UTF-8 aware width (kernel names are ASCII; "×" in explanations is not).
size_t width(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

}  // namespace

Cell opt(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }

Format parse_format(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw Error::input(
      "unknown format '" + s + "'",
      "choose table, csv or json" +
          std::string(did_you_mean(nearest_names(s, {"table", "csv", "json"}, 1)).empty()
                          ? ""
                          : "; " + did_you_mean(nearest_names(s, {"table", "csv", "json"}, 1))));
}

void print(std::ostream& os, const Table& t, Format f) {
  const std::string sim =
      t.simulated ? "SIMULATED (rocprofv3 test double; figures are not measurements)" : "measured";
  if (f == Format::json) {
    nlohmann::ordered_json j = {{"run", t.run_id},
                                {"simulated", t.simulated},
                                {"title", t.title},
                                {"columns", t.columns},
                                {"rows", nlohmann::ordered_json::array()},
                                {"notes", t.notes}};
    for (const auto& row : t.rows) {
      nlohmann::ordered_json r = nlohmann::ordered_json::object();
      for (size_t i = 0; i < t.columns.size(); ++i) r[t.columns[i]] = json_cell(row[i]);
      j["rows"].push_back(std::move(r));
    }
    os << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return;
  }
  if (f == Format::csv) {
    os << "simulated";
    for (const auto& c : t.columns) os << "," << csv_quote(c);
    os << "\n";
    for (const auto& row : t.rows) {
      os << (t.simulated ? 1 : 0);
      for (const auto& c : row) os << "," << csv_quote(text_of(c));
      os << "\n";
    }
    return;
  }
  os << "# " << t.title << " — run " << t.run_id << ", " << sim << "\n";
  std::vector<size_t> w(t.columns.size());
  std::vector<std::vector<std::string>> cells;
  for (size_t i = 0; i < t.columns.size(); ++i) w[i] = width(t.columns[i]);
  for (const auto& row : t.rows) {
    std::vector<std::string> line;
    for (size_t i = 0; i < row.size(); ++i) {
      line.push_back(text_of(row[i]));
      w[i] = std::max(w[i], width(line.back()));
    }
    cells.push_back(std::move(line));
  }
  auto emit = [&](const std::vector<std::string>& line, const std::vector<Cell>* typed) {
    for (size_t i = 0; i < line.size(); ++i) {
      const bool numeric = typed && (std::holds_alternative<int64_t>((*typed)[i]) ||
                                     std::holds_alternative<double>((*typed)[i]));
      const std::string pad(w[i] - width(line[i]), ' ');
      const bool last = i + 1 == line.size();
      os << (numeric ? pad + line[i] : line[i] + (last ? "" : pad)) << (last ? "" : "  ");
    }
    os << "\n";
  };
  if (t.columns.size() > 1 || !t.columns.empty()) emit(t.columns, nullptr);
  for (size_t r = 0; r < cells.size(); ++r) emit(cells[r], &t.rows[r]);
  for (const auto& n : t.notes) os << n << "\n";
}

}  // namespace kprof::analysis
