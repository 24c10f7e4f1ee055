#include "core/runbook/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "core/base/duration.hpp"
#include "core/base/text.hpp"

namespace kprof::runbook::detail {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not valid UTF-8.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0 && c >= 0xC2)
    n = 2;
  else if ((c & 0xF0) == 0xE0)
    n = 3;
  else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

bool is_plain(const YAML::Node& node) { return node.Tag() == "?"; }

// Where each document of a YAML stream starts, and where its root node is.
struct DocumentMarks {
  YAML::Mark start;
  YAML::Mark root;
};

class DocumentScan : public YAML::EventHandler {
 public:
  DocumentMarks marks;
  void OnDocumentStart(const YAML::Mark& m) override {
    marks = DocumentMarks{m, m};
    m_root_seen = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& m) {
    if (!m_root_seen) marks.root = m;
    m_root_seen = true;
  }
  bool m_root_seen = false;
};

// At most `max` documents of `text`. Throws YAML::Exception for a syntax error.
std::vector<DocumentMarks> scan_documents(const std::string& text, size_t max) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  std::vector<DocumentMarks> out;
  DocumentScan scan;
  while (out.size() < max && parser.HandleNextDocument(scan)) out.push_back(scan.marks);
  return out;
}

std::string quote(std::string_view s) {
  constexpr size_t k_max = 40;
  if (s.size() > k_max) return "'" + std::string(s.substr(0, k_max)) + "...'";
  return "'" + std::string(s) + "'";
}

}  // namespace

std::string suggest(const std::string& name, const std::vector<std::string>& known) {
  auto near = nearest_names(name, known, 1);
  if (!near.empty()) return near[0];
  const std::string lname = to_lower(name);
  std::string best;
  size_t best_len = 3;
  for (const auto& k : known) {
    const std::string lk = to_lower(k);
    size_t n = 0;
    while (n < lname.size() && n < lk.size() && lname[n] == lk[n]) ++n;
    if (n > best_len) {
      best = k;
      best_len = n;
    }
  }
  if (!best.empty()) return best;
  if (lname.size() >= 4)
    for (const auto& k : known)
      if (to_lower(k).find(lname) != std::string::npos) return k;
  return {};
}

const Entry* Map::find(std::string_view key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

Reader::Reader(std::string_view text, std::string file) : m_text(text), m_file(std::move(file)) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    m_lines.push_back(line);
    start = end + 1;
  }
}

SourcePos Reader::pos_of(const YAML::Mark& mark) const {
  if (mark.is_null()) return file_pos();
  return SourcePos{m_file, mark.line + 1, mark.column + 1};
}

std::string Reader::source_line(int line) const {
  if (line < 1 || static_cast<size_t>(line) > m_lines.size()) return {};
  return std::string(m_lines[static_cast<size_t>(line - 1)]);
}

void Reader::error(const SourcePos& pos, std::string what, std::string hint) {
  if (m_diagnostics.size() >= k_max_diagnostics) {
    ++m_suppressed;
    return;
  }
  m_diagnostics.push_back(Diagnostic{pos, std::move(what), std::move(hint), source_line(pos.line)});
}

bool Reader::check_text() {
  int line = 1;
  int col = 1;
  for (size_t i = 0; i < m_text.size();) {
    const auto c = static_cast<unsigned char>(m_text[i]);
    const size_t n = utf8_length(m_text, i);
    const bool control = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
    if (n == 0 || control || c == 0x7F) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", c);
      // The junk itself would garble a terminal, so no source line for the caret.
      m_diagnostics.push_back(Diagnostic{
          SourcePos{m_file, line, col},
          std::string("not a text file: byte ") + byte + " at offset " + std::to_string(i),
          "a runbook is YAML text in UTF-8",
          {}});
      return false;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
  return true;
}

std::optional<YAML::Node> Reader::parse() {
  if (!check_text()) return std::nullopt;
  const std::string text(m_text);
  YAML::Node root;
  try {
    // yaml-cpp 0.7's LoadAll() never returns on a ',' outside brackets at the top level (`,`,
    // ` ,`, `"x",`): its parser does not consume that token, so every call yields one more empty
    // document at the same place and LoadAll collects them without end (3.3 GB after 3 s). So the
    // documents are counted with the event parser first, stopping at the third, and a document
    // that starts where the previous one started is a syntax error there.
    std::vector<DocumentMarks> docs = scan_documents(text, 3);
    for (size_t i = 1; i < docs.size(); ++i) {
      if (docs[i].start.pos == docs[i - 1].start.pos) {
        const size_t at = static_cast<size_t>(docs[i].start.pos);
        const std::string token = at < text.size() ? text.substr(at, 1) : std::string("end");
        error(pos_of(docs[i].start), "YAML syntax error: unexpected '" + token + "'",
              token == "," ? "a ',' separates items only inside [ ] or { }"
                           : "check the indentation and quoting here");
        return std::nullopt;
      }
    }
    if (docs.size() > 1) {
      error(pos_of(docs[1].root), "more than one YAML document",
            "a runbook is one document; remove the '---' line");
      return std::nullopt;
    }
    if (!docs.empty()) root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourcePos pos = pos_of(e.mark);
    // yaml-cpp words a tab in the indentation many ways ("illegal map value", "illegal tab when
    // looking for indentation"); name the real cause at the tab itself.
    if (pos.line >= 1 && static_cast<size_t>(pos.line) <= m_lines.size()) {
      std::string_view l = m_lines[static_cast<size_t>(pos.line - 1)];
      size_t indent = l.find_first_not_of(" \t");
      size_t tab = l.substr(0, indent).find('\t');
      if (tab != std::string_view::npos) {
        error(SourcePos{m_file, pos.line, static_cast<int>(tab) + 1}, "tab in indentation",
              "YAML indents with spaces only");
        return std::nullopt;
      }
    }
    error(pos, "YAML syntax error: " + e.msg, "check the indentation and quoting here");
    return std::nullopt;
  }
  if (!root.IsDefined() || root.IsNull()) {
    error(file_pos(), "runbook is empty", "start from runbooks/qwen3-30b-a3b-sim.yaml");
    return std::nullopt;
  }
  return root;
}

std::string Reader::describe(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (!is_plain(node)) return "the quoted string " + quote(node.Scalar());
  return quote(node.Scalar());
}

void Reader::type_error(const YAML::Node& node, const SourcePos& pos, const std::string& path,
                        std::string_view expected, std::string hint) {
  error(pos, path + ": expected " + std::string(expected) + ", got " + describe(node),
        std::move(hint));
}

std::optional<Map> Reader::map(const YAML::Node& node, const SourcePos& pos,
                               const std::string& path, const std::vector<std::string>& known) {
  return map_impl(node, pos, path, &known);
}

std::optional<Map> Reader::open_map(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path) {
  return map_impl(node, pos, path, nullptr);
}

std::optional<Map> Reader::map_impl(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path,
                                    const std::vector<std::string>* known) {
  // An empty section (`profiler:` alone) is an empty map: every key takes its default.
  if (node.IsNull()) return Map{path, pos, {}, false, {}};
  if (!node.IsMap()) {
    if (path.empty())
      error(pos, "the runbook must be a map of keys, got " + describe(node),
            "start from runbooks/qwen3-30b-a3b-sim.yaml");
    else
      type_error(node, pos, path, "a map", "write its keys indented under '" + path + ":'");
    return std::nullopt;
  }
  Map m{path, pos, {}, false, {}};
  // A hash map: a list made 100k keys take 27 s (each key compared with every earlier one).
  std::unordered_map<std::string, SourcePos> seen;
  // Copies, not references: yaml-cpp's iterator yields a temporary pair.
  for (const auto& kv : node) {
    const YAML::Node k = kv.first;
    const SourcePos kp = pos_of(k.Mark());
    if (!k.IsScalar()) {
      error(kp, "keys must be plain names, got " + describe(k), "write 'key: value'");
      continue;
    }
    const std::string key = k.Scalar();
    auto prev = seen.find(key);
    if (prev != seen.end()) {
      error(kp, "duplicate key '" + join_path(path, key) + "'",
            "first written at line " + std::to_string(prev->second.line) + "; keep one");
      continue;
    }
    seen.emplace(key, kp);
    if (known && std::find(known->begin(), known->end(), key) == known->end()) {
      const std::string meant = suggest(key, *known);
      std::string hint = meant.empty() ? std::string() : did_you_mean({meant});
      if (hint.empty())
        hint = (path.empty() ? "the runbook" : path) + " takes " + join(*known, ", ");
      error(kp, "unknown key '" + join_path(path, key) + "'", hint);
      m.has_unknown = true;
      if (!meant.empty()) m.suggested.push_back(meant);
      continue;
    }
    const YAML::Node v = kv.second;
    // yaml-cpp marks an empty value at the start of the next token, often the next line.
    const SourcePos vp = v.IsNull() ? kp : pos_of(v.Mark());
    m.entries.push_back(Entry{key, kp, vp, v});
  }
  return m;
}

void Reader::missing(const Map& map, std::string_view key, std::string hint) {
  // "unknown key 'comand' (did you mean 'command'?)" already says it; a second line would not help.
  if (std::find(map.suggested.begin(), map.suggested.end(), key) != map.suggested.end()) return;
  error(map.pos, "missing key '" + join_path(map.path, key) + "'", std::move(hint));
}

std::optional<std::string> Reader::string(const YAML::Node& node, const SourcePos& pos,
                                          const std::string& path) {
  if (!node.IsScalar()) {
    type_error(node, pos, path, "a string", "write a single value");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<bool> Reader::boolean(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  type_error(node, pos, path, "true or false", "write true or false");
  return std::nullopt;
}

std::optional<long long> Reader::integer(const YAML::Node& node, const SourcePos& pos,
                                         const std::string& path, long long min, long long max) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    const char* b = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
    long long v = 0;
    auto [end, ec] = std::from_chars(b, s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && b != end) {
      if (v < min || v > max) {
        error(pos, path + ": " + s + " is out of range",
              "use " + std::to_string(min) + " to " + std::to_string(max));
        return std::nullopt;
      }
      return v;
    }
    if (ec == std::errc::result_out_of_range) {
      error(pos, path + ": " + s + " is out of range",
            "use " + std::to_string(min) + " to " + std::to_string(max));
      return std::nullopt;
    }
  }
  type_error(node, pos, path, "a whole number", "write digits only, unquoted");
  return std::nullopt;
}

std::optional<std::uint64_t> Reader::uint64(const YAML::Node& node, const SourcePos& pos,
                                            const std::string& path) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return v;
    if (ec == std::errc::result_out_of_range) {
      error(pos, path + ": " + s + " is out of range", "use 0 to 18446744073709551615");
      return std::nullopt;
    }
  }
  type_error(node, pos, path, "a whole number", "write digits only, unquoted");
  return std::nullopt;
}

std::optional<std::chrono::milliseconds> Reader::duration(const YAML::Node& node,
                                                          const SourcePos& pos,
                                                          const std::string& path,
                                                          std::chrono::milliseconds max,
                                                          std::string_view max_text) {
  if (!node.IsScalar()) {
    type_error(node, pos, path, "a duration", "write e.g. 90s, 30m, 1h30m or 250ms");
    return std::nullopt;
  }
  const auto ms = parse_duration_ms(node.Scalar());
  if (!ms) {
    error(pos, path + ": " + quote(node.Scalar()) + " is not a duration",
          "write e.g. 90s, 30m, 1h30m or 250ms");
    return std::nullopt;
  }
  if (*ms > static_cast<double>(max.count())) {
    error(pos, path + ": " + quote(node.Scalar()) + " is too long",
          "write at most " + std::string(max_text));
    return std::nullopt;
  }
  return parse_duration(node.Scalar());
}

std::optional<size_t> Reader::choice(const YAML::Node& node, const SourcePos& pos,
                                     const std::string& path,
                                     const std::vector<std::string>& names) {
  const std::string choices = names.size() == 2 ? names[0] + " or " + names[1] : join(names, ", ");
  if (!node.IsScalar()) {
    type_error(node, pos, path, "one of " + choices, "write one of " + choices);
    return std::nullopt;
  }
  const std::string& s = node.Scalar();
  auto it = std::find(names.begin(), names.end(), s);
  if (it != names.end()) return static_cast<size_t>(it - names.begin());
  const std::string meant = suggest(s, names);
  error(pos, path + ": unknown value " + quote(s),
        meant.empty() ? "use " + choices : did_you_mean({meant}));
  return std::nullopt;
}

std::optional<std::vector<YAML::Node>> Reader::list(const YAML::Node& node, const SourcePos& pos,
                                                    const std::string& path) {
  if (node.IsNull()) return std::vector<YAML::Node>{};
  if (!node.IsSequence()) {
    type_error(node, pos, path, "a list", "write [a, b] or one '- item' line per element");
    return std::nullopt;
  }
  std::vector<YAML::Node> out;
  for (const auto& n : node) out.push_back(n);
  return out;
}

std::optional<std::vector<Reader::Item>> Reader::strings(const YAML::Node& node,
                                                         const SourcePos& pos,
                                                         const std::string& path) {
  auto items = list(node, pos, path);
  if (!items) return std::nullopt;
  std::vector<Item> out;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const YAML::Node& n = (*items)[i];
    const SourcePos ip = n.IsNull() ? pos : pos_of(n.Mark());
    auto s = string(n, ip, path + "[" + std::to_string(i) + "]");
    if (!s) {
      good = false;
      continue;
    }
    out.push_back(Item{*s, ip});
  }
  if (!good) return std::nullopt;
  return out;
}

}  // namespace kprof::runbook::detail
