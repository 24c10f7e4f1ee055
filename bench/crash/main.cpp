// bench/crash: kill -9 at many crash points of `kprof run` and `kprof ingest` (tests/crash/
// crash_harness.hpp) and check each recovery against an uninterrupted run.
//   bench_crash [--points N] [--seed S] [--ingest K] [--all] [--only "run hook:n tree"] [--list]
// Default: 50 points from seed 1, 8 of them `kprof ingest`. Exit 0 when every point passed.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>

#include "tests/crash/crash_harness.hpp"

int main(int argc, char** argv) {
  using namespace kprof::crash;
  size_t points = 50, ingest = 8;
  uint64_t seed = 1;
  bool all = false, list = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "bench_crash: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--points") {
      points = std::stoul(next());
    } else if (a == "--seed") {
      seed = std::stoull(next());
    } else if (a == "--ingest") {
      ingest = std::stoul(next());
    } else if (a == "--all") {
      all = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--only") {
      only = next();
    } else {
      std::cerr << "usage: bench_crash [--points N] [--seed S] [--ingest K] [--all] [--only LABEL] "
                   "[--list]\n";
      return 2;
    }
  }
  const auto work =
      std::filesystem::temp_directory_path() / ("kprof-bench-crash-" + std::to_string(::getpid()));
  Harness h(work);
  std::vector<Point> chosen = all ? h.all_points() : h.seeded_points(seed, points, ingest);
  if (!only.empty()) {
    std::vector<Point> one;
    for (const auto& p : h.all_points())
      if (p.label() == only) one.push_back(p);
    chosen = one;
  }
  std::cout << "hits of an uninterrupted run:";
  for (const auto& [hook, n] : h.run_hits()) std::cout << " " << hook << "=" << n;
  std::cout << "\nhits of an uninterrupted ingest:";
  for (const auto& [hook, n] : h.ingest_hits()) std::cout << " " << hook << "=" << n;
  std::cout << "\n"
            << h.all_points().size() << " points exist; running " << chosen.size()
            << (all ? " (all)" : " (seed " + std::to_string(seed) + ")") << "\n";
  if (list) {
    for (const auto& p : chosen) std::cout << p.label() << "\n";
    std::filesystem::remove_all(work);
    return 0;
  }
  size_t passed = 0;
  double seconds = 0;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const Outcome o = h.run(chosen[i]);
    seconds += o.seconds;
    passed += o.passed ? 1 : 0;
    std::cout << std::setw(3) << i + 1 << "  " << (o.passed ? "passed" : "FAILED") << "  "
              << std::left << std::setw(44) << chosen[i].label() << std::setw(11)
              << phase_name(chosen[i].phase) << std::right << std::fixed << std::setprecision(1)
              << std::setw(6) << o.seconds << " s" << (o.passed ? "" : "\n     " + o.detail) << "\n"
              << std::flush;
  }
  std::cout << passed << "/" << chosen.size() << " points passed in " << std::fixed
            << std::setprecision(0) << seconds << " s\n";
  if (passed == chosen.size()) std::filesystem::remove_all(work);
  return passed == chosen.size() ? 0 : 1;
}
