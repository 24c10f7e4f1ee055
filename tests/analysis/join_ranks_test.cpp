// The join under tensor parallelism: the trace's and a counter pass's processes are paired by the
// agent each drives (its rank), not by start order, which differs from rerun to rerun when N
// workers start together. The rows are made up here; the expectations are derived from them in
// the comments.
#include <gtest/gtest.h>

#include <map>

#include "core/analysis/join/join.hpp"

namespace kprof::analysis {
namespace {

struct Worker {
  int32_t pid;
  int64_t agent;
  int64_t start_ns;  // its first launch
};

// Each worker launches gemm, attn and norm (Dispatch_Ids 1, 2, 3, 1 µs apart) on its agent, as
// every tensor-parallel worker runs the same layers on its shard.
PassData tp_pass(int64_t pass_id, store::PassKind kind, const std::vector<Worker>& workers) {
  PassData p;
  p.pass_id = pass_id;
  p.kind = kind;
  for (const Worker& w : workers) {
    for (uint32_t k = 0; k < 3; ++k) {
      KernelShape s;
      s.name = k;  // 0 gemm, 1 attn, 2 norm
      s.kernel_id = k + 1;
      s.grid[0] = 1024 * (k + 1);
      s.wg[0] = 256;
      Dispatch d;
      d.dispatch_id = k + 1;
      d.pid = w.pid;
      d.start_ns = w.start_ns + 1000 * k;
      d.end_ns = d.start_ns + 500;
      p.add(d, s, w.agent);
    }
  }
  return p;
}

// Trace workers in start order: 103 (agent 5), 101 (agent 3), 100 (agent 2), 102 (agent 4).
// Counter workers in start order: 201 (agent 4), 203 (agent 2), 200 (agent 5), 202 (agent 3).
// By start order the pairs would be 103-201, 101-203, 100-200, 102-202: every pair on two
// different agents, so no stream would meet its twin and nothing would match. By agent they are:
//   agent 2: trace 100 - counter 203      agent 3: trace 101 - counter 202
//   agent 4: trace 102 - counter 201      agent 5: trace 103 - counter 200
// and each counter dispatch (pid, id) matches the trace dispatch (its agent's trace pid, id) at
// offset 0: 4 workers x 3 dispatches = 12 matches, none unmatched.
TEST(JoinRanks, TensorParallelWorkersPairByTheAgentTheyDrive) {
  const PassData trace = tp_pass(1, store::PassKind::trace,
                                 {{103, 5, 1000}, {101, 3, 2000}, {100, 2, 3000}, {102, 4, 4000}});
  const PassData counters =
      tp_pass(2, store::PassKind::counters,
              {{201, 4, 1000}, {203, 2, 2000}, {200, 5, 3000}, {202, 3, 4000}});
  const std::map<int64_t, int64_t> trace_pid_of{{203, 100}, {202, 101}, {201, 102}, {200, 103}};
  const std::map<int64_t, int64_t> agent_of{{203, 2}, {202, 3}, {201, 4}, {200, 5}};

  const JoinResult j = join_pass(trace, counters, 0);
  EXPECT_EQ(j.method, store::JoinMethod::offset);
  EXPECT_EQ(j.offset, 0);
  ASSERT_EQ(j.matches.size(), 12u);
  for (const auto& m : j.matches) {
    EXPECT_EQ(m.trace.pid, trace_pid_of.at(m.counter.pid)) << "counter pid " << m.counter.pid;
    EXPECT_EQ(m.trace.dispatch_id, m.counter.dispatch_id);
  }
  EXPECT_EQ(j.unmatched_counter.size(), 0u);
  EXPECT_EQ(j.unmatched_trace.size(), 0u);
  ASSERT_EQ(j.streams.size(), 4u);
  for (const auto& s : j.streams) {
    EXPECT_EQ(s.trace_pid, trace_pid_of.at(s.counter_pid));
    EXPECT_EQ(s.agent, agent_of.at(s.counter_pid));
    EXPECT_EQ(s.matched, 3u);
  }
}

// An API process beside the workers (pid 99 in the trace, 199 in the counter pass, 2 dispatches on
// agent 2 where its worker has 3) is no rank: agent 2's rank is its busiest process, the worker.
// The ranks pair by agent as above; the API processes, one left in each pass, pair with each
// other by the old rule: 12 worker matches plus its 2 (ids 1 and 2).
TEST(JoinRanks, AProcessBesideTheRanksPairsByTheOldRule) {
  std::vector<Worker> tw{{103, 5, 1000}, {101, 3, 2000}, {100, 2, 3000}, {102, 4, 4000}};
  std::vector<Worker> cw{{201, 4, 1000}, {203, 2, 2000}, {200, 5, 3000}, {202, 3, 4000}};
  PassData trace = tp_pass(1, store::PassKind::trace, tw);
  PassData counters = tp_pass(2, store::PassKind::counters, cw);
  for (PassData* p : {&trace, &counters}) {
    const int32_t api = p == &trace ? 99 : 199;
    for (uint32_t k = 0; k < 2; ++k) {
      KernelShape s;
      s.name = 7;  // copy
      s.grid[0] = 64;
      s.wg[0] = 64;
      Dispatch d;
      d.dispatch_id = k + 1;
      d.pid = api;
      d.start_ns = 100 + 10 * k;  // it starts first
      d.end_ns = d.start_ns + 5;
      p->add(d, s, 2);
    }
  }
  const JoinResult j = join_pass(trace, counters, 0);
  ASSERT_EQ(j.matches.size(), 14u);
  size_t api_matches = 0;
  for (const auto& m : j.matches) {
    if (m.counter.pid == 199) {
      EXPECT_EQ(m.trace.pid, 99);
      ++api_matches;
    }
  }
  EXPECT_EQ(api_matches, 2u);
  EXPECT_EQ(j.unmatched_counter.size(), 0u);
}

}  // namespace
}  // namespace kprof::analysis
