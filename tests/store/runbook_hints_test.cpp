// A run's runbook hints (schema 9): written once when the run is recorded, read back as rows,
// replaced whole, absent for a run recorded before them, and copied by `kprof merge` into a target
// that gets the source's run.
#include "core/store/runbook_hints.hpp"

#include <gtest/gtest.h>

#include "core/store/capture_db.hpp"
#include "core/store/merge.hpp"
#include "tests/store/store_test_util.hpp"

namespace kprof::store {
namespace {

RunbookHints qwen3_facts() {
  RunbookHints f;
  f.layers = 48;
  f.output_tokens = 64;
  f.ranks = 4;
  f.family_rules = {{"wvSplitK", "wvSplitK", {"rb.yaml", 31, 14}},
                    {"fused_moe_kernel", "fused_moe", {"rb.yaml", 33, 14}}};
  f.metric_sets = {"roofline", "memory"};
  return f;
}

TEST(RunbookHints, WrittenAndReadBackInOrder) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  EXPECT_FALSE(runbook_hints(db, run).has_value());  // nothing recorded: readers use the text
  store_runbook_hints(db, run, qwen3_facts());
  const auto back = runbook_hints(db, run);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, qwen3_facts());
  EXPECT_EQ(back->family_rules[1].pos.str(), "rb.yaml:33:14");
}

TEST(RunbookHints, AnotherCallReplacesThemWholeAndNoneMeansNull) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  store_runbook_hints(db, run, qwen3_facts());
  store_runbook_hints(db, run, RunbookHints{});
  const auto back = runbook_hints(db, run);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->layers.has_value());
  EXPECT_FALSE(back->output_tokens.has_value());
  EXPECT_TRUE(back->family_rules.empty());
  EXPECT_TRUE(back->metric_sets.empty());
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM run_family_rules").getInt(), 0);
}

TEST(RunbookHints, ARunThatIsNotThereIsRefusedAndNothingIsWritten) {
  testing::TempDir dir;
  CaptureDb db(dir.path() / "c.db");
  const int64_t run = testing::make_run(db);
  EXPECT_THROW(store_runbook_hints(db, run + 1, qwen3_facts()), Error);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM run_runbook_hints").getInt(), 0);
}

TEST(RunbookHints, MergeCopiesThemIntoTheRunItCreates) {
  testing::TempDir dir;
  const auto source = dir.path() / "node1.db";
  {
    CaptureDb db(source);
    const int64_t run = testing::make_run(db);
    testing::make_pass(db, run, 0);
    store_runbook_hints(db, run, qwen3_facts());
  }
  CaptureDb target(dir.path() / "all.db");
  const MergeReport report = merge_captures(target, {source});
  const auto back = runbook_hints(target, report.run_id);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, qwen3_facts());
}

}  // namespace
}  // namespace kprof::store
