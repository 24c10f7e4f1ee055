#include "core/analysis/join/join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

// An empty pass whose dispatches may be copied from `trace`: the same launch shapes and lanes.
PassData same_shapes(const PassData& trace) {
  PassData p;
  p.shapes = trace.shapes;
  p.lanes = trace.lanes;
  return p;
}

// A trace dispatch as a counter pass of the same run recorded it: the same id, kernel and launch
// shape, another process, no timestamps.
Dispatch recounted(Dispatch d) {
  d.pid = 555;
  d.start_ns = d.end_ns = 0;
  return d;
}

// The exact mapping: offset 0, one match per dispatch of the step, each on its own id.
void expect_exact_at_offset_zero(const JoinResult& j, size_t per_step, size_t unmatched) {
  EXPECT_EQ(j.method, store::JoinMethod::offset);
  EXPECT_EQ(j.offset, 0);
  ASSERT_EQ(j.matches.size(), per_step);
  for (const auto& m : j.matches) EXPECT_EQ(m.trace.dispatch_id, m.counter.dispatch_id);
  EXPECT_EQ(j.unmatched_counter.size(), unmatched);
  EXPECT_TRUE(j.reliable());
}

// A counter pass made from the trace: new pid, dispatch ids renumbered from 5001 with gaps, rows
// shuffled, timestamps unrelated; `truth` maps each counter dispatch id to the trace id it came
// from.

struct Rerun {
  PassData pass;
  std::map<int64_t, int64_t> truth;
};

Rerun rerun(const PassData& trace, int64_t pid, const std::vector<size_t>& drop,
            const std::vector<std::pair<size_t, uint32_t>>& insert_before, uint32_t seed) {
  Rerun r;
  r.pass = same_shapes(trace);
  r.pass.pass_id = 2;
  r.pass.kind = store::PassKind::counters;
  int64_t id = 5001;
  auto put = [&](Dispatch d) {
    d.pid = pid;
    d.dispatch_id = id;
    id += 3;  // rocprofv3 ids are not dense when other agents' work interleaves
    d.start_ns = 77'000'000'000 - d.start_ns;  // a different clock; never used for matching
    d.end_ns = d.start_ns + 5000;
    r.pass.dispatches.push_back(d);
    return d.dispatch_id;
  };
  for (size_t i = 0; i < trace.dispatches.size(); ++i) {
    for (const auto& [pos, name] : insert_before) {
      if (pos != i) continue;
      Dispatch extra = trace.dispatches[i];
      KernelShape shape = trace.shape(extra);
      shape.name = extra.name = name;
      shape.grid[0] = 64;
      extra.shape = r.pass.intern(shape);
      put(extra);
    }
    if (std::find(drop.begin(), drop.end(), i) != drop.end()) continue;
    const int64_t cid = put(trace.dispatches[i]);
    r.truth[cid] = trace.dispatches[i].dispatch_id;
  }
  std::mt19937 rng(seed);
  std::shuffle(r.pass.dispatches.begin(), r.pass.dispatches.end(), rng);
  return r;
}

std::string text(const JoinResult& r) {
  std::ostringstream o;
  o << store::to_string(r.method) << " counter_total " << r.counter_total << " considered "
    << r.trace_considered << " filtered " << r.filtered << " repeats " << r.repeats << " monotone "
    << r.monotone << " bound " << r.jump_bound << " jumps " << r.jumps << " max " << r.max_jump
    << "\nmatches";
  for (const auto& m : r.matches)
    o << " " << m.counter.pid << ":" << m.counter.dispatch_id << "=" << m.trace.pid << ":"
      << m.trace.dispatch_id;
  o << "\nunmatched counter";
  for (const auto& d : r.unmatched_counter) o << " " << d.pid << ":" << d.dispatch_id;
  o << "\nunmatched trace";
  for (const auto& d : r.unmatched_trace) o << " " << d.pid << ":" << d.dispatch_id;
  o << "\nrepeat starts";
  for (const size_t k : r.repeat_starts) o << " " << k;
  o << "\nstreams";
  for (const auto& sp : r.streams)
    o << " " << sp.counter_pid << "/" << sp.trace_pid << "/" << sp.agent << "/"
      << sp.counter_dispatches << "/" << sp.trace_considered << "/" << sp.matched;
  return o.str();
}

// Every join in these tests is made twice: in memory, and through spilled sequences of one value
// per block (64 bytes each: every read of the identities, ids and results crosses blocks), the
// way a first `kprof export --perfetto` joins from the database. Both must agree.
JoinResult joined(const PassData& trace, const PassData& counters, int64_t jump_bound = 0) {
  JoinResult r = join_pass(trace, counters, jump_bound);
  const JoinResult spilled =
      join_pass(PassJoinInput(trace), PassJoinInput(counters), jump_bound, 64);
  EXPECT_EQ(text(spilled), text(r)) << "the spilled join differs";
  if (r.matches.size() > 1) {
    EXPECT_TRUE(spilled.matches.spilled());
  }
  return r;
}

TEST(Join, RecoversTheMappingWithExtraAndMissingKernelsAndShuffledIds) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const uint32_t fill = names.intern("__amd_rocclr_fillBufferAligned");
  // Drop the 1st embedding of decode step 3 and an act_and_mul of a layer; add two fills.
  const size_t per_step = 1 + 4 * 8 + 2;
  const size_t drop_a = 3 * per_step, drop_b = 2 * per_step + 1 + 8 * 2 + 6;
  ASSERT_EQ(names.name(trace.dispatches[drop_a].name), "embedding_kernel");
  ASSERT_EQ(names.name(trace.dispatches[drop_b].name), "act_and_mul_kernel");
  const Rerun r = rerun(trace, 4242, {drop_a, drop_b}, {{0, fill}, {100, fill}}, 11);

  const JoinResult j = joined(trace, r.pass);
  EXPECT_EQ(j.counter_total, trace.dispatches.size());  // -2 dropped + 2 extra
  EXPECT_EQ(j.matches.size(), trace.dispatches.size() - 2);
  for (const auto& m : j.matches) {
    EXPECT_EQ(m.counter.pid, 4242);
    EXPECT_EQ(m.trace.pid, 100);
    ASSERT_TRUE(r.truth.count(m.counter.dispatch_id));
    EXPECT_EQ(m.trace.dispatch_id, r.truth.at(m.counter.dispatch_id));
  }
  ASSERT_EQ(j.unmatched_counter.size(), 2u);
  ASSERT_EQ(j.unmatched_trace.size(), 2u);
  EXPECT_EQ(j.unmatched_trace[0].dispatch_id, trace.dispatches[drop_b].dispatch_id);
  EXPECT_EQ(j.unmatched_trace[1].dispatch_id, trace.dispatches[drop_a].dispatch_id);
  EXPECT_NEAR(j.matched_share(), (trace.dispatches.size() - 2.0) / trace.dispatches.size(), 1e-12);
  EXPECT_FALSE(j.filtered);
}

TEST(Join, FilteredCounterPassAlignsToTheTraceSubsequence) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const uint32_t moe = *names.find("fused_moe_kernel");
  PassData counters = same_shapes(trace);
  counters.pass_id = 3;
  std::map<int64_t, int64_t> truth;
  int64_t id = 1;
  for (const auto& d : trace.dispatches) {
    if (d.name != moe) continue;
    Dispatch c = d;
    c.pid = 9;
    c.dispatch_id = id++;  // a filtered rerun numbers only what it profiled... or not: irrelevant
    truth[c.dispatch_id] = d.dispatch_id;
    counters.dispatches.push_back(c);
  }
  const JoinResult j = joined(trace, counters);
  EXPECT_TRUE(j.filtered);
  EXPECT_EQ(j.trace_considered, 6u * 4 * 2);  // (1 prefill + 5 decode) × 4 layers × 2 launches
  EXPECT_EQ(j.matches.size(), counters.dispatches.size());
  for (const auto& m : j.matches) EXPECT_EQ(m.trace.dispatch_id, truth.at(m.counter.dispatch_id));
  EXPECT_DOUBLE_EQ(j.matched_share(), 1.0);
}

// A rotated pass that repeated the request 3 times in one run (--repeat 3): its filtered
// stream holds the trace's fused-MoE launches three times over; each repeat maps onto the same
// trace dispatches, in order, and the self-check does not count the restarts as jumps.
TEST(Join, RepeatedRequestsMapOntoTheSameTraceDispatches) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const uint32_t moe = *names.find("fused_moe_kernel");
  PassData counters = same_shapes(trace);
  counters.pass_id = 3;
  std::vector<int64_t> truth;  // trace id of each counter dispatch, in counter order
  int64_t id = 1;
  for (int repeat = 0; repeat < 3; ++repeat)
    for (const auto& d : trace.dispatches) {
      if (d.name != moe) continue;
      Dispatch c = d;
      c.pid = 9;
      c.dispatch_id = id++;
      truth.push_back(d.dispatch_id);
      counters.dispatches.push_back(c);
    }
  const JoinResult j = joined(trace, counters, 40);
  EXPECT_EQ(j.repeats, 3);
  EXPECT_EQ(j.trace_considered, 48u);
  ASSERT_EQ(j.matches.size(), 3u * 48u);
  for (const auto& m : j.matches)
    EXPECT_EQ(m.trace.dispatch_id, truth.at(size_t(m.counter.dispatch_id - 1)));
  EXPECT_EQ(j.repeat_starts, (std::vector<size_t>{48, 96}));
  EXPECT_TRUE(j.reliable()) << j.jumps << " jumps";
  EXPECT_TRUE(j.unmatched_trace.empty());
  EXPECT_DOUBLE_EQ(j.matched_share(), 1.0);

  // 1.5 times the trace is no whole number of repeats: one alignment, the rest unmatched.
  counters.dispatches.resize(72);
  const JoinResult half = joined(trace, counters, 40);
  EXPECT_EQ(half.repeats, 1);
  EXPECT_EQ(half.matches.size(), 48u);
}

TEST(Join, TwoProcessesJoinPerProcess) {
  NameTable names;
  // Engine process: a few small kernels first; worker process: the model.
  test::Workload engine;
  engine.per_layer = {{"engine_copy", 64, 64, 64, 1, 1}, {"engine_fill", 32, 32, 64, 2, 2}};
  engine.layers = 3;
  engine.decode_steps = 0;
  engine.pid = 10;
  test::Workload worker = test::moe_like(3, 2);
  worker.pid = 11;
  PassData trace = test::build(engine, names);
  PassData w = test::build(worker, names);
  for (auto d : w.dispatches) {
    d.start_ns += 10'000'000, d.end_ns += 10'000'000;
    trace.add(d, w.shape(d), w.agent(d), w.queue(d));
  }

  PassData counters = trace;
  counters.pass_id = 2;
  for (auto& d : counters.dispatches) d.pid = d.pid == 10 ? 500 : 501;  // new pids
  std::reverse(counters.dispatches.begin(), counters.dispatches.end());

  const JoinResult j = joined(trace, counters);
  ASSERT_EQ(j.streams.size(), 2u);
  EXPECT_EQ(j.streams[0].trace_pid, 10);
  EXPECT_EQ(j.streams[0].counter_pid, 500);
  EXPECT_EQ(j.streams[1].trace_pid, 11);
  EXPECT_EQ(j.streams[1].counter_pid, 501);
  EXPECT_EQ(j.matches.size(), trace.dispatches.size());
  for (const auto& m : j.matches) {
    EXPECT_EQ(m.trace.pid + 490, m.counter.pid);
    EXPECT_EQ(m.trace.dispatch_id, m.counter.dispatch_id);
  }
}

TEST(Join, GridChangesAreDifferentIdentities) {
  NameTable names;
  PassData trace = test::build(test::moe_like(2, 1), names);
  PassData counters = trace;
  KernelShape shape = counters.shape(counters.dispatches[5]);
  shape.grid[0] += 1;  // a different launch shape: not the same dispatch
  counters.dispatches[5].shape = counters.intern(shape);
  const JoinResult j = joined(trace, counters);
  EXPECT_EQ(j.matches.size(), trace.dispatches.size() - 1);
  ASSERT_EQ(j.unmatched_counter.size(), 1u);
  EXPECT_EQ(j.unmatched_counter[0].dispatch_id, trace.dispatches[5].dispatch_id);
}

// `rocprofv3 --kernel-trace --pmc ...` in one invocation: the counter rows are the trace's own
// dispatches (same pid, ids and times), so the join is by id and exact, even for a kernel filter.
TEST(Join, CountersOfTheTracesOwnInvocationJoinById) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const uint32_t moe = *names.find("fused_moe_kernel");
  PassData counters = same_shapes(trace);
  counters.pass_id = 3;
  for (const auto& d : trace.dispatches)
    if (d.name == moe) counters.dispatches.push_back(d);
  std::reverse(counters.dispatches.begin(), counters.dispatches.end());  // any row order
  const JoinResult j = joined(trace, counters, 35);
  EXPECT_EQ(j.method, store::JoinMethod::by_id);
  EXPECT_TRUE(j.filtered);
  ASSERT_EQ(j.matches.size(), counters.dispatches.size());
  for (const auto& m : j.matches) EXPECT_EQ(m.counter, m.trace);
  EXPECT_TRUE(j.unmatched_trace.empty());
  EXPECT_TRUE(j.reliable());

  // The same rows with other times are another run of the application: not by id, but its
  // shared Dispatch_Ids (offset 0) still prove every pair.
  PassData rerun_pass = counters;
  for (auto& d : rerun_pass.dispatches) d.start_ns += 7, d.end_ns += 7;
  EXPECT_EQ(joined(trace, rerun_pass, 35).method, store::JoinMethod::offset);
  // Without times, the same ids in the same (known) process still make it one invocation.
  PassData untimed = counters;
  for (auto& d : untimed.dispatches) d.start_ns = d.end_ns = 0;
  EXPECT_EQ(joined(trace, untimed, 35).method, store::JoinMethod::by_id);
}

// A bad join: a counter pass whose launches the alignment pairs with trace launches far
// apart (here: the counter run did only the first and the last step, back to back). The match
// rate is high, but consecutive counter dispatches land steps apart in the trace: flagged.
TEST(Join, MatchesFarApartAreFlaggedUnreliable) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const size_t per_step = 1 + 4 * 8 + 2;
  PassData counters = same_shapes(trace);
  counters.pass_id = 4;
  int64_t id = 1;
  for (size_t i = 0; i < trace.dispatches.size(); ++i) {
    const bool first = i < per_step / 2, last = i >= trace.dispatches.size() - per_step / 2;
    if (!first && !last) continue;
    Dispatch c = trace.dispatches[i];
    c.pid = 77;
    c.dispatch_id = id;
    id += 2;  // no constant Dispatch_Id offset maps this run onto the trace: it is aligned
    c.start_ns = c.end_ns = 0;
    counters.dispatches.push_back(c);
  }
  const JoinResult j = joined(trace, counters, static_cast<int64_t>(per_step));
  EXPECT_EQ(j.method, store::JoinMethod::aligned);
  EXPECT_EQ(j.matches.size(), counters.dispatches.size());  // every counter dispatch matched
  EXPECT_TRUE(j.monotone);
  EXPECT_EQ(j.jumps, 1);
  EXPECT_GT(j.max_jump, static_cast<int64_t>(per_step));
  EXPECT_FALSE(j.reliable());

  // The whole run, consecutively numbered: no jump beyond one step.
  PassData whole = same_shapes(trace);
  whole.pass_id = 5;
  id = 1;
  for (const auto& d : trace.dispatches) {
    Dispatch c = d;
    c.pid = 77;
    c.dispatch_id = id++;
    c.start_ns = c.end_ns = 0;
    whole.dispatches.push_back(c);
  }
  const JoinResult ok = joined(trace, whole, static_cast<int64_t>(per_step));
  EXPECT_EQ(ok.jumps, 0);
  EXPECT_TRUE(ok.reliable());
}

// A counter pass of one decode step, from another run of the same program: it numbers its
// dispatches as the trace did, and holds three allocator launches before the trace's window
// starts (the trace's first Dispatch_Id is 101). Every decode step launches the same kernels with
// the same grids, so launch order alone cannot tell which step the pass ran; the shared
// Dispatch_Ids can, and prove each pair. (Alignment mapped it onto the first decode step and
// called that reliable.)
TEST(Join, SharedDispatchIdsAreTheExactMappingBeforeAlignment) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names, 1, 101);
  const size_t per_step = 1 + 4 * 8 + 2;
  const uint32_t fill = names.intern("__amd_rocclr_fillBufferAligned");
  PassData counters = same_shapes(trace);
  counters.pass_id = 2;
  for (int64_t id = 1; id <= 3; ++id) {
    Dispatch f = trace.dispatches[0];
    f.pid = 555;
    f.dispatch_id = id;
    f.start_ns = f.end_ns = 0;
    test::rename(counters, f, fill);
    counters.dispatches.push_back(f);
  }
  const size_t step3 = 3 * per_step;  // prefill is step 0
  for (size_t i = step3; i < step3 + per_step; ++i) {
    counters.dispatches.push_back(recounted(trace.dispatches[i]));
  }
  const JoinResult j = joined(trace, counters, static_cast<int64_t>(per_step));
  expect_exact_at_offset_zero(j, per_step, 3u);
}

// The same program run again after three more launches at start-up: a constant offset of -3
// maps every dispatch of a kernel-filtered counter pass (20 fused_moe_kernel launches from decode
// step 2 on, a region-limited capture) onto its trace twin. (Alignment put them on decode step 1,
// the first launches of that identity.)
TEST(Join, ConstantOffsetOfAFilteredPassIsExactAndReliable) {
  NameTable names;
  const PassData trace = test::build(test::moe_like(4, 5), names);
  const uint32_t moe = names.intern("fused_moe_kernel");
  const size_t per_step = 1 + 4 * 8 + 2;
  PassData counters = same_shapes(trace);
  counters.pass_id = 3;
  for (size_t i = 2 * per_step; i < trace.dispatches.size() && counters.dispatches.size() < 20;
       ++i) {
    if (trace.dispatches[i].name != moe) continue;
    Dispatch c = trace.dispatches[i];
    c.pid = 9;
    c.dispatch_id += 3;
    c.start_ns += 123456;
    c.end_ns += 123456;
    counters.dispatches.push_back(c);
  }
  ASSERT_EQ(counters.dispatches.size(), 20u);
  const JoinResult j = joined(trace, counters, static_cast<int64_t>(per_step));
  EXPECT_EQ(j.method, store::JoinMethod::offset);
  EXPECT_EQ(j.offset, -3);
  ASSERT_EQ(j.matches.size(), 20u);
  for (const auto& m : j.matches) EXPECT_EQ(m.trace.dispatch_id, m.counter.dispatch_id - 3);
  EXPECT_TRUE(j.filtered);
  EXPECT_TRUE(j.reliable());
}

// A decode trace captured in windows (decode steps 2 and 6 only, ids kept) and a counter pass of
// the same program, ids as its own run numbered them, from the last launch of step 1 to the fifth
// of step 3. Offset 0 pairs all 35 of step 2 exactly; the counter ids around it fall where the
// trace recorded nothing (before its first window, in the hole between the windows), which proves
// nothing either way. Offset 4 steps pairs step 2's launches with step 6's as well, but those are
// another token's launches: the same id of the same program is the same launch.
TEST(Join, SharedIdsInAWindowedTraceAreTheExactMapping) {
  NameTable names;
  const PassData full = test::build(test::moe_like(4, 10), names);
  const size_t per_step = 1 + 4 * 8 + 2;
  PassData trace = same_shapes(full);
  trace.pass_id = 1;
  for (const size_t step : {2u, 6u})  // prefill is step 0
    for (size_t i = step * per_step; i < (step + 1) * per_step; ++i)
      trace.dispatches.push_back(full.dispatches[i]);
  PassData counters = same_shapes(full);
  counters.pass_id = 2;
  for (size_t i = 2 * per_step - 1; i < 3 * per_step + 5; ++i) {
    counters.dispatches.push_back(recounted(full.dispatches[i]));
  }
  const JoinResult j = joined(trace, counters, static_cast<int64_t>(per_step));
  expect_exact_at_offset_zero(j, per_step, 6u);
}
}  // namespace
}  // namespace kprof::analysis
