#include "core/runbook/checks.hpp"

#include <cctype>
#include <charconv>
#include <regex>
#include <vector>

namespace kprof::runbook::detail {
namespace {

std::string regex_code_text(std::regex_constants::error_type code) {
  namespace rc = std::regex_constants;
  switch (code) {
    case rc::error_collate:
      return "invalid collating element name";
    case rc::error_ctype:
      return "invalid character class name";
    case rc::error_escape:
      return "invalid escape";
    case rc::error_backref:
      return "invalid back reference";
    case rc::error_brack:
      return "unbalanced '['";
    case rc::error_paren:
      return "unbalanced parenthesis";
    case rc::error_brace:
      return "unbalanced '{'";
    case rc::error_badbrace:
      return "invalid count in '{}'";
    case rc::error_range:
      return "invalid character range";
    case rc::error_space:
      return "too large";
    case rc::error_badrepeat:
      return "'*', '+', '?' or '{' repeats nothing";
    case rc::error_complexity:
    case rc::error_stack:
      return "too complex";
    default:
      return "not a regular expression";
  }
}

bool parse_positive(std::string_view s, long long& out) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::optional<std::string> regex_problem(const std::string& pattern) {
  // libstdc++ reports a quantifier with nothing before it ("*moe", "a|+b") as error_paren; name
  // the real problem. '?' right after '(' opens (?: (?= (?! and is fine.
  bool in_class = false;
  char prev = 0;  // the previous unescaped character outside a class, 0 at the start
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
      prev = 'x';
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') in_class = true;
    const bool nothing_before = prev == 0 || prev == '|' || (prev == '(' && c != '?');
    if (nothing_before && (c == '*' || c == '+' || c == '?'))
      return "'*', '+', '?' or '{' repeats nothing";
    prev = c;
  }
  try {
    std::regex re(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return regex_code_text(e.code());
  }
  return std::nullopt;
}

std::optional<std::string> iteration_range_problem(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '[' || text[i] == ']' || text[i] == ',' || text[i] == ' ') {
      if (i > start) tokens.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (tokens.empty()) return "names no iteration";
  for (auto tok : tokens) {
    const size_t dash = tok.find('-');
    long long a = 0;
    long long b = 0;
    if (dash == std::string_view::npos) {
      if (!parse_positive(tok, a)) return "'" + std::string(tok) + "' is not an iteration number";
      b = a;
    } else if (!parse_positive(tok.substr(0, dash), a) ||
               !parse_positive(tok.substr(dash + 1), b)) {
      return "'" + std::string(tok) + "' is not a range A-B";
    }
    if (a < 1) return "iterations count from 1, not " + std::to_string(a);
    if (b < a) return "range '" + std::string(tok) + "' ends before it starts";
  }
  return std::nullopt;
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace kprof::runbook::detail
