#include "core/plan/rocprof_command.hpp"

#include "core/base/text.hpp"

#include <gtest/gtest.h>

namespace kprof::plan {
namespace {

TEST(RocprofCommand, MinimalPass) {
  PassCommand c;
  c.counters = {"SQ_WAVES", "FETCH_SIZE"};
  c.output_dir = "/runs/q/pass-2";
  c.output_name = "counters";
  c.app = {"python3", "serve.py", "--tokens", "128"};
  EXPECT_EQ(rocprof_argv(c),
            (std::vector<std::string>{"rocprofv3", "--pmc", "SQ_WAVES", "FETCH_SIZE", "-d",
                                      "/runs/q/pass-2", "-o", "counters", "-f", "csv", "--",
                                      "python3", "serve.py", "--tokens", "128"}));
}

TEST(RocprofCommand, EveryOption) {
  PassCommand c;
  c.rocprofv3 = "/opt/rocm/bin/rocprofv3";
  c.counters = {"TCC_HIT_sum"};
  c.output_dir = "out";
  c.output_name = "p1";
  c.output_format = "rocpd";
  c.kernel_include_regex = "gemm|attn";
  c.kernel_exclude_regex = "copy";
  c.kernel_iteration_range = "[1-2]";
  c.selected_regions = true;
  c.truncate_kernels = true;
  c.agent_index = "absolute";
  c.extra_args = {"--log-level", "warning"};
  c.app = {"/bin/sh", "-c", "./run.sh 'a b'"};
  auto argv = rocprof_argv(c);
  EXPECT_EQ(argv, (std::vector<std::string>{"/opt/rocm/bin/rocprofv3",
                                            "--pmc",
                                            "TCC_HIT_sum",
                                            "-d",
                                            "out",
                                            "-o",
                                            "p1",
                                            "-f",
                                            "rocpd",
                                            "--kernel-include-regex",
                                            "gemm|attn",
                                            "--kernel-exclude-regex",
                                            "copy",
                                            "--kernel-iteration-range",
                                            "[1-2]",
                                            "--selected-regions",
                                            "--truncate-kernels",
                                            "--agent-index",
                                            "absolute",
                                            "--log-level",
                                            "warning",
                                            "--",
                                            "/bin/sh",
                                            "-c",
                                            "./run.sh 'a b'"}));
  EXPECT_EQ(
      shell_join({"rocprofv3", "--pmc", "A", "--kernel-include-regex", "gemm|attn", "--", "it's"}),
      "rocprofv3 --pmc A --kernel-include-regex 'gemm|attn' -- 'it'\\''s'");
}

// The trace pass is built from its mode, not from a counter argv with --pmc swapped out; kernel
// filters are never written on it (they thin counter collection only).
TEST(RocprofCommand, TracePass) {
  PassCommand c;
  c.mode = PassMode::trace;
  c.stats = true;
  c.marker_trace = true;
  c.output_dir = "/runs/q/pass-0";
  c.output_name = "%hostname%/%pid%";
  c.output_format = "rocpd";
  c.kernel_include_regex = "gemm";
  c.selected_regions = true;
  c.app = {"python3", "g.py"};
  EXPECT_EQ(rocprof_argv(c),
            (std::vector<std::string>{"rocprofv3", "--kernel-trace", "--stats", "--marker-trace",
                                      "-d", "/runs/q/pass-0", "-o", "%hostname%/%pid%", "-f",
                                      "rocpd", "--selected-regions", "--", "python3", "g.py"}));
}

// replay: kernel: one --pmc per group, then both flags rocprofv3 requires for kernel replay
// (using-kernel-replay-rocprofv3.rst); the groups stay in one run.
TEST(RocprofCommand, KernelReplayPassGivesOnePmcPerGroupAndBothFlags) {
  PassCommand c;
  c.replay_groups = {{"SQ_WAVES", "GRBM_COUNT"}, {"GRBM_GUI_ACTIVE"}};
  c.output_dir = "/runs/q/pass-1";
  c.output_name = "%hostname%/%pid%";
  c.kernel_include_regex = "fused_moe";
  c.app = {"python3", "g.py"};
  EXPECT_EQ(rocprof_argv(c), (std::vector<std::string>{"rocprofv3",
                                                       "--pmc",
                                                       "SQ_WAVES",
                                                       "GRBM_COUNT",
                                                       "--pmc",
                                                       "GRBM_GUI_ACTIVE",
                                                       "--replay-mode",
                                                       "kernel",
                                                       "--kernel-replay-beta-enabled",
                                                       "-d",
                                                       "/runs/q/pass-1",
                                                       "-o",
                                                       "%hostname%/%pid%",
                                                       "-f",
                                                       "csv",
                                                       "--kernel-include-regex",
                                                       "fused_moe",
                                                       "--",
                                                       "python3",
                                                       "g.py"}));
}

}  // namespace
}  // namespace kprof::plan
