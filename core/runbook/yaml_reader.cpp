// Reading a runbook's YAML text: the text checks (UTF-8, tabs, one document), the parse, and
// file:line:col positions with the source line for every error (yaml_reader.hpp). The typed
// values of a map are read in yaml_values.cpp.
#include "core/runbook/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cstdio>
#include <sstream>

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

}  // namespace

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

}  // namespace kprof::runbook::detail
