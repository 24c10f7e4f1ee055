// A deliberately different, minimal CSV reader for cross-checking the real one on the captures:
// RFC-style quote toggling (correct for files without embedded quotes, which the copied captures
// are — checked by the test), std::getline, std::stoll. Slow and allocation-heavy on purpose.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace kprof::ingest::test {

struct SimpleTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  bool has_embedded_quote = false;

  int col(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
};

inline std::vector<std::string> simple_split(const std::string& line, bool& embedded_quote) {
  std::vector<std::string> out(1);
  bool in_quotes = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"') {
      bool at_start = out.back().empty() && (i == 0 || line[i - 1] == ',');
      bool at_end = i + 1 == line.size() || line[i + 1] == ',';
      if (!(at_start && !in_quotes) && !(at_end && in_quotes)) embedded_quote = true;
      in_quotes = !in_quotes;
    } else if (c == ',' && !in_quotes) {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

inline SimpleTable simple_read(const std::string& path) {
  SimpleTable t;
  std::ifstream in(path);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = simple_split(line, t.has_embedded_quote);
    if (first) {
      t.header = f;
      first = false;
    } else {
      t.rows.push_back(f);
    }
  }
  return t;
}

}  // namespace kprof::ingest::test
