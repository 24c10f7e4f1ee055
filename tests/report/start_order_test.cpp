// The streamed export's start order (core/report/start_order.hpp): a heap of reorder_window + 1
// pending dispatches turns a stream in (pid, Dispatch_Id) order into each process's exact start
// order, the order a sort of the whole pass gives; one less is not enough.
#include "core/report/start_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kprof::report {
namespace {

using analysis::Dispatch;

// Dispatches of `pids` processes in (pid, Dispatch_Id) order on two queues: each starts after the
// previous one of its queue, so the two queues' starts interleave and some go back in id order.
std::vector<Dispatch> two_queue_stream(unsigned seed, int pids, int per_pid) {
  std::mt19937 rng(seed);
  std::vector<Dispatch> out;
  for (int p = 0; p < pids; ++p) {
    int64_t queue_end[2] = {1000, 1000};
    for (int i = 0; i < per_pid; ++i) {
      Dispatch d;
      d.pid = 100 + p;
      d.dispatch_id = i + 1;
      const int q = static_cast<int>(rng() % 2);
      d.start_ns = queue_end[q] + static_cast<int64_t>(rng() % 50);
      d.end_ns = d.start_ns + 1 + static_cast<int64_t>(rng() % 400);
      queue_end[q] = d.end_ns;
      out.push_back(d);
    }
  }
  return out;
}

// What the heap emits, as (pid, Dispatch_Id) pairs.
std::vector<std::pair<int64_t, int64_t>> emitted(const std::vector<Dispatch>& ds, size_t window) {
  std::vector<std::pair<int64_t, int64_t>> out;
  StartOrder<Dispatch> order(window, [&](Dispatch& d) { out.emplace_back(d.pid, d.dispatch_id); });
  for (size_t i = 0; i < ds.size(); ++i) {
    if (i > 0 && ds[i].pid != ds[i - 1].pid) order.flush();
    order.push(ds[i].start_ns, ds[i]);
  }
  order.flush();
  return out;
}

// Each process's dispatches stably sorted by start: what the in-memory export wrote.
std::vector<std::pair<int64_t, int64_t>> sorted(std::vector<Dispatch> ds) {
  std::stable_sort(ds.begin(), ds.end(), [](const Dispatch& a, const Dispatch& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.start_ns < b.start_ns;
  });
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& d : ds) out.emplace_back(d.pid, d.dispatch_id);
  return out;
}

TEST(StartOrder, InOrderStartsNeedNoWindow) {
  std::vector<Dispatch> ds(5);
  for (size_t i = 0; i < ds.size(); ++i) ds[i].start_ns = 10 * static_cast<int64_t>(i / 2);
  EXPECT_EQ(reorder_window(ds), 0u);
  EXPECT_EQ(emitted(ds, 0), sorted(ds));
}

TEST(StartOrder, WindowIsTheMostEarlierDispatchesThatStartLater) {
  // Starts 50 40 60 30 in id order: 30 has three earlier ones starting after it.
  std::vector<Dispatch> ds(4);
  const int64_t starts[] = {50, 40, 60, 30};
  for (size_t i = 0; i < 4; ++i) ds[i].start_ns = starts[i], ds[i].dispatch_id = 1 + i;
  EXPECT_EQ(reorder_window(ds), 3u);
  EXPECT_EQ(emitted(ds, 3), sorted(ds));
  EXPECT_NE(emitted(ds, 2), sorted(ds));
  // Another process's starts are its own: the window is per process.
  for (auto& d : ds) d.pid = 2;
  std::vector<Dispatch> two = ds;
  for (auto d : ds) {
    d.pid = 3;
    d.start_ns += 1000;
    two.push_back(d);
  }
  EXPECT_EQ(reorder_window(two), 3u);
}

TEST(StartOrder, HeapOfTheWindowGivesEachProcessesStartOrder) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto ds = two_queue_stream(seed, 3, 300);
    const size_t w = reorder_window(ds);
    ASSERT_GT(w, 0u) << "seed " << seed << ": the queues should interleave";
    EXPECT_EQ(emitted(ds, w), sorted(ds)) << "seed " << seed << ", window " << w;
    EXPECT_NE(emitted(ds, w - 1), sorted(ds)) << "seed " << seed << ": the window is the least";
    // Every dispatch is emitted once whatever the window.
    auto some = emitted(ds, 0);
    std::sort(some.begin(), some.end());
    EXPECT_EQ(some.size(), ds.size());
    EXPECT_EQ(std::adjacent_find(some.begin(), some.end()), some.end());
  }
}

}  // namespace
}  // namespace kprof::report
