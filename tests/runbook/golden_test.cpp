// `kprof validate`'s normalised view of the shipped Qwen3 runbooks, pinned in
// tests/data/runbooks/golden/<name>.normalized. The runbooks' folder is written there as
// <RUNBOOKS>, the file's digest as <SHA256>, and the spaces before each "# " comment as two. After
// a deliberate change to a runbook or to the view, regenerate with KPROF_UPDATE_GOLDEN=1 and read
// the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "core/base/sha256.hpp"
#include "core/runbook/normalized.hpp"
#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

void check_golden(const std::string& name) {
  const fs::path runbook = fs::path(KPROF_SOURCE_DIR) / "runbooks" / (name + ".yaml");
  const fs::path golden =
      fs::path(KPROF_TEST_DATA) / "runbooks" / "golden" / (name + ".normalized");
  const Runbook rb = load_runbook(runbook);
  EXPECT_EQ(rb.sha256, sha256_file(runbook));
  std::string view = format_normalized(rb);
  view = replace_all(view, rb.sha256, "<SHA256>");
  view = replace_all(view, rb.dir.string(), "<RUNBOOKS>");
  // Comments are aligned after the value, so their column depends on the checkout's path length.
  view = std::regex_replace(view, std::regex(" +# "), "  # ");
  if (std::getenv("KPROF_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << view;
  EXPECT_EQ(view, read_text(golden));
}

TEST(Golden, Qwen3Mi300xRunbook) {
  check_golden("qwen3-30b-a3b-mi300x");
  const Runbook rb =
      load_runbook(fs::path(KPROF_SOURCE_DIR) / "runbooks" / "qwen3-30b-a3b-mi300x.yaml");
  EXPECT_EQ(rb.target.arch.value, "gfx942");
  EXPECT_EQ(rb.profiler.output_format.value, OutputFormat::csv);
  EXPECT_TRUE(rb.profiler.selected_regions.value);
  ASSERT_EQ(rb.passes.counters.metric_sets.value.size(), 1u);
  EXPECT_EQ(rb.passes.counters.metric_sets.value[0].value, "roofline");
  EXPECT_EQ(rb.passes.counters.kernels.include_regex.value,
            std::optional<std::string>("fused_moe_kernel"));
  EXPECT_EQ(rb.analysis.layers.value, std::optional<int>(48));
  EXPECT_EQ(rb.analysis.output_tokens.value, std::optional<int>(64));
  EXPECT_FALSE(rb.sim.present);
}

TEST(Golden, Qwen3SimRunbook) {
  check_golden("qwen3-30b-a3b-sim");
  const Runbook rb =
      load_runbook(fs::path(KPROF_SOURCE_DIR) / "runbooks" / "qwen3-30b-a3b-sim.yaml");
  EXPECT_TRUE(rb.sim.present);
  EXPECT_EQ(rb.sim.model.value, "qwen3-30b-a3b-mi300x");
  EXPECT_EQ(rb.sim.seed.value, 42u);
  // The simulated plan is the real one: same target, passes and kernels of interest.
  EXPECT_EQ(rb.passes.counters.metric_sets.value[0].value, "roofline");
  EXPECT_EQ(rb.passes.counters.kernels.include_regex.value,
            std::optional<std::string>("fused_moe_kernel"));
}

}  // namespace
}  // namespace kprof::runbook::testing
