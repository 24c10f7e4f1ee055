// A broken hardware file is an error at the offending file:line:col.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/hw/expr.hpp"
#include "core/hw/target.hpp"

namespace kprof::hw {
namespace {

class TargetLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("kprof_hw_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  // A valid two-block file; `counters`/`derived` are spliced in.
  std::filesystem::path write(const std::string& counters, const std::string& derived) {
    std::string text =
        "arch: test1\n"
        "blocks:\n"
        "  - {name: SQ, counters_per_pass: 8, values_per_dispatch: 4}\n"
        "  - {name: TCC, counters_per_pass: 4, instances: 16, values_per_dispatch: 16}\n"
        "accumulate: {per_pass: 1, flags: [HIGH_RES], counters: [SQ_LEVEL]}\n"
        "constants: {simd_count: 8}\n"
        "counters:\n"
        "  - {name: SQ_LEVEL, block: SQ}\n"
        "  - {name: TCC_HIT, block: TCC}\n" +
        counters + "derived:\n  - {name: TCC_HIT_sum, expression: \"reduce(TCC_HIT,sum)\"}\n" +
        derived;
    auto p = m_dir / "hw.yaml";
    std::ofstream(p) << text;
    return p;
  }

  Diagnostic error_of(const std::filesystem::path& p) {
    try {
      Target::load(p);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return e.diagnostics().at(0);
    }
    ADD_FAILURE() << "no error";
    return {};
  }

  std::filesystem::path m_dir;
};

TEST_F(TargetLoad, ValidFileLoads) {
  Target t =
      Target::load(write("", "  - {name: TWICE, expression: \"TCC_HIT_sum*2+simd_count\"}\n"));
  EXPECT_EQ(t.arch(), "test1");
  EXPECT_EQ(t.counter_names(),
            (std::vector<std::string>{"SQ_LEVEL", "TCC_HIT", "TCC_HIT_sum", "TWICE"}));
  EXPECT_DOUBLE_EQ(*t.evaluate("TWICE", [](const Event&) { return std::optional<double>(5); }), 18);
  EXPECT_EQ(t.derived("TWICE")->pos.line, 12);
}

// A formula's own names take the caller's value first (rocprofv3's value of a derived counter);
// inside a function call and inside derived definitions the target's rules hold. Hand-derived with
// TCC_HIT = 5 from base_value: TCC_HIT_sum = reduce(5, sum) = 5, TWICE = 5*2 + simd_count 8 = 18.
TEST_F(TargetLoad, FormulaOwnNamesTakeTheCallersValueFirst) {
  Target t =
      Target::load(write("", "  - {name: TWICE, expression: \"TCC_HIT_sum*2+simd_count\"}\n"));
  const auto base = [](const Event&) { return std::optional<double>(5); };
  int asked = 0;
  const auto own = [&](const Expr& name) -> std::optional<double> {
    ++asked;
    return name.name == "TWICE" ? std::optional<double>(100) : std::nullopt;
  };
  // TWICE given by the caller: 100 + 1, its definition unused.
  EXPECT_DOUBLE_EQ(*t.evaluate_formula(*Expr::parse("TWICE+1"), base, own), 101);
  EXPECT_EQ(asked, 1);
  // TCC_HIT_sum not given: its definition over base values, 5 - 1.
  EXPECT_DOUBLE_EQ(*t.evaluate_formula(*Expr::parse("TCC_HIT_sum-1"), base, own), 4);
  // Inside max() the caller is not asked: TWICE by its definition, 18.
  asked = 0;
  EXPECT_DOUBLE_EQ(*t.evaluate_formula(*Expr::parse("max(TWICE,1)"), base, own), 18);
  EXPECT_EQ(asked, 0);
  // A base counter the caller does not give has no value at the formula's level; a constant is
  // the target's: simd_count 8, times 2.
  EXPECT_FALSE(t.evaluate_formula(*Expr::parse("TCC_HIT*2"), base, own).has_value());
  EXPECT_DOUBLE_EQ(*t.evaluate_formula(*Expr::parse("simd_count*2"), base, own), 16);
}

// Input files are read with a regular-file check and a size cap: a FIFO would block,
// /dev/zero would be read without end.
TEST_F(TargetLoad, AFifoADeviceOrAHugeFileIsRefusedAtOnce) {
  const auto fifo = m_dir / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo).what,
            "hardware file '" + fifo.string() + "' is a FIFO, not a regular file");
  EXPECT_EQ(error_of("/dev/zero").what,
            "hardware file '/dev/zero' is a character device, not a regular file");
  const auto huge = m_dir / "huge.yaml";
  {
    std::ofstream out(huge);
    out << "arch: test1\n";
  }
  std::filesystem::resize_file(huge, Target::k_max_file_bytes + 1);
  EXPECT_NE(error_of(huge).what.find("is larger than"), std::string::npos);
}

// The hw fuzz target's seed is a valid file (so the fuzzer starts from inputs that load), and
// its regression (a derived expression 200k characters deep) is a positioned error.
TEST_F(TargetLoad, FuzzSeedLoadsAndItsRegressionIsAnError) {
  const std::filesystem::path fuzz = std::filesystem::path(KPROF_TEST_DATA) / "fuzz" / "hw";
  const Target t = Target::load(fuzz / "mini_gfx942.yaml");
  EXPECT_EQ(t.arch(), "gfx942");
  EXPECT_TRUE(t.known("GPU_UTIL"));
  const Diagnostic d = error_of(fuzz / "regressions" / "deep_derived_expression.yaml");
  EXPECT_NE(d.what.find("longer than 4096 characters"), std::string::npos) << d.what.substr(0, 300);
  // Found by the hw fuzz target: a list where a block's mapping belongs escaped as
  // YAML::InvalidNode (std::terminate in the fuzzer, "internal error" in kprof).
  const Diagnostic m = error_of(fuzz / "regressions" / "block_not_a_mapping.yaml");
  EXPECT_EQ(m.what, "a block must be a mapping");
  EXPECT_EQ(m.pos->line, 15);
}

TEST_F(TargetLoad, UnknownBlock) {
  Diagnostic d = error_of(write("  - {name: TA_BUSY, block: TCX}\n", ""));
  EXPECT_EQ(d.pos->line, 10);
  EXPECT_EQ(d.pos->col, 28);  // the value TCX
  EXPECT_NE(d.what.find("unknown block 'TCX'"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("TCC"), std::string::npos);
  EXPECT_EQ(d.source_line, "  - {name: TA_BUSY, block: TCX}");
}

TEST_F(TargetLoad, CounterDefinedTwice) {
  Diagnostic d = error_of(write("  - {name: TCC_HIT, block: TCC}\n", ""));
  EXPECT_EQ(d.pos->line, 10);
  EXPECT_NE(d.what.find("'TCC_HIT' defined twice"), std::string::npos);
  EXPECT_NE(d.hint.find("hw.yaml:9"), std::string::npos) << d.hint;
  Diagnostic d2 = error_of(write("", "  - {name: TCC_HIT, expression: \"1\"}\n"));
  EXPECT_EQ(d2.pos->line, 12);
}

TEST_F(TargetLoad, ExpressionNamingUnknownCounter) {
  // Column of 'TCC_MIS' inside the quoted expression: the quote is at col 31, text starts at 32.
  Diagnostic d = error_of(write("", "  - {name: RATIO, expression: \"TCC_HIT_sum/TCC_MIS\"}\n"));
  EXPECT_EQ(d.pos->line, 12);
  EXPECT_EQ(d.pos->col, 32 + 12);
  EXPECT_NE(d.what.find("unknown counter 'TCC_MIS'"), std::string::npos) << d.what;
}

TEST_F(TargetLoad, BadExpressionSyntax) {
  Diagnostic d = error_of(write("", "  - {name: BAD, expression: \"(TCC_HIT_sum*2\"}\n"));
  EXPECT_EQ(d.pos->line, 12);
  EXPECT_EQ(d.pos->col, 30 + 14);
  EXPECT_NE(d.what.find("expected ')'"), std::string::npos) << d.what;
}

TEST_F(TargetLoad, AccumulateOfCounterNotListed) {
  Diagnostic d =
      error_of(write("", "  - {name: ACC, expression: \"accumulate(TCC_HIT, HIGH_RES)\"}\n"));
  EXPECT_EQ(d.pos->line, 12);
  EXPECT_NE(d.what.find("cannot be accumulated"), std::string::npos) << d.what;
}

TEST_F(TargetLoad, CycleInDerivedCounters) {
  Diagnostic d = error_of(
      write("", "  - {name: A, expression: \"B+1\"}\n  - {name: B, expression: \"A*2\"}\n"));
  EXPECT_NE(d.what.find("defined in terms of itself"), std::string::npos) << d.what;
  EXPECT_GT(d.pos->line, 11);
}

TEST_F(TargetLoad, BadYamlSyntaxAndKeys) {
  auto p = m_dir / "broken.yaml";
  std::ofstream(p) << "arch: x\nblocks:\n  - {name: SQ, counters_per_pass: 8\ncounters: []\n";
  Diagnostic d = error_of(p);
  EXPECT_NE(d.what.find("bad YAML"), std::string::npos) << d.what;
  EXPECT_GT(d.pos->line, 2);

  Diagnostic k = error_of(write("  - {name: X, blok: SQ}\n", ""));
  EXPECT_EQ(k.pos->line, 10);
  EXPECT_NE(k.what.find("unknown key 'blok'"), std::string::npos) << k.what;

  Diagnostic n = error_of(write("  - {name: X, block: SQ, event: four}\n", ""));
  EXPECT_NE(n.what.find("must be a number"), std::string::npos) << n.what;

  EXPECT_THROW(Target::load(m_dir / "missing.yaml"), Error);
}

}  // namespace
}  // namespace kprof::hw
