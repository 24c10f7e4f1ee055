#include "core/base/error.hpp"

namespace kprof {

std::string SourcePos::str() const {
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

std::string Diagnostic::line() const {
  std::string s;
  if (pos && !pos->file.empty()) s += pos->str() + ": ";
  s += what;
  if (!hint.empty()) s += " (" + hint + ")";
  return s;
}

std::string Diagnostic::with_context() const {
  std::string s = line();
  if (!source_line.empty() && pos && pos->col > 0) {
    s += "\n  " + source_line + "\n  ";
    // Keep tabs so the caret lines up under a tab-indented source line.
    for (int i = 0; i + 1 < pos->col && i < static_cast<int>(source_line.size()); ++i)
      s += source_line[static_cast<size_t>(i)] == '\t' ? '\t' : ' ';
    s += "^";
  }
  return s;
}

Error::Error(ErrorKind kind, std::vector<Diagnostic> diagnostics)
    : m_kind(kind), m_diagnostics(std::move(diagnostics)) {
  for (const auto& d : m_diagnostics) {
    if (!m_what.empty()) m_what += '\n';
    m_what += d.line();
  }
}

Error::Error(ErrorKind kind, Diagnostic diagnostic)
    : Error(kind, std::vector<Diagnostic>{std::move(diagnostic)}) {}

Error Error::input(std::string what, std::string hint, std::optional<SourcePos> pos) {
  return Error(ErrorKind::input, Diagnostic{std::move(pos), std::move(what), std::move(hint), {}});
}

Error Error::runtime(std::string what, std::string hint, std::optional<SourcePos> pos) {
  return Error(ErrorKind::runtime,
               Diagnostic{std::move(pos), std::move(what), std::move(hint), {}});
}

}  // namespace kprof
