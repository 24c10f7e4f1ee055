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

}  // namespace
}  // namespace kprof::crash
