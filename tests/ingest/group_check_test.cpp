// GroupCheck: the group of each dispatch of a rotated counter pass is told from its counter names;
// a dispatch with a counter of no group, or with counters of two groups, refuses the pass.
#include "core/ingest/group_check.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

store::CounterRow row(int64_t pid, int64_t dispatch, const std::string& counter, double v = 1) {
  store::CounterRow r;
  r.pid = pid;
  r.dispatch_id = dispatch;
  r.counter = counter;
  r.value = v;
  return r;
}

std::string message(const Error& e) {
  std::string out;
  for (const auto& d : e.diagnostics()) out += d.what + " (" + d.hint + ")";
  return out;
}

const std::vector<std::vector<std::string>> k_groups{{"SQ_WAVES", "GRBM_COUNT"}, {"SQ_INSTS_VALU"}};

TEST(GroupCheck, EachDispatchGetsTheGroupItsNamesIdentify) {
  test::VectorSink inner;
  GroupCheck check(inner, k_groups);
  check.begin_file("c.csv", "counter_collection");
  check.counter(row(7, 1, "SQ_WAVES"));
  check.counter(row(7, 1, "GRBM_COUNT"));
  check.counter(row(7, 2, "SQ_INSTS_VALU"));
  check.counter(row(8, 1, "SQ_INSTS_VALU"));  // another process's dispatch 1
  check.end_file(4);
  EXPECT_NO_THROW(check.finish());
  EXPECT_EQ(inner.counters.size(), 4u);  // every row forwarded
  EXPECT_EQ(check.dispatches_per_group(), (std::vector<int64_t>{1, 2}));
}

TEST(GroupCheck, MixedGroupsAndUnknownCountersAreClassified) {
  test::VectorSink inner;
  GroupCheck check(inner, k_groups);
  check.begin_file("c.csv", "counter_collection");
  check.counter(row(7, 1, "SQ_WAVES"));
  check.counter(row(7, 1, "SQ_INSTS_VALU"));
  check.counter(row(7, 1, "GRBM_COUNT"));  // still one mixed dispatch, counted once
  check.counter(row(7, 2, "SQ_INSTS_VALU"));
  check.counter(row(7, 3, "TCC_HIT_sum"));
  check.end_file(5);
  try {
    check.finish();
    FAIL() << "a mixed dispatch was accepted";
  } catch (const GroupMismatch& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(message(e),
              "rotated counter pass: the group of a dispatch is not recoverable: 1 counter value "
              "of no group (first: c.csv: dispatch 3 of pid 7 has TCC_HIT_sum); 1 dispatch with "
              "counters of more than one group (first: c.csv: dispatch 1 of pid 7 has "
              "SQ_INSTS_VALU (group 2) beside counters of group 1) (the pass was not stored; "
              "check that the profiler rotated exactly the planned pmc_groups (rocprofv3 7.0+, "
              "input file), then run the pass again)");
  }
  EXPECT_EQ(check.dispatches_per_group(), (std::vector<int64_t>{0, 1}));
}

TEST(GroupCheck, GroupsSharingACounterAreRefusedUpFront) {
  test::VectorSink inner;
  try {
    GroupCheck check(inner, {{"SQ_WAVES", "GRBM_COUNT"}, {"GRBM_COUNT"}});
    FAIL() << "overlapping groups were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(message(e),
              "counter groups 1 and 2 share GRBM_COUNT: a dispatch counted with either could not "
              "be told apart (give every counter to one group only (rocprofv3 does not record "
              "which group counted a dispatch))");
  }
}

}  // namespace
}  // namespace kprof::ingest
