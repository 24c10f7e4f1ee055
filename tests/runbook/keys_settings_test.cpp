// Runbook schema v1 keys of `retry`, `database`, `captures`, `analysis` and `sim`, and how errors
// are reported: every one in file order, with the source line, and later stages' positions
// (keys_test.cpp).
#include <gtest/gtest.h>

#include <fstream>

#include "core/runbook/normalized.hpp"
#include "tests/runbook/keys_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// --- workload.ranks ---------------------------------------------------------------------------

// The processes that each drive one GPU in every pass: default 1 (not written), 1..64, a whole
// number; normalised with its position.
TEST_F(Keys, WorkloadRanks) {
  const Runbook def = load(k_minimal);
  EXPECT_EQ(def.workload.ranks.value, 1);
  EXPECT_FALSE(def.workload.ranks.from_file);
  const Runbook rb = load(with("  ranks: 4\n"));
  EXPECT_EQ(rb.workload.ranks.value, 4);
  EXPECT_TRUE(rb.workload.ranks.from_file);
  EXPECT_EQ(rb.workload.ranks.pos.line, 5);
  EXPECT_EQ(rb.workload.ranks.pos.col, 10);
  EXPECT_NE(format_normalized(rb).find("  ranks: 4 "), std::string::npos) << format_normalized(rb);
  EXPECT_NE(format_normalized(def).find("# default: one process drives the GPU"),
            std::string::npos);
  EXPECT_EQ(load(with("  ranks: 64\n")).workload.ranks.value, 64);
  EXPECT_EQ(error(with("  ranks: 0\n")),
            "rb.yaml:5:10: workload.ranks: 0 is out of range (use 1 to 64)");
  EXPECT_EQ(error(with("  ranks: 65\n")),
            "rb.yaml:5:10: workload.ranks: 65 is out of range (use 1 to 64)");
  const std::string not_int = error(with("  ranks: two\n"));
  EXPECT_EQ(not_int.rfind("rb.yaml:5:10: workload.ranks: expected a whole number", 0), 0u)
      << not_int;
}

// --- retry, database, captures ----------------------------------------------------------------

TEST_F(Keys, Retry) {
  const Runbook rb = load(with("retry:\n  attempts: 4\n  backoff: 250ms\n"));
  EXPECT_EQ(rb.retry.attempts.value, 4);
  EXPECT_EQ(rb.retry.backoff.value, milliseconds(250));
  EXPECT_EQ(rb.retry.backoff.pos.line, 7);
  EXPECT_EQ(error(with("retry:\n  attempts: 0\n")),
            "rb.yaml:6:13: retry.attempts: 0 is out of range (use 1 to 100)");
  EXPECT_EQ(error(with("retry:\n  attempts: 99999999999999999999\n")),
            "rb.yaml:6:13: retry.attempts: 99999999999999999999 is out of range (use 1 to 100)");
  EXPECT_EQ(error(with("retry:\n  attempts: three\n")),
            "rb.yaml:6:13: retry.attempts: expected a whole number, got 'three' (write digits "
            "only, unquoted)");
  EXPECT_EQ(error(with("retry:\n  backoff: soon\n")),
            "rb.yaml:6:12: retry.backoff: 'soon' is not a duration (write e.g. 90s, 30m, 1h30m or "
            "250ms)");
  EXPECT_EQ(error(with("retry:\n  tries: 3\n")),
            "rb.yaml:6:3: unknown key 'retry.tries' (retry takes attempts, backoff)");
}

TEST_F(Keys, DatabaseAndCaptures) {
  const Runbook rb = load(with("database: out/../db/x.db\ncaptures: /var/tmp/caps\n"));
  EXPECT_EQ(rb.database.value, m_dir / "db" / "x.db");
  EXPECT_EQ(rb.database.pos.line, 5);
  EXPECT_EQ(rb.database.pos.col, 11);
  EXPECT_EQ(rb.captures.value, fs::path("/var/tmp/caps"));
  EXPECT_EQ(error(with("database: [a.db]\n")),
            "rb.yaml:5:11: database: expected a string, got a list (write a single value)");
  EXPECT_EQ(error(with("captures: ~/caps\n")),
            "rb.yaml:5:11: captures: '~' is not expanded in runbooks (write an absolute path or "
            "one relative "
            "to the runbook's folder)");
  EXPECT_EQ(error(with("databse: x.db\n")),
            "rb.yaml:5:1: unknown key 'databse' (did you mean 'database'?)");
}

// Captures belong to one database: beside it and named after it, so two runbooks with one `name:`
// and two databases never share pass folders.
TEST_F(Keys, CapturesDefaultToTheDatabasesStem) {
  EXPECT_EQ(load(k_minimal).captures.value, m_dir / "t-captures");
  EXPECT_EQ(load(with("database: sub/other.db\n")).captures.value,
            m_dir / "sub" / "other-captures");
  EXPECT_EQ(load(with("database: sub/other.db\ncaptures: caps\n")).captures.value, m_dir / "caps");
}

// A runbook of the installation (under its share/kprof) writes where the user runs it, never into
// the installation; a runbook elsewhere writes beside itself.
TEST_F(Keys, AnInstalledRunbookWritesInTheWorkingDirectory) {
  const fs::path share = m_dir / "prefix" / "share" / "kprof";
  const fs::path file = share / "runbooks" / "rb.yaml";
  fs::create_directories(file.parent_path());
  std::ofstream(file) << with("database: q.db\n");
  const fs::path work = m_dir / "work";
  fs::create_directories(work);
  const fs::path was = fs::current_path();
  fs::current_path(work);
  LoadOptions o;
  o.install_dir = share;
  const Runbook installed = load_runbook(file, o);
  const Runbook plain = load_runbook(file, {});
  fs::current_path(was);
  EXPECT_EQ(installed.database.value, work / "q.db");
  EXPECT_EQ(installed.captures.value, work / "q-captures");
  EXPECT_EQ(installed.workload.cwd.value, file.parent_path());  // it still reads from there
  EXPECT_EQ(plain.database.value, file.parent_path() / "q.db");
}

// --- analysis ---------------------------------------------------------------------------------

TEST_F(Keys, Analysis) {
  const Runbook rb =
      load(with("analysis:\n  layers: 48\n  output_tokens: 64\n  families:\n"
                "    - {match: fused_moe_kernel, family: fused_moe}\n"
                "    - match: \"^Cijk_\"\n      family: gemm\n"));
  EXPECT_EQ(rb.analysis.layers.value, std::optional<int>(48));
  EXPECT_EQ(rb.analysis.layers.pos.line, 6);
  EXPECT_EQ(rb.analysis.output_tokens.value, std::optional<int>(64));
  ASSERT_EQ(rb.analysis.families.value.size(), 2u);
  EXPECT_EQ(rb.analysis.families.value[0].match.value, "fused_moe_kernel");
  EXPECT_EQ(rb.analysis.families.value[0].family.value, "fused_moe");
  EXPECT_EQ(rb.analysis.families.value[1].match.value, "^Cijk_");
  EXPECT_EQ(rb.analysis.families.value[1].family.pos.line, 11);
  EXPECT_EQ(rb.analysis.families.value[1].family.pos.col, 15);

  EXPECT_EQ(error(with("analysis:\n  layers: 0\n")),
            "rb.yaml:6:11: analysis.layers: 0 is out of range (use 1 to 10000)");
  EXPECT_EQ(error(with("analysis:\n  output_tokens: many\n")),
            "rb.yaml:6:18: analysis.output_tokens: expected a whole number, got 'many' (write "
            "digits only, "
            "unquoted)");
  EXPECT_EQ(error(with("analysis:\n  families:\n    - {match: moe}\n")),
            "rb.yaml:7:7: missing key 'analysis.families[0].family' (add family: <family name>)");
  EXPECT_EQ(error(with("analysis:\n  families:\n    - {match: \"moe(\", family: moe}\n")),
            "rb.yaml:7:15: analysis.families[0].match: invalid regular expression: unbalanced "
            "parenthesis "
            "(ECMAScript std::regex syntax; escape literal characters with '\\')");
  EXPECT_EQ(
      errors(with("analysis:\n  families:\n    - {match: moe, name: moe}\n")),
      (std::vector<std::string>{
          "rb.yaml:7:7: missing key 'analysis.families[0].family' (add family: <family name>)",
          "rb.yaml:7:20: unknown key 'analysis.families[0].name' (analysis.families[0] takes "
          "match, "
          "family)"}));
  EXPECT_EQ(error(with("analysis:\n  families: {moe: fused}\n")),
            "rb.yaml:6:13: analysis.families: expected a list, got a map (write [a, b] or one '- "
            "item' line "
            "per element)");
  EXPECT_EQ(error(with("analysis:\n  family: []\n")),
            "rb.yaml:6:3: unknown key 'analysis.family' (did you mean 'families'?)");
}

// --- sim --------------------------------------------------------------------------------------

TEST_F(Keys, Sim) {
  const Runbook rb =
      load(with("sim:\n  model: qwen3-30b-a3b-mi300x\n  seed: 18446744073709551615\n"));
  EXPECT_TRUE(rb.sim.present);
  EXPECT_EQ(rb.sim.model.value, "qwen3-30b-a3b-mi300x");
  EXPECT_EQ(rb.sim.seed.value, 18446744073709551615u);
  EXPECT_EQ(rb.sim.seed.pos.line, 7);
  std::ofstream(m_dir / "model.yaml") << "name: m\n";
  EXPECT_EQ(load(with("sim:\n  model: model.yaml\n")).sim.model.value,
            (m_dir / "model.yaml").string());
  EXPECT_EQ(strip_dir(error(with("sim:\n  model: models/none.yaml\n")), m_dir),
            "rb.yaml:6:10: sim.model: no such file 'models/none.yaml' (fix the path (relative "
            "paths start at "
            "the runbook's folder) or name a model in configs/sim)");
  EXPECT_EQ(error(with("sim:\n  seed: 3\n")),
            "rb.yaml:6:3: missing key 'sim.model' (add model: <name in configs/sim>)");
  EXPECT_EQ(
      error(with("sim:\n  model: m\n  seed: -1\n")),
      "rb.yaml:7:9: sim.seed: expected a whole number, got '-1' (write digits only, unquoted)");
  EXPECT_EQ(error(with("sim:\n  model: m\n  seed: 18446744073709551616\n")),
            "rb.yaml:7:9: sim.seed: 18446744073709551616 is out of range (use 0 to "
            "18446744073709551615)");
  EXPECT_EQ(error(with("sim:\n  model: m\n  sed: 1\n")),
            "rb.yaml:7:3: unknown key 'sim.sed' (did you mean 'seed'?)");
}

// --- all errors, not only the first -----------------------------------------------------------

TEST_F(Keys, EveryErrorIsReportedInFileOrder) {
  const auto e = errors(
      "schema_version: 1\n"
      "name: t\n"
      "workload:\n"
      "  command: []\n"
      "  shell: maybe\n"
      "profiler:\n"
      "  output_format: xml\n"
      "retry:\n"
      "  attempts: 0\n"
      "sim:\n"
      "  modle: x\n");
  // sim.model is not also reported missing: "did you mean 'model'?" already says so.
  ASSERT_EQ(e.size(), 5u) << ::testing::PrintToString(e);
  EXPECT_EQ(
      e[0],
      "rb.yaml:4:12: workload.command: empty command (list the program and its arguments, e.g. "
      "[python3, app.py])");
  EXPECT_EQ(
      e[1],
      "rb.yaml:5:10: workload.shell: expected true or false, got 'maybe' (write true or false)");
  EXPECT_EQ(e[2],
            "rb.yaml:7:18: profiler.output_format: unknown value 'xml' (did you mean 'csv'?)");
  EXPECT_EQ(e[3], "rb.yaml:9:13: retry.attempts: 0 is out of range (use 1 to 100)");
  EXPECT_EQ(e[4], "rb.yaml:11:3: unknown key 'sim.modle' (did you mean 'model'?)");
}

TEST_F(Keys, DiagnosticsCarryTheSourceLineForTheCaret) {
  const auto d = diagnostics(with("profiler:\n  output_format: csvv\n"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].source_line, "  output_format: csvv");
  EXPECT_EQ(strip_dir(d[0].with_context(), m_dir),
            "rb.yaml:6:18: profiler.output_format: unknown value 'csvv' (did you mean 'csv'?)\n"
            "    output_format: csvv\n"
            "                   ^");
}

TEST_F(Keys, LaterStagesPointIntoTheRunbook) {
  const Runbook rb = load(with("passes:\n  counters:\n    counters: [SQ_WAVES, NOT_A_COUNTER]\n"));
  const auto& c = rb.passes.counters.counters.value[1];
  const Diagnostic d =
      diagnostic(rb, c.pos, "counter 'NOT_A_COUNTER' unknown", "see kprof counters");
  EXPECT_EQ(strip_dir(d.line(), m_dir),
            "rb.yaml:7:26: counter 'NOT_A_COUNTER' unknown (see kprof counters)");
  EXPECT_EQ(d.source_line, "    counters: [SQ_WAVES, NOT_A_COUNTER]");
}

}  // namespace
}  // namespace kprof::runbook::testing
