#include <gtest/gtest.h>

#include <regex>

#include "core/exec/node/text_diff.hpp"
#include "core/exec/passes/kernel_selection.hpp"

namespace kprof::exec {
namespace {

TEST(KernelSelection, EscapedNamesMatchOnlyThemselves) {
  const std::vector<std::string> names = {
      "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, float, int)",
      "Cijk_Alik_Bljk_MT64x128x64_MI16x16x1", "a.b|c$d^e[f]{g}(h)+?\\"};
  const std::regex re(exact_names_regex(names), std::regex::ECMAScript);
  for (const auto& n : names) EXPECT_TRUE(std::regex_search(n, re)) << n;
  EXPECT_FALSE(std::regex_search(std::string("Cijk_Alik_Bljk_MT64x128x64_MI16x16x1_extra"), re));
  EXPECT_FALSE(std::regex_search(std::string("aXb|c$d^e[f]{g}(h)+?\\"), re));
  EXPECT_FALSE(std::regex_search(std::string("void vllm::rms_norm_kernel"), re));
  EXPECT_EQ(regex_escape("f(x)*"), "f\\(x\\)\\*");
}

runbook::KernelSelection top(int n, runbook::RankBy by) {
  runbook::KernelSelection k;
  runbook::FromTrace ft;
  ft.top.value = n;
  ft.by.value = by;
  k.from_trace = ft;
  return k;
}

TEST(KernelSelection, TopByDurationAndByCalls) {
  const std::vector<KernelTotal> totals = {
      {"a", 10, 500}, {"b", 1, 900}, {"c", 5, 500}, {"d", 20, 100}};
  Selection s = select_kernels(top(3, runbook::RankBy::total_duration), totals);
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].name, "b");
  EXPECT_EQ(s.kernels[1].name, "a");  // tie on 500 broken by name
  EXPECT_EQ(s.kernels[2].name, "c");
  EXPECT_EQ(s.kernels[2].rank, 3);
  EXPECT_EQ(s.kernels[0].reason, "top 3 by total_duration");
  EXPECT_EQ(*s.include_regex, "^(?:b|a|c)$");
  Selection c = select_kernels(top(1, runbook::RankBy::calls), totals);
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].name, "d");
}

TEST(KernelSelection, RegexesFilterBeforeRanking) {
  auto rules = top(5, runbook::RankBy::total_duration);
  rules.include_regex.value = "^g";
  rules.exclude_regex.value = "splitk";
  const std::vector<KernelTotal> totals = {
      {"gemm", 1, 10}, {"gemm_splitk", 1, 99}, {"norm", 1, 50}};
  Selection s = select_kernels(rules, totals);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, "gemm");
  rules.include_regex.value = "nothing";
  EXPECT_THROW(select_kernels(rules, totals), Error);
}

TEST(KernelSelection, IncludeRegexAloneKeepsTheRunbooksRegex) {
  runbook::KernelSelection rules;
  rules.include_regex.value = "fused_moe";
  const std::vector<KernelTotal> totals = {{"fused_moe_kernel", 6144, 10}, {"norm", 1, 50}};
  Selection s = select_kernels(rules, totals);
  EXPECT_FALSE(s.include_regex.has_value());
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].reason, "include_regex 'fused_moe'");
}

TEST(TextDiff, ShowsChangedLines) {
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nB\nc\n"), "@@ line 2 @@\n-b\n+B\n");
  EXPECT_EQ(line_diff("a\nc\n", "a\nb\nc\nd\n"), "@@ line 2 @@\n+b\n@@ line 3 @@\n+d\n");
}

}  // namespace
}  // namespace kprof::exec
