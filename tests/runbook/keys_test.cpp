// Every key of runbook schema v1, accepted (value and position) and rejected (exact message and
// position). Runbooks are real files in a temp folder; line numbers count from k_minimal's 4 lines.
#include <gtest/gtest.h>

#include <fstream>

#include "core/base/sha256.hpp"
#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string with(const std::string& more) { return std::string(k_minimal) + more; }

class Keys : public RunbookTest {};

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

// --- profiler ---------------------------------------------------------------------------------

TEST_F(Keys, ProfilerPath) {
  EXPECT_EQ(load(with("profiler:\n  path: rocprofv3-7.0\n")).profiler.path.value, "rocprofv3-7.0");
  fs::create_directories(m_dir / "bin");
  std::ofstream(m_dir / "bin" / "rocprofv3") << "#!/bin/sh\n";
  const Runbook rb = load(with("profiler:\n  path: ./bin/rocprofv3\n"));
  EXPECT_EQ(rb.profiler.path.value, (m_dir / "bin" / "rocprofv3").string());
  EXPECT_EQ(rb.profiler.path.pos.line, 6);
  EXPECT_EQ(
      strip_dir(error(with("profiler:\n  path: /no/such/rocprofv3\n")), m_dir),
      "rb.yaml:6:9: profiler.path: no such file '/no/such/rocprofv3' (fix the path (relative paths "
      "start at the runbook's folder) or write rocprofv3)");
  EXPECT_EQ(error(with("profiler:\n  path: \"\"\n")),
            "rb.yaml:6:9: profiler.path: empty path (remove the key to use rocprofv3 from PATH)");
  EXPECT_EQ(
      error(with("profiler: rocprofv3\n")),
      "rb.yaml:5:11: profiler: expected a map, got 'rocprofv3' (write its keys indented under "
      "'profiler:')");
  EXPECT_EQ(error(with("profiler:\n  paht: x\n")),
            "rb.yaml:6:3: unknown key 'profiler.paht' (did you mean 'path'?)");
}

TEST_F(Keys, ProfilerOutputFormat) {
  EXPECT_EQ(load(with("profiler:\n  output_format: rocpd\n")).profiler.output_format.value,
            OutputFormat::rocpd);
  EXPECT_EQ(error(with("profiler:\n  output_format: csvv\n")),
            "rb.yaml:6:18: profiler.output_format: unknown value 'csvv' (did you mean 'csv'?)");
  EXPECT_EQ(error(with("profiler:\n  output_format: parquet\n")),
            "rb.yaml:6:18: profiler.output_format: unknown value 'parquet' (use csv or rocpd)");
  EXPECT_EQ(error(with("profiler:\n  output_format: [csv, rocpd]\n")),
            "rb.yaml:6:18: profiler.output_format: expected one of csv or rocpd, got a list (write "
            "one of "
            "csv or rocpd)");
}

TEST_F(Keys, ProfilerBooleans) {
  const Runbook rb = load(with("profiler:\n  selected_regions: true\n  truncate_kernels: true\n"));
  EXPECT_TRUE(rb.profiler.selected_regions.value);
  EXPECT_TRUE(rb.profiler.truncate_kernels.value);
  EXPECT_EQ(rb.profiler.truncate_kernels.pos.line, 7);
  EXPECT_EQ(error(with("profiler:\n  selected_regions: 1\n")),
            "rb.yaml:6:21: profiler.selected_regions: expected true or false, got '1' (write true "
            "or false)");
  EXPECT_EQ(error(with("profiler:\n  truncate_kernels: on\n")),
            "rb.yaml:6:21: profiler.truncate_kernels: expected true or false, got 'on' (write true "
            "or false)");
}

TEST_F(Keys, ProfilerExtraArgs) {
  const Runbook rb = load(with("profiler:\n  extra_args: [--log-level, info]\n"));
  ASSERT_EQ(rb.profiler.extra_args.value.size(), 2u);
  EXPECT_EQ(rb.profiler.extra_args.value[1].value, "info");
  EXPECT_EQ(rb.profiler.extra_args.value[1].pos.col, 29);
  EXPECT_EQ(error(with("profiler:\n  extra_args: [--pmc, SQ_WAVES]\n")),
            "rb.yaml:6:16: profiler.extra_args[0]: '--pmc' is set by kprof (use passes.counters "
            "instead)");
  EXPECT_EQ(error(with("profiler:\n  extra_args: [-x, --output-format=csv]\n")),
            "rb.yaml:6:20: profiler.extra_args[1]: '--output-format' is set by kprof (use "
            "profiler.output_format instead)");
  EXPECT_EQ(
      error(with("profiler:\n  extra_args: --log-level info\n")),
      "rb.yaml:6:15: profiler.extra_args: expected a list, got '--log-level info' (write [a, b] or "
      "one '- item' line per element)");
}

TEST_F(Keys, ProfilerAgentIndex) {
  const Runbook rb = load(with("profiler:\n  agent_index: type-relative\n"));
  ASSERT_TRUE(rb.profiler.agent_index.value.has_value());
  EXPECT_EQ(*rb.profiler.agent_index.value, AgentIndex::type_relative);
  EXPECT_EQ(to_string(*rb.profiler.agent_index.value), "type-relative");
  EXPECT_EQ(error(with("profiler:\n  agent_index: type_relative\n")),
            "rb.yaml:6:16: profiler.agent_index: unknown value 'type_relative' (did you mean "
            "'type-relative'?)");
  EXPECT_EQ(error(with("profiler:\n  agent_index: 12345678\n")),
            "rb.yaml:6:16: profiler.agent_index: unknown value '12345678' (use absolute, relative, "
            "type-relative)");
}

// --- target -----------------------------------------------------------------------------------

TEST_F(Keys, TargetArch) {
  const Runbook rb = load(with("target:\n  arch: gfx950\n"));
  EXPECT_EQ(rb.target.arch.value, "gfx950");
  EXPECT_TRUE(rb.target.arch.from_file);
  EXPECT_EQ(strip_dir(error(with("target:\n  arch: gfx90a\n")), m_dir),
            "rb.yaml:6:9: target.arch: no hardware description for 'gfx90a' (did you mean "
            "'gfx942'? known "
            "targets: gfx942, gfx950 in hw)");
  EXPECT_EQ(strip_dir(error(with("target:\n  arch: sm_90\n")), m_dir),
            "rb.yaml:6:9: target.arch: no hardware description for 'sm_90' (known targets: gfx942, "
            "gfx950 "
            "in hw)");
  EXPECT_EQ(error(with("target:\n  arch:\n    - gfx942\n")),
            "rb.yaml:7:5: target.arch: expected a string, got a list (write a single value)");
  EXPECT_EQ(error(with("target:\n  gpu: gfx942\n")),
            "rb.yaml:6:3: unknown key 'target.gpu' (target takes arch)");
}

// --- passes -----------------------------------------------------------------------------------

TEST_F(Keys, TracePass) {
  const Runbook rb = load(with("passes:\n  trace:\n    stats: false\n    markers: true\n"));
  EXPECT_TRUE(rb.passes.trace.enabled.value);
  EXPECT_FALSE(rb.passes.trace.stats.value);
  EXPECT_TRUE(rb.passes.trace.markers.value);
  EXPECT_EQ(rb.passes.trace.markers.pos.line, 8);
  EXPECT_EQ(error(with("passes:\n  trace:\n    enabled: nope\n")),
            "rb.yaml:7:14: passes.trace.enabled: expected true or false, got 'nope' (write true or "
            "false)");
  EXPECT_EQ(error(with("passes:\n  trace:\n    stat: true\n")),
            "rb.yaml:7:5: unknown key 'passes.trace.stat' (did you mean 'stats'?)");
  EXPECT_EQ(error(with("passes:\n  trace:\n    enabled: false\n")),
            "rb.yaml:6:3: passes: the runbook profiles nothing (enable passes.trace or add "
            "passes.counters)");
  EXPECT_EQ(error(with("passes:\n  trace: true\n")),
            "rb.yaml:6:10: passes.trace: expected a map, got 'true' (write its keys indented under "
            "'passes.trace:')");
  EXPECT_EQ(error(with("passes:\n  tracing: {}\n")),
            "rb.yaml:6:3: unknown key 'passes.tracing' (did you mean 'trace'?)");
}

TEST_F(Keys, CountersMetricSetsAndCounters) {
  const Runbook rb =
      load(with("passes:\n  counters:\n    metric_sets: [roofline, memory]\n"
                "    counters:\n      - SQ_WAVES\n      - GRBM_COUNT\n"));
  const CountersPass& c = rb.passes.counters;
  EXPECT_TRUE(c.enabled.value);
  EXPECT_EQ(c.enabled.pos.line, 7);
  ASSERT_EQ(c.metric_sets.value.size(), 2u);
  EXPECT_EQ(c.metric_sets.value[1].value, "memory");
  EXPECT_EQ(c.metric_sets.value[1].pos.line, 7);
  EXPECT_EQ(c.metric_sets.value[1].pos.col, 29);
  ASSERT_EQ(c.counters.value.size(), 2u);
  EXPECT_EQ(c.counters.value[1].value, "GRBM_COUNT");
  EXPECT_EQ(c.counters.value[1].pos.line, 10);
  EXPECT_EQ(c.counters.value[1].pos.col, 9);

  EXPECT_EQ(error(with("passes:\n  counters:\n    counters: [SQ_WAVES, GRBM_COUNT, SQ_WAVES]\n")),
            "rb.yaml:7:38: passes.counters.counters[2]: 'SQ_WAVES' is listed twice (first at line "
            "7; keep one)");
  EXPECT_EQ(
      error(with("passes:\n  counters:\n    counters: [\"SQ_WAVES,GRBM_COUNT\"]\n")),
      "rb.yaml:7:16: passes.counters.counters[0]: 'SQ_WAVES,GRBM_COUNT' holds several names (write "
      "one counter per list item)");
  EXPECT_EQ(
      error(with("passes:\n  counters:\n    metric_sets: [\"\"]\n")),
      "rb.yaml:7:19: passes.counters.metric_sets[0]: empty metric set name (remove the item)");
  EXPECT_EQ(error(with("passes:\n  counters:\n    metric_sets: roofline\n")),
            "rb.yaml:7:18: passes.counters.metric_sets: expected a list, got 'roofline' (write [a, "
            "b] or one "
            "'- item' line per element)");
  EXPECT_EQ(error(with("passes:\n  counters:\n    kernels:\n      include_regex: x\n")),
            "rb.yaml:7:5: passes.counters: names no metric_sets and no counters (add metric_sets: "
            "[roofline] "
            "or counters: [...], or remove passes.counters)");
  EXPECT_EQ(error(with("passes:\n  counters:\n    metrics: [roofline]\n")),
            "rb.yaml:7:5: unknown key 'passes.counters.metrics' (did you mean 'metric_sets'?)");
}

TEST_F(Keys, CountersPins) {
  const Runbook rb =
      load(with("passes:\n  counters:\n    pins:\n      - [TCC_HIT, TCC_MISS]\n"
                "      - [SQ_WAVES, SQ_BUSY_CYCLES, GRBM_COUNT]\n"));
  ASSERT_EQ(rb.passes.counters.pins.value.size(), 2u);
  EXPECT_EQ(rb.passes.counters.pins.value[1].value.size(), 3u);
  EXPECT_EQ(rb.passes.counters.pins.value[1].value[2].value, "GRBM_COUNT");
  EXPECT_EQ(rb.passes.counters.pins.value[1].pos.line, 9);
  EXPECT_EQ(rb.passes.counters.pins.value[1].pos.col, 9);
  EXPECT_EQ(error(with("passes:\n  counters:\n    pins: [[TCC_HIT]]\n")),
            "rb.yaml:7:12: passes.counters.pins[0]: a pin needs at least two counters (a pin keeps "
            "counters "
            "in one pass; list two or more, or remove it)");
  EXPECT_EQ(errors(with("passes:\n  counters:\n    pins: [TCC_HIT, TCC_MISS]\n")),
            (std::vector<std::string>{"rb.yaml:7:12: passes.counters.pins[0]: expected a list of "
                                      "counters, got 'TCC_HIT' (write "
                                      "each pin as [COUNTER_A, COUNTER_B])",
                                      "rb.yaml:7:21: passes.counters.pins[1]: expected a list of "
                                      "counters, got 'TCC_MISS' (write "
                                      "each pin as [COUNTER_A, COUNTER_B])"}));
  EXPECT_EQ(
      error(with("passes:\n  counters:\n    pins: [[A, A]]\n")),
      "rb.yaml:7:16: passes.counters.pins[0][1]: 'A' is listed twice (first at line 7; keep one)");
}

TEST_F(Keys, CountersKernelRegexes) {
  const Runbook rb =
      load(with("passes:\n  counters:\n    counters: [SQ_WAVES]\n    kernels:\n"
                "      include_regex: \"fused_moe|gemm\"\n      exclude_regex: ^void\\b\n"));
  const KernelSelection& k = rb.passes.counters.kernels;
  EXPECT_EQ(k.include_regex.value, std::optional<std::string>("fused_moe|gemm"));
  EXPECT_EQ(k.include_regex.pos.line, 9);
  EXPECT_EQ(k.include_regex.pos.col, 22);
  EXPECT_EQ(k.exclude_regex.value, std::optional<std::string>("^void\\b"));
  EXPECT_FALSE(k.from_trace.has_value());
  const std::string head = with("passes:\n  counters:\n    counters: [SQ_WAVES]\n    kernels:\n");
  EXPECT_EQ(
      error(head + "      include_regex: \"fused_moe(\"\n"),
      "rb.yaml:9:22: passes.counters.kernels.include_regex: invalid regular expression: unbalanced "
      "parenthesis (rocprofv3 uses ECMAScript std::regex syntax; escape literal characters with "
      "'\\')");
  EXPECT_EQ(error(head + "      exclude_regex: \"[abc\"\n"),
            "rb.yaml:9:22: passes.counters.kernels.exclude_regex: invalid regular expression: "
            "unbalanced '[' "
            "(rocprofv3 uses ECMAScript std::regex syntax; escape literal characters with '\\')");
  EXPECT_EQ(error(head + "      include_regex: \"*moe\"\n"),
            "rb.yaml:9:22: passes.counters.kernels.include_regex: invalid regular expression: '*', "
            "'+', '?' "
            "or '{' repeats nothing (rocprofv3 uses ECMAScript std::regex syntax; escape literal "
            "characters "
            "with '\\')");
  for (const char* fine : {"(?:moe|gemm)_kernel", "[*+?]", "a\\*b", "x|y?", "(a)+"}) {
    EXPECT_EQ(load(head + "      include_regex: '" + fine + "'\n")
                  .passes.counters.kernels.include_regex.value,
              std::optional<std::string>(fine));
  }
  EXPECT_EQ(error(head + "      include_regex: \"moe|+gemm\"\n"),
            "rb.yaml:9:22: passes.counters.kernels.include_regex: invalid regular expression: '*', "
            "'+', '?' "
            "or '{' repeats nothing (rocprofv3 uses ECMAScript std::regex syntax; escape literal "
            "characters "
            "with '\\')");
  EXPECT_EQ(
      error(head + "      include: moe\n"),
      "rb.yaml:9:7: unknown key 'passes.counters.kernels.include' (did you mean 'include_regex'?)");
}

TEST_F(Keys, CountersFromTrace) {
  const std::string head = with("passes:\n  counters:\n    counters: [SQ_WAVES]\n    kernels:\n");
  const Runbook rb = load(head + "      from_trace: {top: 5, by: calls}\n");
  ASSERT_TRUE(rb.passes.counters.kernels.from_trace.has_value());
  const FromTrace& ft = *rb.passes.counters.kernels.from_trace;
  EXPECT_EQ(ft.top.value, 5);
  EXPECT_EQ(ft.by.value, RankBy::calls);
  EXPECT_EQ(ft.pos.line, 9);
  EXPECT_EQ(ft.pos.col, 19);
  EXPECT_EQ(ft.top.pos.col, 25);
  const Runbook by_default = load(head + "      from_trace: {top: 3}\n");
  EXPECT_EQ(by_default.passes.counters.kernels.from_trace->by.value, RankBy::total_duration);
  EXPECT_FALSE(by_default.passes.counters.kernels.from_trace->by.from_file);

  EXPECT_EQ(error(head + "      from_trace: {by: calls}\n"),
            "rb.yaml:9:19: missing key 'passes.counters.kernels.from_trace.top' (add e.g. top: 10 "
            "(how many "
            "kernels to keep))");
  EXPECT_EQ(
      error(head + "      from_trace: {top: 0}\n"),
      "rb.yaml:9:25: passes.counters.kernels.from_trace.top: 0 is out of range (use 1 to 10000)");
  EXPECT_EQ(
      error(head + "      from_trace: {top: 5, by: duration}\n"),
      "rb.yaml:9:32: passes.counters.kernels.from_trace.by: unknown value 'duration' (did you mean "
      "'total_duration'?)");
  EXPECT_EQ(error(with("passes:\n  trace: {enabled: false}\n  counters:\n    counters: [SQ_WAVES]\n"
                       "    kernels:\n      from_trace: {top: 5}\n")),
            "rb.yaml:10:19: passes.counters.kernels.from_trace: needs the trace pass (set "
            "passes.trace.enabled: true, or select kernels with include_regex)");
}

TEST_F(Keys, CountersReplayAndMinSamples) {
  const std::string head = with("passes:\n  counters:\n    counters: [SQ_WAVES]\n");
  const Runbook by_default = load(head);
  EXPECT_EQ(by_default.passes.counters.replay.value, Replay::automatic);
  EXPECT_FALSE(by_default.passes.counters.replay.from_file);
  EXPECT_EQ(by_default.passes.counters.min_samples.value, 30);
  const Runbook rb = load(head + "    replay: rotate\n    min_samples: 12\n");
  EXPECT_EQ(rb.passes.counters.replay.value, Replay::rotate);
  EXPECT_EQ(rb.passes.counters.replay.pos.line, 8);
  EXPECT_EQ(rb.passes.counters.replay.pos.col, 13);
  EXPECT_EQ(rb.passes.counters.min_samples.value, 12);
  EXPECT_EQ(to_string(rb.passes.counters.replay.value), "rotate");
  EXPECT_EQ(load(head + "    replay: application\n").passes.counters.replay.value,
            Replay::application);
  EXPECT_EQ(error(head + "    replay: rotation\n"),
            "rb.yaml:8:13: passes.counters.replay: unknown value 'rotation' (did you mean "
            "'rotate'?)");
  EXPECT_EQ(error(head + "    replay: kernel\n"),
            "rb.yaml:8:13: passes.counters.replay: 'kernel' is not supported: rocprofv3's kernel "
            "replay is a beta that ROCm 7.0's rocprofv3 lacks, and it replays neither HIP graph "
            "launches nor a workload spread over processes (vLLM's EngineCore) (write replay: "
            "rotate (every group in one run) or replay: application)");
  EXPECT_EQ(error(head + "    min_samples: 0\n"),
            "rb.yaml:8:18: passes.counters.min_samples: 0 is out of range (use 1 to 100000)");
  EXPECT_EQ(error(head + "    replay: application\n    min_samples: 40\n"),
            "rb.yaml:9:18: passes.counters.min_samples: used only when counter groups rotate "
            "(remove min_samples, or write replay: rotate (or auto))");
  EXPECT_EQ(error(head + "    replay: rotate\n    iteration_range: \"[1-2]\"\n"),
            "rb.yaml:9:22: passes.counters.iteration_range: cannot be combined with replay: "
            "rotate (remove iteration_range, or write replay: application)");
  EXPECT_EQ(error(with("passes:\n  trace: {enabled: false}\n  counters:\n    counters: [SQ_WAVES]\n"
                       "    replay: rotate\n")),
            "rb.yaml:9:13: passes.counters.replay: rotate needs the trace pass (set "
            "passes.trace.enabled: true, or write replay: application)");
}

TEST_F(Keys, WorkloadRepeatOption) {
  EXPECT_FALSE(load(k_minimal).workload.repeat_option.value.has_value());
  const Runbook rb = load(with("  repeat_option: --repeat\n"));
  EXPECT_EQ(rb.workload.repeat_option.value, std::optional<std::string>("--repeat"));
  EXPECT_EQ(rb.workload.repeat_option.pos.col, 18);
  EXPECT_EQ(error(with("  repeat_option: repeat\n")),
            "rb.yaml:5:18: workload.repeat_option: 'repeat' is not an option name (write the "
            "option the workload takes before the repeat count, e.g. --repeat)");
  EXPECT_EQ(error(with("  repeat_option: \"--repeat=\"\n")),
            "rb.yaml:5:18: workload.repeat_option: '--repeat=' is not an option name (write the "
            "option the workload takes before the repeat count, e.g. --repeat)");
}

TEST_F(Keys, CountersIterationRange) {
  const std::string head = with("passes:\n  counters:\n    counters: [SQ_WAVES]\n");
  const Runbook rb = load(head + "    iteration_range: \"[1-2],[5]\"\n");
  EXPECT_EQ(rb.passes.counters.iteration_range.value, std::optional<std::string>("[1-2],[5]"));
  EXPECT_EQ(rb.passes.counters.iteration_range.pos.line, 8);
  EXPECT_EQ(load(head + "    iteration_range: 7\n").passes.counters.iteration_range.value,
            std::optional<std::string>("7"));
  const std::string hint = " (write e.g. \"[1-2],[5]\": 1-based iterations, A-B inclusive)";
  EXPECT_EQ(
      error(head + "    iteration_range: \"[2-1]\"\n"),
      "rb.yaml:8:22: passes.counters.iteration_range: range '2-1' ends before it starts" + hint);
  EXPECT_EQ(error(head + "    iteration_range: \"[0-3]\"\n"),
            "rb.yaml:8:22: passes.counters.iteration_range: iterations count from 1, not 0" + hint);
  EXPECT_EQ(error(head + "    iteration_range: \"[1-x]\"\n"),
            "rb.yaml:8:22: passes.counters.iteration_range: '1-x' is not a range A-B" + hint);
  EXPECT_EQ(
      error(head + "    iteration_range: first\n"),
      "rb.yaml:8:22: passes.counters.iteration_range: 'first' is not an iteration number" + hint);
  EXPECT_EQ(error(head + "    iteration_range: \"[]\"\n"),
            "rb.yaml:8:22: passes.counters.iteration_range: names no iteration" + hint);
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
