#include "core/hw/expr.hpp"

#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace kprof::hw {
namespace {

using ExprPtr = std::shared_ptr<const Expr>;

class Parser {
 public:
  Parser(std::string_view text, const SourcePos& origin, const std::string& source_line)
      : m_text(text), m_origin(origin), m_source_line(source_line) {}

  // Bounds that keep the recursive descent here, and the recursive str(), evaluation and
  // destruction of the tree, far from the end of the stack: rocprofiler-sdk's formulas are under
  // 500 characters and nest a few levels (ROCm/rocprofiler-sdk,
  // source/share/rocprofiler-sdk/counter_defs.yaml). A fuzzer found 100k '(' overflowing it.
  static constexpr size_t k_max_chars = Expr::max_chars;
  static constexpr int k_max_depth = 100;

  ExprPtr parse_all() {
    if (m_text.size() > k_max_chars)
      fail(k_max_chars, "longer than " + std::to_string(k_max_chars) + " characters",
           "split it into named derived counters");
    skip_space();
    if (m_i >= m_text.size()) fail(m_i, "empty expression", "write a counter name or a number");
    ExprPtr e = expr();
    skip_space();
    if (m_i < m_text.size())
      fail(m_i, "unexpected '" + std::string(1, m_text[m_i]) + "'",
           "an operator (+ - * /) or the end of the expression was expected");
    return e;
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what, const std::string& hint) const {
    SourcePos pos = m_origin;
    if (pos.line > 0) pos.col = (pos.col > 0 ? pos.col : 1) + static_cast<int>(at);
    constexpr size_t k_shown = 200;
    const std::string shown = m_text.size() <= k_shown
                                  ? std::string(m_text)
                                  : std::string(m_text.substr(0, k_shown)) + "...";
    Diagnostic d{
        pos, "bad expression: " + what + " at offset " + std::to_string(at) + " in '" + shown + "'",
        hint, m_source_line};
    if (m_origin.file.empty() && m_origin.line == 0) d.pos.reset();
    throw Error(ErrorKind::input, std::move(d));
  }

  void skip_space() {
    while (m_i < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_i]))) ++m_i;
  }

  bool accept(char c) {
    skip_space();
    if (m_i < m_text.size() && m_text[m_i] == c) {
      ++m_i;
      return true;
    }
    return false;
  }

  void expect(char c, const std::string& context) {
    if (!accept(c)) {
      std::string got = m_i < m_text.size() ? "'" + std::string(1, m_text[m_i]) + "'" : "the end";
      fail(m_i, "expected '" + std::string(1, c) + "' " + context + ", found " + got,
           "check the parentheses and commas");
    }
  }

  static bool ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  std::string ident(const std::string& context) {
    skip_space();
    if (m_i >= m_text.size() || !ident_start(m_text[m_i]))
      fail(m_i, "expected a name " + context, "names start with a letter or '_'");
    size_t start = m_i;
    while (m_i < m_text.size() && ident_char(m_text[m_i])) ++m_i;
    return std::string(m_text.substr(start, m_i - start));
  }

  static std::shared_ptr<Expr> node(ExprKind kind, size_t at) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->offset = static_cast<int>(at);
    return e;
  }

  ExprPtr expr() {
    ExprPtr left = term();
    for (;;) {
      skip_space();
      if (m_i < m_text.size() && (m_text[m_i] == '+' || m_text[m_i] == '-')) {
        auto e = node(ExprKind::binary, m_i);
        e->op = m_text[m_i++];
        e->args = {left, term()};
        left = e;
      } else {
        return left;
      }
    }
  }

  ExprPtr term() {
    ExprPtr left = unary();
    for (;;) {
      skip_space();
      if (m_i < m_text.size() && (m_text[m_i] == '*' || m_text[m_i] == '/')) {
        auto e = node(ExprKind::binary, m_i);
        e->op = m_text[m_i++];
        e->args = {left, unary()};
        left = e;
      } else {
        return left;
      }
    }
  }

  ExprPtr unary() {
    // Every nesting ('(', a function's argument, a '-') passes here once more.
    struct Depth {
      int& d;
      ~Depth() { --d; }
    } depth{++m_depth};
    if (m_depth > k_max_depth)
      fail(m_i, "nested more than " + std::to_string(k_max_depth) + " levels deep",
           "split it into named derived counters");
    skip_space();
    if (m_i < m_text.size() && m_text[m_i] == '-') {
      auto e = node(ExprKind::negate, m_i++);
      e->args = {unary()};
      return e;
    }
    return primary();
  }

  ExprPtr number() {
    size_t start = m_i;
    while (m_i < m_text.size() &&
           (std::isdigit(static_cast<unsigned char>(m_text[m_i])) || m_text[m_i] == '.'))
      ++m_i;
    if (m_i < m_text.size() && (m_text[m_i] == 'e' || m_text[m_i] == 'E')) {
      size_t save = m_i++;
      if (m_i < m_text.size() && (m_text[m_i] == '+' || m_text[m_i] == '-')) ++m_i;
      if (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i]))) {
        while (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i]))) ++m_i;
      } else {
        m_i = save;
      }
    }
    std::string s(m_text.substr(start, m_i - start));
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
      fail(start, "malformed number '" + s + "'", "write e.g. 64 or 0.5");
    // strtod gives HUGE_VAL for a literal past DBL_MAX; an infinity would print as "inf", which
    // reads back as a counter name (found by tests/fuzz/fuzz_expr).
    if (!std::isfinite(v))
      fail(start, "number '" + s.substr(0, 40) + "' is out of range",
           "write a number below 1.8e308");
    auto e = node(ExprKind::number, start);
    e->number = v;
    return e;
  }

  ExprPtr primary() {
    skip_space();
    if (m_i >= m_text.size())
      fail(m_i, "unexpected end of expression", "an operand (name, number or '(') is missing");
    char c = m_text[m_i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (c == '(') {
      ++m_i;
      ExprPtr e = expr();
      expect(')', "to close '('");
      return e;
    }
    if (!ident_start(c))
      fail(m_i, "unexpected '" + std::string(1, c) + "'",
           "an operand (name, number or '(') was expected");
    size_t start = m_i;
    std::string id = ident("");
    skip_space();
    if (m_i >= m_text.size() || m_text[m_i] != '(') {
      auto e = node(ExprKind::name, start);
      e->name = id;
      return e;
    }
    ++m_i;  // '('
    if (id == "reduce") return reduce(start);
    if (id == "accumulate") return accumulate(start);
    if (id == "select") return select(start);
    if (id == "max" || id == "min") {
      auto e = node(ExprKind::call, start);
      e->name = id;
      do e->args.push_back(expr());
      while (accept(','));
      expect(')', "to close " + id + "(");
      return e;
    }
    fail(start, "unknown function '" + id + "'",
         "functions are reduce, accumulate, select, max and min");
  }

  ExprPtr reduce(size_t start) {
    auto e = node(ExprKind::reduce, start);
    e->args = {expr()};
    expect(',', "after reduce's first argument");
    skip_space();
    size_t at = m_i;
    std::string op = ident("as reduce's operation");
    if (op == "avg") op = "avr";
    if (op != "sum" && op != "avr" && op != "max" && op != "min")
      fail(at, "unknown reduce operation '" + op + "'", "use sum, avr, max or min");
    e->mode = op;
    expect(')', "to close reduce(");
    return e;
  }

  ExprPtr accumulate(size_t start) {
    auto e = node(ExprKind::accumulate, start);
    e->name = ident("as accumulate's counter");
    expect(',', "after accumulate's counter");
    skip_space();
    size_t at = m_i;
    std::string flag = ident("as accumulate's resolution");
    if (flag != "HIGH_RES" && flag != "LOW_RES" && flag != "NONE")
      fail(at, "unknown accumulate resolution '" + flag + "'", "use HIGH_RES, LOW_RES or NONE");
    e->mode = flag == "NONE" ? "" : flag;
    expect(')', "to close accumulate(");
    return e;
  }

  long integer() {
    skip_space();
    size_t start = m_i;
    while (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i]))) ++m_i;
    long v = 0;
    auto [p, ec] = std::from_chars(m_text.data() + start, m_text.data() + m_i, v);
    if (start == m_i || ec != std::errc())
      fail(start, "expected an index", "write e.g. [0] or [0,1]");
    (void)p;
    return v;
  }

  ExprPtr select(size_t start) {
    auto e = node(ExprKind::select, start);
    e->args = {expr()};
    expect(',', "after select's first argument");
    expect('[', "to open select's dimension list");
    do {
      SelectDim d;
      d.name = ident("as a dimension");
      expect('=', "after the dimension name");
      expect('[', "to open the index list");
      do d.values.push_back(integer());
      while (accept(','));
      expect(']', "to close the index list");
      e->dims.push_back(std::move(d));
    } while (accept(','));
    expect(']', "to close select's dimension list");
    expect(')', "to close select(");
    return e;
  }

  std::string_view m_text;
  SourcePos m_origin;
  std::string m_source_line;
  size_t m_i = 0;
  int m_depth = 0;
};

int precedence(const Expr& e) {
  if (e.kind != ExprKind::binary) return 3;
  return (e.op == '+' || e.op == '-') ? 1 : 2;
}

// The shortest text that reads back as the same double (std::to_chars without a precision), so
// a printed formula is never longer than needed: 5e-07, not 4.9999999999999998e-07.
std::string format_number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  assert(ec == std::errc());
  return std::string(buf, end);
}

}  // namespace

ExprPtr Expr::parse(std::string_view text, const SourcePos& origin,
                    const std::string& source_line) {
  return Parser(text, origin, source_line).parse_all();
}

std::string Expr::str() const {
  switch (kind) {
    case ExprKind::number:
      return format_number(number);
    case ExprKind::name:
      return name;
    case ExprKind::negate: {
      std::string a = args[0]->str();
      return precedence(*args[0]) < 3 ? "-(" + a + ")" : "-" + a;
    }
    case ExprKind::binary: {
      std::string l = args[0]->str(), r = args[1]->str();
      int p = precedence(*this);
      if (precedence(*args[0]) < p) l = "(" + l + ")";
      // a-(b-c) and a/(b*c) need their parentheses; a+(b+c) keeps them too, for simplicity.
      if (precedence(*args[1]) <= p && args[1]->kind == ExprKind::binary) r = "(" + r + ")";
      return l + op + r;
    }
    case ExprKind::reduce:
      return "reduce(" + args[0]->str() + "," + mode + ")";
    case ExprKind::accumulate:
      return "accumulate(" + name + "," + (mode.empty() ? "NONE" : mode) + ")";
    case ExprKind::select: {
      std::string s = "select(" + args[0]->str() + ",[";
      for (size_t i = 0; i < dims.size(); ++i) {
        if (i) s += ",";
        s += dims[i].name + "=[";
        for (size_t j = 0; j < dims[i].values.size(); ++j)
          s += (j ? "," : "") + std::to_string(dims[i].values[j]);
        s += "]";
      }
      return s + "])";
    }
    case ExprKind::call: {
      std::string s = name + "(";
      for (size_t i = 0; i < args.size(); ++i) s += (i ? "," : "") + args[i]->str();
      return s + ")";
    }
  }
  return {};
}

void Expr::collect_names(std::vector<std::pair<std::string, int>>& out) const {
  if (kind == ExprKind::name || kind == ExprKind::accumulate) out.emplace_back(name, offset);
  for (const auto& a : args) a->collect_names(out);
}

}  // namespace kprof::hw
