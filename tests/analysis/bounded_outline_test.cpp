// analysis::compute_outline_bounded on a capture the real captures do not cover: one process
// whose dispatches run on two agents (a process driving two GPUs). The bounded path picks the
// main stream with a GROUP BY and collects the process's ids on the other agent from the database
// (so they are not taken for missing dispatches); its outline must be the in-memory one, whatever
// the spill size, and it must find the steps and one window.
#include <gtest/gtest.h>

#include <string>

#include "core/analysis/outline/run_outline.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/views/views.hpp"
#include "tests/analysis/capture_fixture.hpp"
#include "tests/analysis/mi300x_csv.hpp"

namespace kprof::analysis {
namespace {

// 24 steps of 40 different kernels on agent 1, a host gap of 2 ms before each step; after the 12th
// step the same process enqueues 200 copy kernels on agent 2. On agent 1's stream alone those 200
// ids look like dispatches that were not traced, a hole large enough to cut the trace into two
// windows; with the process's ids from the other agent they are no hole.
std::string two_agent_trace() {
  std::string csv = test::k_trace_header;
  int64_t id = 0, t = 1'000'000;
  auto row = [&](int agent, int64_t kernel_id, const std::string& name, int64_t dur, int64_t grid) {
    ++id;
    csv += "\"KERNEL_DISPATCH\"," + std::to_string(agent) + ",1,0,7," + std::to_string(id) + "," +
           std::to_string(kernel_id) + ",\"" + name + "\"," + std::to_string(id) + "," +
           std::to_string(t) + "," + std::to_string(t + dur) + ",0,0,8,0,16,256,1,1," +
           std::to_string(grid) + ",1,1\n";
    t += dur + 500;
  };
  for (int step = 0; step < 24; ++step) {
    t += 2'000'000;
    for (int k = 0; k < 40; ++k)
      row(1, k + 1, "step_kernel_" + std::to_string(k), 10'000 + 1'000 * (k % 8),
          4096 * (k % 8 + 1));
    if (step == 11)
      for (int c = 0; c < 200; ++c) row(2, 99, "copy_kernel", 3'000, 1024);
  }
  return csv;
}

TEST(BoundedOutline, AProcessOnTwoAgentsIsOutlinedAsInMemory) {
  test::TempDb tmp("bounded_outline");
  test::write(tmp.dir() / "agent_info.csv", test::mi300x_agents());
  test::write(tmp.dir() / "4242_kernel_trace.csv", two_agent_trace());
  {
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(
        db, run, 0, store::PassKind::trace,
        {(tmp.dir() / "agent_info.csv").string(), (tmp.dir() / "4242_kernel_trace.csv").string()});
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  const Capture cap = load_capture(db, std::nullopt);
  const RunOutline in_memory = compute_outline(cap);
  EXPECT_EQ(in_memory.main_agent, 1);
  size_t steps = 0;
  for (const auto& s : in_memory.segments) steps += s.step > 0;
  EXPECT_GE(steps, 20u);
  for (const auto& s : in_memory.segments)
    EXPECT_EQ(s.window, 0) << "ids on agent 2 are not missing";
  const RunTrace rt = find_run_trace(db, std::nullopt);
  const RunCounts counts = run_counts(db, rt);
  for (size_t bytes : {size_t{1024}, size_t{4096}, size_t{1} << 20})
    EXPECT_TRUE(compute_outline_bounded(db, rt, counts, bytes) == in_memory) << bytes;
}

// A bounded query context (views.hpp QueryContext::bounded) of the same trace gives the views of
// the loaded capture: its main stream found by counting the streams (no outline stored) and named
// by the stored outline (after store_results), the process's ids on agent 2 not missing either way.
TEST(BoundedOutline, ABoundedContextOfAProcessOnTwoAgentsGivesTheLoadedViews) {
  test::TempDb tmp("bounded_context");
  test::write(tmp.dir() / "agent_info.csv", test::mi300x_agents());
  test::write(tmp.dir() / "4242_kernel_trace.csv", two_agent_trace());
  {
    store::CaptureDb db(tmp.path());
    const int64_t run = test::new_run(db, false);
    test::load_pass(
        db, run, 0, store::PassKind::trace,
        {(tmp.dir() / "agent_info.csv").string(), (tmp.dir() / "4242_kernel_trace.csv").string()});
  }
  for (const bool stored : {false, true}) {
    if (stored) {
      store::CaptureDb rw(tmp.path());
      store_results(rw, rw.find_last_run()->id);
    }
    store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
    EXPECT_EQ(read_outline(db, run_counts(db, find_run_trace(db, std::nullopt))).has_value(),
              stored);
    QueryContext loaded(db, std::nullopt, FamilyRules::load_default());
    for (size_t bytes : {size_t{1024}, size_t{1} << 20}) {
      const auto bounded = QueryContext::bounded(db, find_run_trace(db, std::nullopt),
                                                 FamilyRules::load_default(), bytes);
      ASSERT_TRUE(bounded->holds_no_dispatches());
      for (const char* v : {"explain", "phases", "windows", "structure", "variants", "top"}) {
        const Table a = bounded->view(v, ViewOptions{}), b = loaded.view(v, ViewOptions{});
        EXPECT_EQ(a.rows, b.rows) << v << " " << bytes << (stored ? " stored" : "");
        EXPECT_EQ(a.notes, b.notes) << v << " " << bytes << (stored ? " stored" : "");
      }
    }
  }
}

}  // namespace
}  // namespace kprof::analysis
