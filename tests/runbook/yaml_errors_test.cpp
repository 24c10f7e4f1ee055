// Problems below the schema: text that is not YAML, not text at all, or YAML that yaml-cpp 0.7
// accepts but a runbook must not (duplicate keys, several documents).
#include <gtest/gtest.h>

#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

class YamlErrors : public RunbookTest {};

TEST_F(YamlErrors, EmptyFileAndCommentsOnly) {
  EXPECT_EQ(error(""), "rb.yaml: runbook is empty (start from runbooks/qwen3-30b-a3b-sim.yaml)");
  EXPECT_EQ(error("# nothing yet\n\n"),
            "rb.yaml: runbook is empty (start from runbooks/qwen3-30b-a3b-sim.yaml)");
  EXPECT_EQ(error("~\n"), "rb.yaml: runbook is empty (start from runbooks/qwen3-30b-a3b-sim.yaml)");
}

TEST_F(YamlErrors, TabInIndentationPointsAtTheTab) {
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n\tcommand: [app]\n"),
            "rb.yaml:4:1: tab in indentation (YAML indents with spaces only)");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n  command: [app]\n  \tshell: true\n"),
            "rb.yaml:5:3: tab in indentation (YAML indents with spaces only)");
  // A tab inside a value is just a character.
  EXPECT_EQ(load("schema_version: 1\nname: t\ndescription: \"a\tb\"\nworkload:\n  command: [app]\n")
                .description.value,
            "a\tb");
}

TEST_F(YamlErrors, DuplicateKeysAtEveryLevel) {
  EXPECT_EQ(error("schema_version: 1\nname: t\nname: u\nworkload:\n  command: [app]\n"),
            "rb.yaml:3:1: duplicate key 'name' (first written at line 2; keep one)");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n  command: [app]\n  command: [other]\n"),
            "rb.yaml:5:3: duplicate key 'workload.command' (first written at line 4; keep one)");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload: {command: [a], command: [b]}\n"),
            "rb.yaml:3:26: duplicate key 'workload.command' (first written at line 3; keep one)");
  // The first value is the one kept, so nothing else is reported about the second.
  const auto e = errors(
      "schema_version: 1\nname: t\nworkload:\n  command: [app]\nretry:\n  attempts: 3\n"
      "  attempts: nonsense\n");
  ASSERT_EQ(e.size(), 1u) << ::testing::PrintToString(e);
  EXPECT_EQ(e[0],
            "rb.yaml:7:3: duplicate key 'retry.attempts' (first written at line 6; keep one)");
}

TEST_F(YamlErrors, BinaryJunk) {
  EXPECT_EQ(
      error(std::string("schema_version: 1\nna\0me: t\n", 26)),
      "rb.yaml:2:3: not a text file: byte 0x00 at offset 20 (a runbook is YAML text in UTF-8)");
  EXPECT_EQ(
      error("\x89PNG\r\n\x1a\n"),
      "rb.yaml:1:1: not a text file: byte 0x89 at offset 0 (a runbook is YAML text in UTF-8)");
  EXPECT_EQ(
      error("name: caf\xc3"),
      "rb.yaml:1:10: not a text file: byte 0xC3 at offset 9 (a runbook is YAML text in UTF-8)");
  // Valid UTF-8 is text.
  EXPECT_EQ(load("schema_version: 1\nname: t\ndescription: café ✓\nworkload:\n  command: [app]\n")
                .description.value,
            "café ✓");
}

TEST_F(YamlErrors, SyntaxErrorsKeepYamlCppsPosition) {
  EXPECT_EQ(
      error("schema_version: 1\nname: t\nworkload:\n  command: [app, x\n"),
      "rb.yaml:5:1: YAML syntax error: end of sequence flow not found (check the indentation and "
      "quoting here)");
  EXPECT_EQ(
      error("schema_version: 1\nname: t: u\n"),
      "rb.yaml:2:8: YAML syntax error: illegal map value (check the indentation and quoting here)");
  EXPECT_EQ(error("schema_version: 1\nname: t\n- item\n"),
            "rb.yaml:3:1: YAML syntax error: end of map not found (check the indentation and "
            "quoting here)");
}

TEST_F(YamlErrors, OneDocumentOnly) {
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n  command: [app]\n---\nname: u\n"),
            "rb.yaml:6:1: more than one YAML document (a runbook is one document; remove the '---' "
            "line)");
}

TEST_F(YamlErrors, MissingFileAndFolder) {
  try {
    load_runbook(m_dir / "absent.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(strip_dir(e.what(), m_dir), "no such runbook 'absent.yaml' (check the path)");
  }
  try {
    load_runbook(m_dir);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(e.what(), "'" + m_dir.string() + "' is a folder, not a runbook (name a .yaml file)");
  }
}

TEST_F(YamlErrors, AnchorsAndAliasesAreResolved) {
  const Runbook rb = load(
      "schema_version: 1\nname: t\nworkload:\n  command: &cmd [app, x]\n"
      "profiler:\n  extra_args: *cmd\n");
  ASSERT_EQ(rb.profiler.extra_args.value.size(), 2u);
  EXPECT_EQ(rb.profiler.extra_args.value[1].value, "x");
}

}  // namespace
}  // namespace kprof::runbook::testing
