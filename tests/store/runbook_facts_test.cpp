// A run's runbook facts (schema 9): written once when the run is recorded, read back as rows,
// replaced whole, absent for a run recorded before them, and copied by `kprof merge` into a target
// that gets the source's run.
#include "core/store/runbook_facts.hpp"

#include <gtest/gtest.h>

#include "core/store/capture_db.hpp"
#include "core/store/merge.hpp"
#include "tests/store/store_test_util.hpp"

namespace kprof::store {
namespace {

RunbookFacts qwen3_facts() {
  RunbookFacts f;
  f.layers = 48;
  f.output_tokens = 64;
  f.family_rules = {{"wvSplitK", "wvSplitK", {"rb.yaml", 31, 14}},
                    {"fused_moe_kernel", "fused_moe", {"rb.yaml", 33, 14}}};
  f.metric_sets = {"roofline", "memory"};
  return f;
}

TEST(RunbookFacts, WrittenAndReadBackInOrder) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  EXPECT_FALSE(runbook_facts(db, run).has_value());  // nothing recorded: readers use the text
  set_runbook_facts(db, run, qwen3_facts());
  const auto back = runbook_facts(db, run);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, qwen3_facts());
  EXPECT_EQ(back->family_rules[1].pos.str(), "rb.yaml:33:14");
}

TEST(RunbookFacts, AnotherCallReplacesThemWholeAndNoneMeansNull) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  set_runbook_facts(db, run, qwen3_facts());
  set_runbook_facts(db, run, RunbookFacts{});
  const auto back = runbook_facts(db, run);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->layers.has_value());
  EXPECT_FALSE(back->output_tokens.has_value());
  EXPECT_TRUE(back->family_rules.empty());
  EXPECT_TRUE(back->metric_sets.empty());
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM run_family_rules").getInt(), 0);
}

TEST(RunbookFacts, ARunThatIsNotThereIsRefusedAndNothingIsWritten) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  EXPECT_THROW(set_runbook_facts(db, run + 1, qwen3_facts()), Error);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM run_runbook_facts").getInt(), 0);
}

TEST(RunbookFacts, MergeCopiesThemIntoTheRunItCreates) {
  testing::TempDir dir;
  const auto source = dir.path() / "node1.db";
  {
    CaptureDb db(source);
    const int64_t run = testing::make_run(db);
    testing::make_pass(db, run, 0);
    set_runbook_facts(db, run, qwen3_facts());
  }
  CaptureDb target(dir.path() / "all.db");
  const MergeReport report = merge_captures(target, {source});
  const auto back = runbook_facts(target, report.run_id);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, qwen3_facts());
}

}  // namespace
}  // namespace kprof::store
