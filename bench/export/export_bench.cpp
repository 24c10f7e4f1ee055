// export_bench [N ...]: for each size (default 54194 and 10000000 dispatches) builds a capture
// database shaped like the Qwen3 decode loop (steps of 48 layers x 17 kernels + 31 per step, two
// queues) through the store's real loader, then runs, as child processes, interleaved and best of
// 3: `kprof export DB --perfetto F` and the baseline `kprof query DB families`, which loads the
// same capture and builds the same trace model but writes nothing. Prints wall time and peak RSS
// (wait4's ru_maxrss) of each, their ratio, and the trace's size. The export writes each event as
// it is made, so its peak RSS over the baseline's is what the export adds beyond the loaded
// capture. Simulated data, labelled as such; no assertion (benchmarks are not tests).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/common/decode_loop_capture.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void build(const std::filesystem::path& path, int64_t n) {
  bench::DecodeLoopShape shape;
  shape.run_name = "export-bench";
  shape.two_queues = true;
  bench::build_decode_loop_capture(path, n, shape);
}

struct Sample {
  double seconds = 0;
  long peak_kib = 0;
};

// Runs argv with stdout and stderr to /dev/null; wall time and peak RSS of that child alone.
Sample run(const std::vector<std::string>& argv) {
  // The child's freopen flushes stdout's buffer: anything this process had not written yet
  // would be printed twice when stdout is a file or a pipe.
  std::fflush(nullptr);
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  Sample s;
  s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  s.peak_kib = ru.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "export_bench: %s failed\n", argv[0].c_str());
    std::exit(1);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {54194, 10'000'000};
  const fs::path self = fs::canonical("/proc/self/exe");
  const std::string kprof = (self.parent_path() / "kprof").string();
  const fs::path dir =
      fs::temp_directory_path() / ("kprof_export_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf(
      "export_bench (simulated data): best of 3, interleaved; baseline = kprof query DB families\n"
      "%12s %10s %12s %10s %12s %9s %9s %10s\n",
      "dispatches", "export_s", "export_MiB", "query_s", "query_MiB", "time_x", "rss_x",
      "trace_MiB");
  for (int64_t n : sizes) {
    const fs::path db = dir / ("bench_" + std::to_string(n) + ".db");
    const fs::path out = dir / "trace.json";
    build(db, n);
    // Join once (a no-op here: no counter passes) so neither side pays for it.
    run({kprof, "query", db.string(), "passes"});
    Sample e{1e300, 0}, q{1e300, 0};
    for (int i = 0; i < 3; ++i) {
      const Sample se = run({kprof, "export", db.string(), "--perfetto", out.string()});
      const Sample sq = run({kprof, "query", db.string(), "families"});
      e.seconds = std::min(e.seconds, se.seconds);
      e.peak_kib = std::max(e.peak_kib, se.peak_kib);
      q.seconds = std::min(q.seconds, sq.seconds);
      q.peak_kib = std::max(q.peak_kib, sq.peak_kib);
    }
    const double trace_mib = static_cast<double>(fs::file_size(out)) / (1 << 20);
    std::printf("%12lld %10.3f %12.1f %10.3f %12.1f %9.2f %9.2f %10.1f\n",
                static_cast<long long>(n), e.seconds, e.peak_kib / 1024.0, q.seconds,
                q.peak_kib / 1024.0, e.seconds / q.seconds,
                static_cast<double>(e.peak_kib) / static_cast<double>(q.peak_kib), trace_mib);
    std::fflush(stdout);
    fs::remove(db);
    fs::remove(out);
  }
  fs::remove_all(dir);
  return 0;
}
