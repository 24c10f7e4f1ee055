// rocprofiler-sdk's derived-counter expression language, as written in counter_defs.yaml:
//   + - * / , parentheses, numbers, identifiers (counters or agent constants),
//   reduce(X, sum|avr|avg|max|min), accumulate(COUNTER, HIGH_RES|LOW_RES|NONE),
//   select(X, [DIM=[i, ...], ...]) and max(a, b, ...) / min(a, b, ...).
// Grammar (rocprofiler-sdk counters/parser/parser.y is the model; this is our own parser):
//   expr := term (('+'|'-') term)* ; term := unary (('*'|'/') unary)* ;
//   unary := '-' unary | primary ; primary := NUMBER | '(' expr ')' | IDENT | IDENT '(' args ')'
// Parsing knows no counter names; Target resolves identifiers and evaluates.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::hw {

enum class ExprKind {
  number,      // 64, 1.5e3
  name,        // a counter or constant: TCC_HIT_sum, CU_NUM, simd_count
  binary,      // args[0] op args[1]
  negate,      // -args[0]
  reduce,      // reduce(args[0], mode)
  accumulate,  // accumulate(name, mode)
  select,      // select(args[0], [dims])
  call,        // name(args...), name is "max" or "min"
};

struct SelectDim {
  std::string name;          // DIMENSION_XCC, DIMENSION_INSTANCE, ...
  std::vector<long> values;  // the selected indices
};

class Expr {
 public:
  // Parses `text`. Errors are Error(input) "bad expression: ..." positioned at `origin` shifted by
  // the offending character's offset (origin is where text[0] sits in the user's file).
  // Longest text parse() accepts (see Parser in expr.cpp for why there is a bound at all).
  static constexpr size_t max_chars = 4096;

  static std::shared_ptr<const Expr> parse(std::string_view text, const SourcePos& origin = {},
                                           const std::string& source_line = {});

  ExprKind kind = ExprKind::number;
  double number = 0;
  std::string name;  // name / accumulate counter / call function
  char op = 0;       // binary: + - * /
  std::string mode;  // reduce: sum|avr|max|min ("avg" is normalised to "avr"); accumulate: flag
  std::vector<std::shared_ptr<const Expr>> args;
  std::vector<SelectDim> dims;
  int offset = 0;  // 0-based offset of this node's first character in the parsed text

  // Canonical text, fully parenthesised where precedence needs it: "(a-b)*64".
  std::string str() const;
  // Every identifier this expression refers to (names and accumulate counters), with offsets,
  // in order of appearance.
  void collect_names(std::vector<std::pair<std::string, int>>& out) const;
};

}  // namespace kprof::hw
