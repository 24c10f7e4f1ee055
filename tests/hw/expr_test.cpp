#include "core/hw/expr.hpp"

#include <gtest/gtest.h>

namespace kprof::hw {
namespace {

TEST(Expr, PrecedenceAndCanonicalText) {
  EXPECT_EQ(Expr::parse("a+b*c")->str(), "a+b*c");
  EXPECT_EQ(Expr::parse("(a+b)*c")->str(), "(a+b)*c");
  EXPECT_EQ(Expr::parse("a-(b-c)")->str(), "a-(b-c)");
  EXPECT_EQ(Expr::parse(" reduce( TCC_HIT , sum ) / 1024 ")->str(), "reduce(TCC_HIT,sum)/1024");
  EXPECT_EQ(Expr::parse("reduce(X,avg)")->mode, "avr");
  EXPECT_EQ(Expr::parse("-x*2")->str(), "-x*2");
}

TEST(Expr, AccumulateSelectAndCalls) {
  auto a = Expr::parse("reduce(accumulate(SQ_LEVEL_WAVES, HIGH_RES),sum)");
  ASSERT_EQ(a->kind, ExprKind::reduce);
  ASSERT_EQ(a->args[0]->kind, ExprKind::accumulate);
  EXPECT_EQ(a->args[0]->name, "SQ_LEVEL_WAVES");
  EXPECT_EQ(a->args[0]->mode, "HIGH_RES");

  auto s = Expr::parse("select(TCC_HIT,[DIMENSION_XCC=[3], DIMENSION_INSTANCE=[1,2]])");
  ASSERT_EQ(s->kind, ExprKind::select);
  ASSERT_EQ(s->dims.size(), 2u);
  EXPECT_EQ(s->dims[1].name, "DIMENSION_INSTANCE");
  EXPECT_EQ(s->dims[1].values, (std::vector<long>{1, 2}));
  EXPECT_EQ(s->str(), "select(TCC_HIT,[DIMENSION_XCC=[3],DIMENSION_INSTANCE=[1,2]])");

  auto m = Expr::parse("max(a, b, 3)");
  EXPECT_EQ(m->kind, ExprKind::call);
  EXPECT_EQ(m->args.size(), 3u);

  std::vector<std::pair<std::string, int>> names;
  Expr::parse("x + accumulate(Y, LOW_RES) * zz")->collect_names(names);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], (std::pair<std::string, int>{"x", 0}));
  EXPECT_EQ(names[2], (std::pair<std::string, int>{"zz", 29}));
}

TEST(Expr, NumbersWithExponents) {
  EXPECT_DOUBLE_EQ(Expr::parse("1.5e3")->number, 1500.0);
  EXPECT_DOUBLE_EQ(Expr::parse("64")->number, 64.0);
}

// Parse errors are positioned: origin (file:line:col of text[0]) shifted by the offset.
TEST(Expr, ErrorsArePositioned) {
  SourcePos origin{"hw.yaml", 7, 20};
  struct Case {
    const char* text;
    int col;
    const char* needle;
  } cases[] = {
      {"a + * b", 24, "unexpected '*'"},
      {"reduce(X, median)", 30, "unknown reduce operation 'median'"},
      {"(a + b", 26, "expected ')'"},
      {"accumulate(X, MID_RES)", 34, "unknown accumulate resolution"},
      {"foo(a)", 20, "unknown function 'foo'"},
      {"a b", 22, "unexpected 'b'"},
      {"", 20, "empty expression"},
  };
  for (const auto& c : cases) {
    try {
      Expr::parse(c.text, origin, "line text");
      ADD_FAILURE() << "no error for '" << c.text << "'";
    } catch (const Error& e) {
      ASSERT_EQ(e.diagnostics().size(), 1u);
      const auto& d = e.diagnostics()[0];
      ASSERT_TRUE(d.pos.has_value()) << c.text;
      EXPECT_EQ(d.pos->file, "hw.yaml");
      EXPECT_EQ(d.pos->line, 7);
      EXPECT_EQ(d.pos->col, c.col) << c.text;
      EXPECT_NE(d.what.find(c.needle), std::string::npos) << d.what;
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

// Found by the expr fuzz target (tests/data/fuzz/expr/regressions): 100k '(' overflowed the stack
// of the recursive parser. Nesting and length are bounded; what is inside the bounds parses.
TEST(Expr, DeepOrHugeExpressionsAreErrorsNotCrashes) {
  auto what_of = [](const std::string& text) {
    try {
      Expr::parse(text);
    } catch (const Error& e) {
      return e.diagnostics().at(0).what;
    }
    return std::string("(parsed)");
  };
  const std::string nested99 = std::string(99, '(') + "a" + std::string(99, ')');
  EXPECT_EQ(Expr::parse(nested99)->str(), "a");
  EXPECT_NE(what_of("(" + nested99 + ")").find("nested more than 100 levels deep"),
            std::string::npos);
  EXPECT_NO_THROW(Expr::parse(std::string(99, '-') + "a"));
  EXPECT_NE(what_of(std::string(100, '-') + "a").find("nested more than 100 levels deep"),
            std::string::npos);
  const std::string big = std::string(100000, '(') + "a" + std::string(100000, ')');
  const std::string w = what_of(big);
  EXPECT_NE(w.find("longer than 4096 characters"), std::string::npos) << w.substr(0, 300);
  EXPECT_LT(w.size(), 400u);  // the message quotes the start of the text, not all of it
  // A long flat sum within the bound parses, prints and is destroyed without deep recursion.
  std::string sum = "a";
  for (int i = 0; i < 1000; ++i) sum += "+b";
  EXPECT_EQ(Expr::parse(sum)->str().size(), sum.size());
}

// Found by the expr fuzz target in CI: a literal past DBL_MAX became inf, which printed as "inf"
// and read back as a counter name; and 17-digit printing made "5e-7" into 4.9999999999999998e-07.
TEST(Expr, NumbersOutOfRangeAreRefusedAndPrintShortest) {
  try {
    Expr::parse("a*1e999", SourcePos{"m.yaml", 3, 10});
    ADD_FAILURE() << "1e999 parsed";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics().at(0).what.find("out of range"), std::string::npos);
    EXPECT_EQ(e.diagnostics().at(0).pos->col, 12);
  }
  EXPECT_EQ(Expr::parse("5e-7*a")->str(), "5e-07*a");
  EXPECT_EQ(Expr::parse("0.1+a/64")->str(), "0.1+a/64");
  EXPECT_EQ(Expr::parse("1e-320")->number, 1e-320);  // a subnormal still reads back exactly
  EXPECT_EQ(Expr::parse(Expr::parse("1e-320")->str())->number, 1e-320);
}

}  // namespace
}  // namespace kprof::hw
