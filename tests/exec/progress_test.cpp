// The progress line's ETA against a fake clock: counting down within a pass, during the trace
// pass, from an earlier run's durations, across --gpus slots, and "unknown" with its reason.
#include "core/exec/node/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace kprof::exec {
namespace {

using namespace std::chrono_literals;
using std::chrono::steady_clock;

struct FakeClock {
  steady_clock::time_point t{};
  Progress::Clock fn() {
    return [this] { return t; };
  }
};

TEST(Progress, NoEstimateBeforeAnyPassOfTheRunbookEnds) {
  std::ostringstream os;
  FakeClock c;
  Progress p(os, true, false, c.fn());
  p.set_total(4, 3);
  p.set_work(4, 1);
  p.pass_started(0, true, {}, {});
  EXPECT_EQ(p.eta(), "ETA unknown (no pass of this runbook has finished yet)");
  EXPECT_NE(os.str().find("pass 0 (trace) 0ms | ETA unknown"), std::string::npos) << os.str();
}

TEST(Progress, TracePassCountsDownFromAnEarlierRunThenFromThisRunsPasses) {
  std::ostringstream os;
  FakeClock c;
  Progress p(os, true, false, c.fn());
  p.set_total(4, 3);
  p.set_work(4, 1);
  p.set_earlier_run({10s, 10s, 12s, 8s}, 2);
  p.pass_started(0, true, {}, {});
  EXPECT_EQ(p.eta(), "ETA 40.0s (from run 2's passes)");
  c.t += 4s;
  EXPECT_EQ(p.eta(), "ETA 36.0s (from run 2's passes)");  // within the pass, not fixed
  p.tick();
  EXPECT_NE(os.str().find("[0/4 done] pass 0 (trace) 4.0s | ETA 36.0s"), std::string::npos)
      << os.str();
  p.pass_finished(0, "done", 6s, "");
  EXPECT_EQ(p.eta(), "ETA 18.0s");  // this run's own pass: 3 left × 6 s
  p.pass_started(1, false, {}, {});
  c.t += 2s;
  EXPECT_EQ(p.eta(), "ETA 16.0s");
  c.t += 10s;  // past the estimate: what is left of it is not known
  EXPECT_EQ(p.eta(), "ETA at least 12.0s");
  p.pass_finished(1, "done", 12s, "");
  p.pass_started(2, false, {}, {});
  p.pass_finished(2, "failed", 1s, "exit 1");  // ended for good: not left any more
  EXPECT_EQ(p.eta(), "ETA 9.0s");              // 1 left × mean(6, 12)
  p.pass_started(3, false, {}, {});
  p.pass_finished(3, "done", 9s, "");
  EXPECT_EQ(p.eta(), "");
}

TEST(Progress, CounterPassesWaitForTheTraceThenShareTheSlots) {
  std::ostringstream os;
  FakeClock c;
  Progress p(os, true, false, c.fn());
  p.set_total(6, 5);
  p.set_work(6, 4);  // --gpus 0,1,2,3
  p.set_earlier_run({10s}, 1);
  p.pass_started(0, true, {}, {});
  c.t += 4s;
  // 6 s of trace left, then 5 counter passes on 4 slots: two waves of 10 s.
  EXPECT_EQ(p.eta(), "ETA 26.0s (from run 1's passes)");
}

TEST(Progress, ResumeCountsThePassesTheEarlierKprofFinished) {
  std::ostringstream os;
  FakeClock c;
  Progress p(os, false, false, c.fn());
  p.set_total(3, 2);
  p.count_done_before();
  p.add_finished_before(5s);
  p.set_work(2, 1);
  p.pass_started(1, false, {}, {});
  EXPECT_EQ(p.eta(), "ETA 10.0s");
  c.t += 3s;
  p.pass_finished(1, "done", 3s, "");  // mean(5, 3) for the one left
  EXPECT_NE(os.str().find("kprof: [2/3] pass 1 (counters 1/2) done in 3.0s; ETA 4.0s\n"),
            std::string::npos)
      << os.str();
}

}  // namespace
}  // namespace kprof::exec
