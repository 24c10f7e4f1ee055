// Test-only crash points: named places where the crash test (tests/crash, bench/crash) kills kprof
// with SIGKILL, as `kill -9` would, at a known step instead of after a guessed sleep.
//
//   KPROF_CRASH_AT=<name>[:<n>]   the n-th time (default 1st) this process reaches
//                                 crash_point("<name>"), it is killed with SIGKILL;
//   KPROF_CRASH_TREE=1            first kill every descendant (the profiler, the workload and their
//                                 children, in whatever process group), then kprof: the whole tree;
//   KPROF_CRASH_LOG=<file>        append each crash point's name to <file> as it is reached (the
//                                 crash test counts an uninterrupted run's hits with it).
//
// Unset (every normal run), a crash point costs one branch on a cached flag. Call sites are one
// line, `crash_point("launch.spawned");`, so they survive refactors of the code around them;
// the names are listed in tests/crash/crash_harness.cpp (run_hooks, ingest_hooks) with the state
// the database is in at each.
#pragma once

namespace kprof {

void crash_point(const char* name);

}  // namespace kprof
