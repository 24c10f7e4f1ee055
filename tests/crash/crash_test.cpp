// kill -9 at seeded crash points of `kprof run` (then `kprof resume`) and `kprof ingest` (then the
// same ingest again); see crash_harness.hpp. CI runs KPROF_CRASH_POINTS points (default 12: two of
// each phase of a run, two of an ingest) from KPROF_CRASH_SEED (default 13); bench/crash runs 50
// or all of them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "tests/crash/crash_harness.hpp"

namespace kprof::crash {
namespace {

size_t env_or(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : fallback;
}

TEST(Crash, Kill9AtSeededPointsThenRecoveryEqualsAnUninterruptedRun) {
  const auto work =
      std::filesystem::temp_directory_path() / ("kprof-crash-" + std::to_string(::getpid()));
  Harness h(work);
  // Every hook is reached by an uninterrupted run: a hook that is not is a stale name.
  for (const auto& hook : run_hooks()) EXPECT_GT(h.run_hits().count(hook.name), 0u) << hook.name;
  for (const auto& hook : ingest_hooks())
    EXPECT_GT(h.ingest_hits().count(hook.name), 0u) << hook.name;

  const size_t count = env_or("KPROF_CRASH_POINTS", 12);
  const auto points = h.seeded_points(env_or("KPROF_CRASH_SEED", 13), count, 2);
  ASSERT_EQ(points.size(), count);
  std::set<std::string> phases;
  for (const auto& p : points) {
    const Outcome o = h.run(p);
    EXPECT_TRUE(o.passed) << p.label() << ": " << o.detail;
    std::cout << (o.passed ? "passed " : "FAILED ") << p.label() << " (" << phase_name(p.phase)
              << ", " << o.seconds << " s)\n";
    phases.insert(phase_name(p.phase));
  }
  EXPECT_EQ(phases.size(), 5u);
  if (!HasFailure()) std::filesystem::remove_all(work);
}

// Every window between an effect outside the database and its record: the pass marked running
// before its folder is emptied, the profiler's process forked but held before exec until its id
// is recorded, the id recorded, the profiler running, the profiler exited before its outcome is
// recorded. A kill there must neither lose nor double a pass (no orphan profiler writing into the
// folder the resumed attempt ingests).
TEST(Crash, Kill9InEveryLaunchWindowThenResumeEqualsAnUninterruptedRun) {
  const auto work =
      std::filesystem::temp_directory_path() / ("kprof-crash-win-" + std::to_string(::getpid()));
  // A workload that runs for a second: a profiler that a kill left running unrecorded would
  // still be writing into the pass folder when the resumed attempt runs there.
  Harness h(work, "[\"sleep\", \"1\"]");
  const std::vector<std::string> windows = {"launch.state_running", "launch.forked",
                                            "launch.recorded", "launch.spawned", "run.pass_exited"};
  for (const auto& w : windows) ASSERT_GT(h.run_hits().count(w), 0u) << w;
  const auto points = h.window_points(windows);
  EXPECT_EQ(points.size(), windows.size() * 2 * (h.run_hits().at(windows[0]) > 1 ? 2 : 1));
  for (const auto& p : points) {
    const Outcome o = h.run(p);
    EXPECT_TRUE(o.passed) << p.label() << ": " << o.detail;
    std::cout << (o.passed ? "passed " : "FAILED ") << p.label() << " (" << o.seconds << " s)\n";
  }
  if (!HasFailure()) std::filesystem::remove_all(work);
}

}  // namespace
}  // namespace kprof::crash
