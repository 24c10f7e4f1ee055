// The one error type of kprof. Library code throws it for anything a user can cause (bad YAML,
// unknown counter, corrupt CSV, missing binary); apps/kprof/main.cpp catches it once and turns it
// into one stderr line per diagnostic and an exit code. Programmer errors use assert instead.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// A place in a user's file. Lines and columns are 1-based; 0 means "not known".
struct SourcePos {
  std::string file;
  int line = 0;
  int col = 0;

  // "file:line:col", "file:line" or "file", whatever is known.
  std::string str() const;
};

struct Diagnostic {
  std::optional<SourcePos> pos;
  std::string what;
  std::string hint;
  // The offending source line, printed under the message with a caret at pos->col (ninja style)
  // when the reader is a person. Empty when the source is not text.
  std::string source_line;

  // "<file>:<line>:<col>: <what> (<hint>)" — the one-line form every error takes on stderr.
  std::string line() const;
  // line() plus, when source_line is set, the source line and a caret under the column.
  std::string with_context() const;
};

// Exit codes are part of the CLI contract: 0 ok, 1 runtime failure, 2 usage or input error.
enum class ErrorKind { runtime = 1, input = 2 };

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::vector<Diagnostic> diagnostics);
  Error(ErrorKind kind, Diagnostic diagnostic);

  // Shorthands for the common single-diagnostic case.
  static Error input(std::string what, std::string hint = {}, std::optional<SourcePos> pos = {});
  static Error runtime(std::string what, std::string hint = {}, std::optional<SourcePos> pos = {});

  ErrorKind kind() const { return m_kind; }
  int exit_code() const { return static_cast<int>(m_kind); }
  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
  const char* what() const noexcept override { return m_what.c_str(); }

 private:
  ErrorKind m_kind;
  std::vector<Diagnostic> m_diagnostics;
  std::string m_what;  // all diagnostics' line() joined by '\n'
};

}  // namespace kprof
