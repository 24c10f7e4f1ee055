// What every bench in bench/ shares: run each contender as its own process, in rounds (A B C, A B
// C, ...) so that a machine whose speed drifts slows every contender alike, and report the best of
// the rounds, the median, and the peak RSS the kernel accounted to each process (wait4's rusage,
// ru_maxrss). A contender is either a command (fork + exec: the figure is the whole command, as a
// user runs it) or a function run in a forked child that times only the part it names (a limit
// such as "the inserts alone, rows already parsed"). Header-only; no kprof code.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kprof::bench {

struct Outcome {
  double seconds = 0;  // wall seconds (a function contender: the seconds it timed itself)
  double cpu_s = 0;    // user + system of the process
  double maxrss_mb = 0;
  bool ok = false;
};

struct Contender {
  std::string label;
  std::vector<std::string> argv;          // a command, or
  std::function<double()> timed;          // a function run in a child; returns its own seconds
  std::function<void()> before;           // untimed, in this process, before each run (rm files)
  std::string stdout_path = "/dev/null";  // where a command's stdout and stderr go
  std::vector<Outcome> runs;

  double best() const {
    double b = 0;
    for (const auto& r : runs)
      if (r.ok && (b == 0 || r.seconds < b)) b = r.seconds;
    return b;
  }
  double median() const {
    std::vector<double> v;
    for (const auto& r : runs)
      if (r.ok) v.push_back(r.seconds);
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  // CPU seconds (user + system, all threads) of the run with the fewest: on a shared machine the
  // figure that other jobs disturb least.
  double best_cpu() const {
    double b = 0;
    for (const auto& r : runs)
      if (r.ok && (b == 0 || r.cpu_s < b)) b = r.cpu_s;
    return b;
  }
  double peak_rss_mb() const {
    double m = 0;
    for (const auto& r : runs) m = std::max(m, r.maxrss_mb);
    return m;
  }
};

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline std::string load_average() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "unknown";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  return b;
}

inline Outcome run_once(const Contender& c) {
  int fds[2] = {-1, -1};
  if (c.timed && pipe(fds) != 0) throw std::runtime_error("pipe failed");
  // A child inherits stdio's unwritten buffer; its freopen (or exit) would print it a second time.
  std::fflush(nullptr);
  const double t0 = now_s();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (c.timed) {
      close(fds[0]);
      double s = -1;
      try {
        s = c.timed();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", c.label.c_str(), e.what());
      }
      if (write(fds[1], &s, sizeof s) != sizeof s) _exit(3);
      _exit(s < 0 ? 1 : 0);
    }
    std::FILE* out = std::freopen(c.stdout_path.c_str(), "w", stdout);
    if (!out || dup2(fileno(stdout), 2) < 0) _exit(126);
    std::vector<char*> args;
    for (const auto& a : c.argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  double inner = -1;
  if (c.timed) {
    close(fds[1]);
    if (read(fds[0], &inner, sizeof inner) != sizeof inner) inner = -1;
    close(fds[0]);
  }
  wait4(pid, &status, 0, &ru);
  Outcome o;
  o.seconds = c.timed ? inner : now_s() - t0;
  o.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  o.maxrss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
  o.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && o.seconds >= 0;
  if (!o.ok) {
    std::fprintf(stderr, "warning: %s failed (status %d)%s%s\n", c.label.c_str(), status,
                 c.timed ? "" : "; its output: ", c.timed ? "" : c.stdout_path.c_str());
  }
  return o;
}

// `rounds` rounds of every contender in turn (one warm-up round first, not counted, when
// `warmup`): the interleaving that keeps ratios honest on a shared machine.
inline void interleave(std::vector<Contender>& cs, int rounds, bool warmup) {
  for (int r = warmup ? -1 : 0; r < rounds; ++r) {
    for (auto& c : cs) {
      if (c.before) c.before();
      Outcome o = run_once(c);
      if (r >= 0) c.runs.push_back(o);
    }
  }
}

// One line per contender: best and median seconds, rows/s at the best, CPU seconds, peak RSS.
inline void print_table(const std::vector<Contender>& cs, double rows) {
  std::printf("  %-44s %9s %9s %12s %8s %9s\n", "", "best s", "median s", "rows/s (best)", "cpu s",
              "peak RSS");
  for (const auto& c : cs) {
    const double b = c.best();
    std::printf("  %-44s %9.3f %9.3f %12.0f %8.2f %6.1f MB\n", c.label.c_str(), b, c.median(),
                b > 0 ? rows / b : 0.0, c.best_cpu(), c.peak_rss_mb());
  }
}

// How many times faster A is than B (above 1: A is faster): B's best wall time over A's.
inline double speed_ratio(const Contender& a, const Contender& b) {
  return a.best() > 0 ? b.best() / a.best() : 0.0;
}
// The same by CPU seconds (a function contender's CPU includes its untimed preparation).
inline double cpu_ratio(const Contender& a, const Contender& b) {
  return a.best_cpu() > 0 ? b.best_cpu() / a.best_cpu() : 0.0;
}

}  // namespace kprof::bench
