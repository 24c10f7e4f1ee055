// Every key of runbook schema v1, accepted (value and position) and rejected (exact message and
// position). Runbooks are real files in a temp folder; line numbers count from k_minimal's 4 lines.
// Here: the defaults, the top level and `workload`; `profiler`, `target` and `passes` are in
// keys_profiler_test.cpp; `retry` to `sim` and the error reports in keys_settings_test.cpp.
#include <gtest/gtest.h>

#include <fstream>

#include "core/base/sha256.hpp"
#include "tests/runbook/keys_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

TEST_F(Keys, MinimalRunbookGetsEveryDefault) {
  const Runbook rb = load(k_minimal);
  EXPECT_EQ(rb.schema_version.value, 1);
  EXPECT_EQ(rb.schema_version.pos.str(), (m_dir / "rb.yaml").string() + ":1:17");
  EXPECT_TRUE(rb.schema_version.from_file);
  EXPECT_EQ(rb.name.value, "t");
  EXPECT_EQ(rb.name.pos.line, 2);
  EXPECT_EQ(rb.name.pos.col, 7);
  EXPECT_EQ(rb.description.value, "");
  EXPECT_FALSE(rb.description.from_file);
  ASSERT_EQ(rb.workload.command.value.size(), 2u);
  EXPECT_EQ(rb.workload.command.value[0].value, "app");
  EXPECT_EQ(rb.workload.command.value[1].value, "--flag");
  EXPECT_EQ(rb.workload.command.pos.line, 4);
  EXPECT_EQ(rb.workload.command.pos.col, 12);
  EXPECT_EQ(rb.workload.command.value[1].pos.col, 18);
  EXPECT_FALSE(rb.workload.shell.value);
  EXPECT_FALSE(rb.workload.shell.from_file);
  EXPECT_EQ(rb.workload.shell.pos.line, 0);
  EXPECT_TRUE(rb.workload.env.value.empty());
  EXPECT_EQ(rb.workload.cwd.value, m_dir);
  EXPECT_FALSE(rb.workload.timeout.value.has_value());
  EXPECT_EQ(rb.profiler.path.value, "rocprofv3");
  EXPECT_EQ(rb.profiler.output_format.value, OutputFormat::csv);
  EXPECT_FALSE(rb.profiler.selected_regions.value);
  EXPECT_FALSE(rb.profiler.truncate_kernels.value);
  EXPECT_TRUE(rb.profiler.extra_args.value.empty());
  EXPECT_FALSE(rb.profiler.agent_index.value.has_value());
  EXPECT_EQ(rb.target.arch.value, "gfx942");
  EXPECT_FALSE(rb.target.arch.from_file);
  EXPECT_TRUE(rb.passes.trace.enabled.value);
  EXPECT_TRUE(rb.passes.trace.stats.value);
  EXPECT_FALSE(rb.passes.trace.markers.value);
  EXPECT_FALSE(rb.passes.counters.enabled.value);
  EXPECT_EQ(rb.retry.attempts.value, 2);
  EXPECT_EQ(rb.retry.backoff.value, milliseconds(5000));
  EXPECT_EQ(rb.database.value, m_dir / "t.db");
  EXPECT_EQ(rb.captures.value, m_dir / "t-captures");
  EXPECT_FALSE(rb.analysis.layers.value.has_value());
  EXPECT_FALSE(rb.analysis.output_tokens.value.has_value());
  EXPECT_TRUE(rb.analysis.families.value.empty());
  EXPECT_FALSE(rb.sim.present);
  EXPECT_EQ(rb.sim.seed.value, 1u);
  EXPECT_EQ(rb.source, m_dir / "rb.yaml");
  EXPECT_EQ(rb.dir, m_dir);
  EXPECT_EQ(rb.sha256, sha256_hex(k_minimal));
  EXPECT_EQ(rb.text, k_minimal);
}

// --- top level --------------------------------------------------------------------------------

TEST_F(Keys, SchemaVersion) {
  EXPECT_EQ(
      error("name: t\nworkload:\n  command: [app]\n"),
      "rb.yaml:1:1: missing key 'schema_version' (add 'schema_version: 1' as the first line)");
  EXPECT_EQ(error("schema_version: 2\nname: t\nworkload:\n  command: [app]\n"),
            "rb.yaml:1:17: schema_version: this kprof reads schema 1, not 2 (use a newer kprof, or "
            "rewrite the runbook for schema 1)");
  EXPECT_EQ(
      error("schema_version: 0\nname: t\nworkload:\n  command: [app]\n"),
      "rb.yaml:1:17: schema_version: this kprof reads schema 1, not 0 (write schema_version: 1 "
      "(runbooks/README.md))");
  EXPECT_EQ(
      error("schema_version: \"1\"\nname: t\nworkload:\n  command: [app]\n"),
      "rb.yaml:1:17: schema_version: expected a whole number, got the quoted string '1' (write "
      "digits only, unquoted)");
  EXPECT_EQ(error("schema_version: 1.0\nname: t\nworkload:\n  command: [app]\n"),
            "rb.yaml:1:17: schema_version: expected a whole number, got '1.0' (write digits only, "
            "unquoted)");
}

TEST_F(Keys, Name) {
  EXPECT_EQ(error("schema_version: 1\nworkload:\n  command: [app]\n"),
            "rb.yaml:1:1: missing key 'name' (add e.g. 'name: qwen3-decode'; it names runs and the "
            "database)");
  EXPECT_EQ(
      error("schema_version: 1\nname: my run\nworkload:\n  command: [app]\n"),
      "rb.yaml:2:7: name: 'my run' is not a valid name (use letters, digits, '.', '_' and '-', "
      "starting with a letter or digit)");
  EXPECT_EQ(error("schema_version: 1\nname: [a]\nworkload:\n  command: [app]\n"),
            "rb.yaml:2:7: name: expected a string, got a list (write a single value)");
  EXPECT_EQ(
      load("schema_version: 1\nname: qwen3-30b.v2_x\nworkload:\n  command: [app]\n").name.value,
      "qwen3-30b.v2_x");
}

TEST_F(Keys, Description) {
  const Runbook rb = load(with("description: \"decode: 64 tokens\"\n"));
  EXPECT_EQ(rb.description.value, "decode: 64 tokens");
  EXPECT_EQ(rb.description.pos.line, 5);
  EXPECT_EQ(rb.description.pos.col, 14);
  EXPECT_EQ(error(with("description: {a: 1}\n")),
            "rb.yaml:5:14: description: expected a string, got a map (write a single value)");
}

TEST_F(Keys, UnknownTopLevelKeys) {
  EXPECT_EQ(error(with("descripton: x\n")),
            "rb.yaml:5:1: unknown key 'descripton' (did you mean 'description'?)");
  EXPECT_EQ(error(with("zzzzzzzzzzzz: x\n")),
            "rb.yaml:5:1: unknown key 'zzzzzzzzzzzz' (the runbook takes schema_version, name, "
            "description, workload, profiler, target, passes, retry, database, captures, analysis, "
            "launcher, sim)");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n  command: [app]\n? [a, b]\n: 1\n"),
            "rb.yaml:5:3: keys must be plain names, got a list (write 'key: value')");
}

TEST_F(Keys, TopLevelMustBeAMap) {
  EXPECT_EQ(error("- a\n- b\n"),
            "rb.yaml:1:1: the runbook must be a map of keys, got a list (start from "
            "runbooks/qwen3-30b-a3b-sim.yaml)");
  EXPECT_EQ(error("just words\n"),
            "rb.yaml:1:1: the runbook must be a map of keys, got 'just words' (start from "
            "runbooks/qwen3-30b-a3b-sim.yaml)");
}

// --- workload ---------------------------------------------------------------------------------

TEST_F(Keys, WorkloadMissingOrNotAMap) {
  EXPECT_EQ(
      error("schema_version: 1\nname: t\n"),
      "rb.yaml:1:1: missing key 'workload' (add a workload map with command: [program, args...])");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload: [app]\n"),
            "rb.yaml:3:11: workload: expected a map, got a list (write its keys indented under "
            "'workload:')");
  EXPECT_EQ(error("schema_version: 1\nname: t\nworkload:\n  shell: false\n"),
            "rb.yaml:4:3: missing key 'workload.command' (add command: [program, args...])");
  EXPECT_EQ(error(with("  comand: [x]\n")),
            "rb.yaml:5:3: unknown key 'workload.comand' (did you mean 'command'?)");
}

TEST_F(Keys, Command) {
  const std::string head = "schema_version: 1\nname: t\nworkload:\n";
  EXPECT_EQ(
      error(head + "  command: []\n"),
      "rb.yaml:4:12: workload.command: empty command (list the program and its arguments, e.g. "
      "[python3, app.py])");
  EXPECT_EQ(
      error(head + "  command:\n"),
      "rb.yaml:4:3: workload.command: empty command (list the program and its arguments, e.g. "
      "[python3, app.py])");
  EXPECT_EQ(
      error(head + "  command: python3 app.py\n"),
      "rb.yaml:4:12: workload.command: expected a list, got 'python3 app.py' (write [program, "
      "arg, ...], or set shell: true to run one line with /bin/sh -c)");
  EXPECT_EQ(
      error(head + "  command: [app, {a: 1}]\n"),
      "rb.yaml:4:18: workload.command[1]: expected a string, got a map (write a single value)");
  EXPECT_EQ(
      error(head + "  command: [\"\", x]\n"),
      "rb.yaml:4:13: workload.command[0]: empty program name (name the program to run first)");
  EXPECT_EQ(error(head + "  shell: true\n  command: [a, b]\n"),
            "rb.yaml:5:12: workload.command: with shell: true, command is one string (join the "
            "arguments into one command line, or set shell: false)");
  EXPECT_EQ(error(head + "  shell: true\n  command: \"\"\n"),
            "rb.yaml:5:12: workload.command: empty command (write the command line /bin/sh -c "
            "should run)");

  const Runbook list = load(head + "  command:\n    - python3\n    - \"app.py --x\"\n");
  ASSERT_EQ(list.workload.command.value.size(), 2u);
  EXPECT_EQ(list.workload.command.value[1].value, "app.py --x");
  EXPECT_EQ(list.workload.command.value[1].pos.line, 6);
  EXPECT_EQ(list.workload.command.value[1].pos.col, 7);

  const Runbook sh = load(head + "  shell: true\n  command: python3 app.py | tee log\n");
  EXPECT_TRUE(sh.workload.shell.value);
  EXPECT_TRUE(sh.workload.shell.from_file);
  ASSERT_EQ(sh.workload.command.value.size(), 1u);
  EXPECT_EQ(sh.workload.command.value[0].value, "python3 app.py | tee log");
}

TEST_F(Keys, Shell) {
  EXPECT_EQ(
      error(with("  shell: yes\n")),
      "rb.yaml:5:10: workload.shell: expected true or false, got 'yes' (write true or false)");
  EXPECT_EQ(
      error(with("  shell: \"true\"\n")),
      "rb.yaml:5:10: workload.shell: expected true or false, got the quoted string 'true' (write "
      "true or false)");
  EXPECT_FALSE(load(with("  shell: False\n")).workload.shell.value);
}

TEST_F(Keys, Env) {
  const Runbook rb =
      load(with("  env:\n    ZED: \"1\"\n    HIP_VISIBLE_DEVICES: 0\n    EMPTY: \"\"\n"));
  ASSERT_EQ(rb.workload.env.value.size(), 3u);
  EXPECT_EQ(rb.workload.env.value[0].name.value, "ZED");  // kept in the order written
  EXPECT_EQ(rb.workload.env.value[1].name.value, "HIP_VISIBLE_DEVICES");
  EXPECT_EQ(rb.workload.env.value[1].value.value, "0");
  EXPECT_EQ(rb.workload.env.value[1].value.pos.line, 7);
  EXPECT_EQ(rb.workload.env.value[1].value.pos.col, 26);
  EXPECT_EQ(rb.workload.env.value[2].value.value, "");

  EXPECT_EQ(error(with("  env: [A=1]\n")),
            "rb.yaml:5:8: workload.env: expected a map, got a list (write its keys indented under "
            "'workload.env:')");
  EXPECT_EQ(
      error(with("  env:\n    9LIVES: x\n")),
      "rb.yaml:6:5: workload.env: '9LIVES' is not a variable name (use letters, digits and '_', "
      "not starting with a digit)");
  EXPECT_EQ(error(with("  env:\n    A:\n")),
            "rb.yaml:6:5: workload.env.A: expected a string, got nothing (write A: \"\" for an "
            "empty value)");
  EXPECT_EQ(error(with("  env:\n    A: [1]\n")),
            "rb.yaml:6:8: workload.env.A: expected a string, got a list (write a single value)");
  EXPECT_EQ(error(with("  env:\n    A: x\n    A: y\n")),
            "rb.yaml:7:5: duplicate key 'workload.env.A' (first written at line 6; keep one)");
}

TEST_F(Keys, Cwd) {
  fs::create_directories(m_dir / "sub" / "deeper");
  const Runbook rb = load(with("  cwd: sub/./deeper/..\n"));
  EXPECT_EQ(rb.workload.cwd.value, m_dir / "sub");
  EXPECT_TRUE(rb.workload.cwd.from_file);
  EXPECT_EQ(load(with("  cwd: " + (m_dir / "sub").string() + "\n")).workload.cwd.value,
            m_dir / "sub");
  EXPECT_EQ(error(with("  cwd: nowhere\n")),
            "rb.yaml:5:8: workload.cwd: 'nowhere' is not a directory (create it or fix the path "
            "(relative paths start at the runbook's folder))");
  EXPECT_EQ(
      error(with("  cwd: ~/work\n")),
      "rb.yaml:5:8: workload.cwd: '~' is not expanded in runbooks (write an absolute path or one "
      "relative to the runbook's folder)");
  EXPECT_EQ(
      error(with("  cwd: \"\"\n")),
      "rb.yaml:5:8: workload.cwd: empty path (write a path, relative to the runbook's folder)");
}

TEST_F(Keys, Timeout) {
  const Runbook rb = load(with("  timeout: 1h30m\n"));
  ASSERT_TRUE(rb.workload.timeout.value.has_value());
  EXPECT_EQ(*rb.workload.timeout.value, milliseconds(5'400'000));
  EXPECT_EQ(rb.workload.timeout.pos.col, 12);
  EXPECT_EQ(*load(with("  timeout: 90\n")).workload.timeout.value, milliseconds(90'000));
  const Runbook none = load(with("  timeout: ~\n"));
  EXPECT_FALSE(none.workload.timeout.value.has_value());
  EXPECT_TRUE(none.workload.timeout.from_file);
  EXPECT_EQ(
      error(with("  timeout: 30 minutes\n")),
      "rb.yaml:5:12: workload.timeout: '30 minutes' is not a duration (write e.g. 90s, 30m, 1h30m "
      "or 250ms)");
  EXPECT_EQ(error(with("  timeout: -5s\n")),
            "rb.yaml:5:12: workload.timeout: '-5s' is not a duration (write e.g. 90s, 30m, 1h30m "
            "or 250ms)");
  EXPECT_EQ(error(with("  timeout: 0s\n")),
            "rb.yaml:5:12: workload.timeout: must be longer than 0 (remove timeout for no limit)");
  EXPECT_EQ(
      error(with("  timeout: [30m]\n")),
      "rb.yaml:5:12: workload.timeout: expected a duration, got a list (write e.g. 90s, 30m, 1h30m "
      "or 250ms)");
}

}  // namespace
}  // namespace kprof::runbook::testing
