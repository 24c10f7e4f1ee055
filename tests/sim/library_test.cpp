// Unit tests of the double's library pieces: argparse-like CLI, counter-list parsing, placeholders,
// name truncation, model arithmetic, iteration ranges and CSV number formats.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/hw/target.hpp"
#include "core/sim/counters.hpp"
#include "core/sim/format.hpp"
#include "core/sim/model.hpp"
#include "core/sim/options.hpp"
#include "core/sim/stream.hpp"

namespace kprof::sim {
namespace {

TEST(SimOptions, SplitsAtFirstDoubleDashAndKeepsTheRestForTheApp) {
  const Options o =
      parse_options({"--kernel-trace", "-d", "out", "--", "python3", "x.py", "--", "-v"});
  EXPECT_TRUE(o.cli.kernel_trace);
  EXPECT_EQ(o.cli.output_directory.value(), "out");
  EXPECT_EQ(o.app, (std::vector<std::string>{"python3", "x.py", "--", "-v"}));
}

TEST(SimOptions, RejectsUnknownOptionsLikeArgparse) {
  try {
    parse_options({"--bogus", "x", "--kernel-trace", "--", "true"});
    FAIL() << "accepted --bogus";
  } catch (const CliFailure& f) {
    EXPECT_EQ(f.exit_code(), 2);
    EXPECT_NE(f.text().find("rocprofv3: error: unrecognized arguments: --bogus x\n"),
              std::string::npos);
    EXPECT_EQ(f.text().rfind("usage: rocprofv3", 0), 0u);
  }
}

TEST(SimOptions, NoAbbreviationsAreAccepted) {
  EXPECT_THROW(parse_options({"--kernel-tr", "--", "true"}), CliFailure);
}

TEST(SimOptions, BooleanOptionsTakeOptionalValues) {
  EXPECT_FALSE(parse_options({"--kernel-trace=false", "--", "a"}).cli.kernel_trace);
  EXPECT_FALSE(parse_options({"--kernel-trace", "off", "--", "a"}).cli.kernel_trace);
  EXPECT_TRUE(parse_options({"--kernel-trace", "YES", "--", "a"}).cli.kernel_trace);
  EXPECT_TRUE(parse_options({"--stats", "--kernel-trace", "--", "a"}).cli.stats);
  try {
    parse_options({"--kernel-trace", "./app"});
    FAIL();
  } catch (const CliFailure& f) {
    EXPECT_EQ(f.exit_code(), 1);
    EXPECT_NE(f.text().find("ValueError: invalid truth value ./app (type=str)"), std::string::npos);
  }
}

TEST(SimOptions, PmcTakesSpaceAndCommaListsSortedAndDeduplicated) {
  const Options o = parse_options(
      {"--pmc", "SQ_WAVES,GRBM_COUNT", "FETCH_SIZE", "SQ_WAVES", "-d", "x", "--", "a"});
  EXPECT_EQ(o.cli.pmc, (std::vector<std::string>{"FETCH_SIZE", "GRBM_COUNT", "SQ_WAVES"}));
  EXPECT_EQ(o.cli.output_directory.value(), "x");
}

TEST(SimOptions, ChoicesAndMissingValuesAreArgparseErrors) {
  try {
    parse_options({"-A", "sideways", "--", "a"});
    FAIL();
  } catch (const CliFailure& f) {
    EXPECT_EQ(f.exit_code(), 2);
    EXPECT_NE(f.text().find("argument -A/--agent-index: invalid choice: 'sideways' (choose from "
                            "'absolute', 'relative', 'type-relative')"),
              std::string::npos);
  }
  try {
    parse_options({"-o"});
    FAIL();
  } catch (const CliFailure& f) {
    EXPECT_NE(f.text().find("argument -o/--output-file: expected one argument"), std::string::npos);
  }
  EXPECT_EQ(parse_options({"-f", "CSV", "rocpd", "--", "a"}).cli.output_format,
            (std::vector<std::string>{"csv", "rocpd"}));
}

TEST(SimOptions, LowercasePIsTheCollectionPeriodMigrationError) {
  try {
    parse_options({"-p", "1:1:1", "--", "a"});
    FAIL();
  } catch (const CliFailure& f) {
    EXPECT_EQ(f.exit_code(), 1);
    EXPECT_NE(f.text().find("upper-case -P"), std::string::npos);
  }
}

TEST(SimFormat, CounterValuesFollowCsvHpp) {
  EXPECT_EQ(format_counter_value(16384), "16384.000000");
  EXPECT_EQ(format_counter_value(0), "0.00000000e+00");
  EXPECT_EQ(format_counter_value(0.5), "5.00000000e-01");
  EXPECT_EQ(format_percentage(85.154), "85.15");
  EXPECT_EQ(format_percentage(0.647), "0.6470");
  EXPECT_EQ(format_stats_double(0), "0.00000000e+00");
  EXPECT_EQ(format_stats_double(2432.2406833), "2432.240683");
}

TEST(SimFormat, PlaceholdersExpandHostnameAndPid) {
  const std::string h = hostname();
  EXPECT_EQ(expand_placeholders("%hostname%/%pid%", 4242, 1), h + "/4242");
  EXPECT_EQ(expand_placeholders("run_{pid}_%p", 7, 1), "run_7_7");
  EXPECT_EQ(expand_placeholders("%unknown%", 7, 1), "%unknown%");
}

TEST(SimModel, TruncatedNamesDropReturnTypeNamespacesTemplatesAndArguments) {
  EXPECT_EQ(truncate_kernel_name(
                "void (anonymous namespace)::addition_kernel<float>(float*, float const*, int)"),
            "addition_kernel");
  EXPECT_EQ(truncate_kernel_name("fused_moe_kernel"), "fused_moe_kernel");
  EXPECT_EQ(
      truncate_kernel_name("void vllm::moe::moe_sum_kernel<c10::BFloat16, 8>(c10::BFloat16*, int)"),
      "moe_sum_kernel");
}

TEST(SimModel, ArithmeticStringsEvaluate) {
  EXPECT_DOUBLE_EQ(eval_arithmetic("2*8*2048*1536"), 50331648.0);
  EXPECT_DOUBLE_EQ(eval_arithmetic("128*(4096+512)*2"), 1179648.0);
  EXPECT_DOUBLE_EQ(eval_arithmetic("151936/4"), 37984.0);
  EXPECT_THROW(eval_arithmetic("2**3"), std::exception);
}

// The Qwen3 model as shipped: 64 output tokens (63 decode steps of 847 dispatches, 2 in the
// warm-up); asked for 32 tokens and a 5-token warm-up, 31 and 4.
TEST(SimModel, DecodeStepsFollowTheOutputTokensAsked) {
  const Model m = load_model_named("qwen3-30b-a3b-mi300x");
  const auto count = [](const std::vector<PlannedDispatch>& plan, bool region) {
    size_t n = 0;
    for (const auto& d : plan) n += d.in_region == region && d.token_block >= 0;
    return n;
  };
  EXPECT_EQ(count(m.dispatches, true), 63u * 847);
  EXPECT_EQ(count(m.dispatches, false), 2u * 847);
  const auto asked = with_output_tokens(m.dispatches, 5, 32);
  EXPECT_EQ(count(asked, true), 31u * 847);
  EXPECT_EQ(count(asked, false), 4u * 847);
  EXPECT_EQ(asked.size(), m.dispatches.size() - 32u * 847 + 2u * 847);
  // Everything else as written; 0 keeps the blocks as written.
  EXPECT_EQ(with_output_tokens(m.dispatches, 0, 0).size(), m.dispatches.size());
  EXPECT_EQ(with_output_tokens(m.dispatches, 3, 1).size(), m.dispatches.size() - 63u * 847);
}

// A repeat block's body is read once and copied; one that opens a per-token block of its own is
// read per repetition, so that each repetition's block has its own number. Expected rows derived
// by hand from the YAML: 2 x (a, b) with gap_before on each first, then 3 repetitions of a
// per-token block (numbered 0, 1, 2), each holding 2 decode steps of c.
TEST(SimModel, RepeatsCopyTheirBodyAndNumberNestedTokenBlocksPerRepetition) {
  // The model names its node (`system`), a file beside it: the shipped doc node, copied.
  const auto dir =
      std::filesystem::temp_directory_path() / ("kprof-sim-model-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::filesystem::path(KPROF_SOURCE_DIR) / "configs/sim/doc-node.yaml",
                             dir / "doc-node.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  const auto path = dir / "repeats.yaml";
  {
    std::ofstream f(path);
    f << "name: repeats\narch: gfx942\nsystem: doc-node\nkernels:\n"
         "  - {key: a, name: \"a_kernel()\", workgroup: [64, 1, 1]}\n"
         "  - {key: b, name: \"b_kernel()\", workgroup: [64, 1, 1]}\n"
         "  - {key: c, name: \"c_kernel()\", workgroup: [64, 1, 1]}\n"
         "sequence:\n"
         "  - repeat: 2\n"
         "    gap_before_ns: 7000\n"
         "    sequence:\n"
         "      - {kernel: a, grid: [128], duration_ns: 100}\n"
         "      - {kernel: b, grid: [256], duration_ns: 200, count: 2}\n"
         "  - repeat: 3\n"
         "    sequence:\n"
         "      - repeat: 2\n"
         "        per_output_token: true\n"
         "        sequence:\n"
         "          - {kernel: c, grid: [64], duration_ns: 300}\n";
  }
  const Model m = load_model(path);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(m.dispatches.size(), 12u);
  const auto sym = [&](size_t i) {
    return m.symbols[static_cast<size_t>(m.dispatches[i].symbol)].name;
  };
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(sym(3 * r), "a_kernel()");
    EXPECT_EQ(m.dispatches[3 * r].gap_ns, 7000);
    EXPECT_EQ(m.dispatches[3 * r].grid[0], 128u);
    EXPECT_EQ(sym(3 * r + 1), "b_kernel()");
    EXPECT_EQ(sym(3 * r + 2), "b_kernel()");
    EXPECT_EQ(m.dispatches[3 * r + 2].duration_ns, 200);
    EXPECT_EQ(m.dispatches[3 * r + 1].token_block, -1);
  }
  for (size_t i = 6; i < 12; ++i) {
    EXPECT_EQ(sym(i), "c_kernel()");
    EXPECT_EQ(m.dispatches[i].token_block, static_cast<int>((i - 6) / 2)) << i;
    EXPECT_EQ(m.dispatches[i].token_step, static_cast<int>((i - 6) % 2)) << i;
  }
}

TEST(SimStream, IterationRangesParseLikeTheTool) {
  const auto r = parse_iteration_range({"[1-2],[5, [7-8]]"});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], std::make_pair(uint64_t(1), uint64_t(2)));
  EXPECT_EQ(r[1], std::make_pair(uint64_t(5), uint64_t(5)));
  EXPECT_EQ(r[2], std::make_pair(uint64_t(7), uint64_t(8)));
  try {
    parse_iteration_range({"[1-x]"});
    FAIL();
  } catch (const CliFailure& f) {
    EXPECT_NE(f.text().find("bad range format for '1-x'. Expected [A-B] where A and B are numbers"),
              std::string::npos);
  }
}

// A three-dispatch model built in code: warm-up kernel outside the region, an optional lazy-init
// kernel, and a GEMM-like kernel.
Model small_model() {
  Model m;
  m.name = "small";
  m.duration_jitter = 0;
  m.reorder_probability = 0;
  m.correlation_skip_probability = 0;
  m.startup_ns = 0;
  m.counter_stretch = 2.0;
  m.counter_overhead_ns = 100;
  m.counter_gap_ns = 0;
  KernelSymbol a;
  a.key = "warm";
  a.name = "warm_kernel";
  a.kernel_id = 5;
  KernelSymbol f = a;
  f.key = "fill";
  f.name = "__amd_rocclr_fillBufferAligned";
  f.kernel_id = 6;
  KernelSymbol g = a;
  g.key = "gemm";
  g.name = "void gemm<bf16>(int, int)";
  g.kernel_id = 7;
  g.workgroup = {256, 1, 1};
  g.mfma = "bf16";
  m.symbols = {a, f, g};
  PlannedDispatch w;
  w.symbol = 0;
  w.duration_ns = 1000;
  w.gap_ns = 1000;
  w.in_region = false;
  PlannedDispatch o = w;
  o.symbol = 1;
  o.in_region = true;
  o.optional = true;
  PlannedDispatch d = o;
  d.symbol = 2;
  d.optional = false;
  d.grid = {256 * 10, 1, 1};
  d.flops = 2.0 * 8 * 2048 * 1536;
  d.bytes_read = 8.0 * 2048 * 1536 * 2;
  d.bytes_written = 8.0 * 1536 * 2;
  m.dispatches = {w, o, d, d};
  return m;
}

TEST(SimStream, OptionalKernelsGoMissingOrRepeatOnlyWhenPerturbed) {
  Model m = small_model();
  StreamSettings st;
  st.selected_regions = true;
  EXPECT_EQ(make_stream(m, m.dispatches, st).records.size(), 3u);
  m.missing_kernel_probability = 1.0;
  EXPECT_EQ(make_stream(m, m.dispatches, st).records.size(), 3u);  // not perturbed
  st.perturb = true;
  EXPECT_EQ(make_stream(m, m.dispatches, st).records.size(), 2u);
  m.missing_kernel_probability = 0;
  m.extra_kernel_probability = 1.0;
  const Stream s = make_stream(m, m.dispatches, st);
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_EQ(s.records[0].plan->symbol, 1);
  EXPECT_EQ(s.records[1].plan->symbol, 1);
}

TEST(SimStream, SelectedRegionsHideTheWarmupButItsIdsAreConsumed) {
  const Model m = small_model();
  StreamSettings st;
  st.clock_base_ns = 1000000;
  const Stream all = make_stream(m, m.dispatches, st);
  ASSERT_EQ(all.records.size(), 4u);
  EXPECT_EQ(all.records[0].start, 1000000u + 1000u);
  EXPECT_EQ(all.records[0].end, 1000000u + 2000u);
  st.selected_regions = true;
  const Stream region = make_stream(m, m.dispatches, st);
  ASSERT_EQ(region.records.size(), 3u);
  EXPECT_EQ(region.records[0].dispatch_id, 2u);
  EXPECT_EQ(region.dispatches_total, 4u);
}

TEST(SimStream, CounterPassesStretchOnlyIncludedKernelsAndCountIterationsPerKernel) {
  const Model m = small_model();
  StreamSettings st;
  st.counter_pass = true;
  st.include_regex = "gemm";
  st.iteration_range = {"[2]"};
  const Stream s = make_stream(m, m.dispatches, st);
  ASSERT_EQ(s.records.size(), 4u);
  EXPECT_FALSE(s.records[1].collect);  // fill: excluded by the regex, duration unchanged
  EXPECT_EQ(s.records[1].end - s.records[1].start, 1000u);
  EXPECT_FALSE(s.records[2].collect);  // first gemm: iteration 1
  EXPECT_EQ(s.records[2].end - s.records[2].start, 1000u);
  EXPECT_TRUE(s.records[3].collect);  // second gemm: iteration 2, serialized: 2 x 1000 + 100
  EXPECT_EQ(s.records[3].end - s.records[3].start, 2100u);
}

TEST(SimCounters, BaseCountersMapBackToTheModelsFlopsAndBytes) {
  const hw::Target target = hw::Target::load_arch("gfx942");
  const Model m = small_model();
  StreamSettings st;
  st.counter_pass = true;
  const Stream s = make_stream(m, m.dispatches, st);
  const DispatchRecord& r = s.records[2];
  const CounterModel cm(target, m, 1);
  EXPECT_DOUBLE_EQ(cm.value(r, "SQ_WAVES").value(), 10 * 4);  // 10 workgroups of 4 wave64
  EXPECT_DOUBLE_EQ(cm.value(r, "SQ_INSTS_VALU_MFMA_MOPS_BF16").value(),
                   2.0 * 8 * 2048 * 1536 / 512);
  EXPECT_DOUBLE_EQ(cm.value(r, "SQ_INSTS_VALU_MFMA_MOPS_F16").value(), 0);
  EXPECT_NEAR(cm.value(r, "FETCH_SIZE").value(), 8.0 * 2048 * 1536 * 2 / 1024,
              8.0 * 2048 * 1536 * 2 / 1024 * 0.01);
  EXPECT_NEAR(cm.value(r, "WRITE_SIZE").value(), 8.0 * 1536 * 2 / 1024,
              8.0 * 1536 * 2 / 1024 * 0.02);
  const double cycles = double(r.end - r.start) * m.clock_mhz / 1000.0;
  EXPECT_NEAR(cm.value(r, "GRBM_GUI_ACTIVE").value(), cycles * 8, cycles * 8 * 0.01);
  // Same seed, same dispatch: the same value (noise is a function of both, not of call order).
  EXPECT_EQ(cm.value(r, "TCC_HIT").value(), CounterModel(target, m, 1).value(r, "TCC_HIT").value());
}

TEST(SimCounters, FetchAndWriteSizeTogetherOversubscribeTcc) {
  const hw::Target target = hw::Target::load_arch("gfx942");
  const CounterRequest both = resolve_counters(target, {"FETCH_SIZE", "WRITE_SIZE"});
  EXPECT_FALSE(both.occupancy.fits());
  EXPECT_EQ(both.occupancy.over_blocks, (std::vector<std::string>{"TCC"}));
  const CounterRequest one = resolve_counters(target, {"FETCH_SIZE", "SQ_WAVES", "NOT_A_COUNTER"});
  EXPECT_TRUE(one.occupancy.fits());
  EXPECT_EQ(one.missing, (std::vector<std::string>{"NOT_A_COUNTER"}));
}

}  // namespace
}  // namespace kprof::sim
