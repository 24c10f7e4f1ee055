// Runbook schema v1 keys of `profiler`, `target` and `passes` (trace, counters: metric sets, pins,
// kernel regexes, from_trace, replay, iteration range), accepted and rejected (keys_test.cpp).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/runbook/keys_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;

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

// The backend's name is kept as written; core/exec's registry checks it
// (tests/exec/registered_names_test.cpp).
TEST_F(Keys, ProfilerBackend) {
  EXPECT_EQ(load(k_minimal).profiler.backend.value, "rocprofv3");
  EXPECT_FALSE(load(k_minimal).profiler.backend.from_file);
  const Runbook rb = load(with("profiler:\n  backend: ncu\n"));
  EXPECT_EQ(rb.profiler.backend.value, "ncu");
  EXPECT_EQ(rb.profiler.backend.pos.line, 6);
  EXPECT_EQ(rb.profiler.backend.pos.col, 12);
  EXPECT_EQ(error(with("profiler:\n  backend: \"\"\n")),
            "rb.yaml:6:12: profiler.backend: '' is not a backend name (remove the key to use "
            "rocprofv3)");
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
  // kernel replay is checked against the installed rocprofv3 and the workload at plan time.
  EXPECT_EQ(load(head + "    replay: kernel\n").passes.counters.replay.value, Replay::kernel);
  EXPECT_EQ(error(head + "    replay: kernel\n    min_samples: 40\n"),
            "rb.yaml:9:18: passes.counters.min_samples: used only when counter groups rotate "
            "(remove min_samples, or write replay: rotate (or auto))");
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

}  // namespace
}  // namespace kprof::runbook::testing
