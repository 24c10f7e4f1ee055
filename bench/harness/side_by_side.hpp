// What every bench in bench/ shares: run each contender as its own process, in paired rounds (A B,
// A B, ...: every contender once per round, in the same order) so that a machine whose speed
// drifts slows the contenders of one round alike, and report per contender the median of the
// rounds with their spread (lowest..highest), wall and CPU seconds (user + system from wait4's
// rusage), and the peak RSS the kernel accounted to each process (ru_maxrss). A ratio between two
// contenders is taken round by round (the pair of runs that shared a round) and the median of
// those per-round ratios is reported, never a ratio of two best-of figures, which pairs runs that
// saw different machines. A contender is either a command (fork + exec: the figure is the whole
// command, as a user runs it) or a function run in a forked child that times only the part it
// names (a limit such as "the inserts alone, rows already parsed"). Header-only; no kprof code.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

// The median of a set of figures and its spread: the lowest and highest. `n` 0: no figure.
struct Summary {
  double median = 0, lo = 0, hi = 0;
  size_t n = 0;
};

// Figures that are not finite or not above zero (a failed run) are left out. The median of an
// even count is the mean of the two middle figures.
inline Summary summarize(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x) || x <= 0; }),
          v.end());
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  s.lo = v.front();
  s.hi = v.back();
  return s;
}

// The ratio of two contenders round by round, num[i] / den[i] (both from round i), summarized:
// a round where either failed (a figure not above zero, or missing) gives no ratio.
inline Summary paired_ratio(const std::vector<double>& num, const std::vector<double>& den) {
  std::vector<double> r;
  for (size_t i = 0; i < num.size() && i < den.size(); ++i)
    if (std::isfinite(num[i]) && std::isfinite(den[i]) && num[i] > 0 && den[i] > 0)
      r.push_back(num[i] / den[i]);
  return summarize(r);
}

struct Contender {
  std::string label;
  std::vector<std::string> argv;          // a command, or
  std::function<double()> timed;          // a function run in a child; returns its own seconds
  std::function<void()> before;           // untimed, in this process, before each run (rm files)
  std::string stdout_path = "/dev/null";  // where a command's stdout and stderr go
  std::vector<Outcome> runs;              // one per round, in round order (failed ones too)

  // Per round, in round order; a failed run gives 0 (left out of every summary and ratio).
  std::vector<double> wall_s() const {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.ok ? r.seconds : 0.0);
    return v;
  }
  std::vector<double> cpu_s() const {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.ok ? r.cpu_s : 0.0);
    return v;
  }
  Summary wall() const { return summarize(wall_s()); }
  Summary cpu() const { return summarize(cpu_s()); }
  double peak_rss_mb() const {
    double m = 0;
    for (const auto& r : runs) m = std::max(m, r.maxrss_mb);
    return m;
  }
};

// `a` against `b` round by round: a's figure over b's (below 1: a takes less).
inline Summary wall_ratio(const Contender& a, const Contender& b) {
  return paired_ratio(a.wall_s(), b.wall_s());
}
inline Summary cpu_ratio(const Contender& a, const Contender& b) {
  return paired_ratio(a.cpu_s(), b.cpu_s());
}

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

// `rounds` rounds of every contender in turn, in the same order each round (one warm-up round
// first, not counted, when `warmup`): the pairs that every ratio is taken over.
inline void interleave(std::vector<Contender>& cs, int rounds, bool warmup) {
  for (int r = warmup ? -1 : 0; r < rounds; ++r) {
    for (auto& c : cs) {
      if (c.before) c.before();
      Outcome o = run_once(c);
      if (r >= 0) c.runs.push_back(o);
    }
  }
}

// "0.512 [0.498..0.530]": a summary with its spread.
inline std::string spread(const Summary& s, const char* fmt = "%.3f") {
  char a[32], b[32], c[32], out[112];
  std::snprintf(a, sizeof a, fmt, s.median);
  std::snprintf(b, sizeof b, fmt, s.lo);
  std::snprintf(c, sizeof c, fmt, s.hi);
  std::snprintf(out, sizeof out, "%s [%s..%s]", a, b, c);
  return out;
}

// One line per contender: median wall and CPU seconds of the rounds with their spread, rows per
// second at the median wall time, peak RSS.
inline void print_table(const std::vector<Contender>& cs, double rows) {
  std::printf("  %-44s %-24s %-24s %12s %10s\n", "", "wall s: median [lo..hi]",
              "cpu s: median [lo..hi]", "rows/s (med)", "peak RSS");
  for (const auto& c : cs) {
    const Summary w = c.wall();
    std::printf("  %-44s %-24s %-24s %12.0f %7.1f MB\n", c.label.c_str(), spread(w).c_str(),
                spread(c.cpu()).c_str(), w.median > 0 ? rows / w.median : 0.0, c.peak_rss_mb());
  }
}

// "label / base: wall 0.52x [0.49x..0.55x], CPU 0.50x [...] (median of N paired rounds ...)".
inline void print_ratio(const Contender& a, const Contender& base) {
  const Summary w = wall_ratio(a, base), c = cpu_ratio(a, base);
  std::printf("  %s / %s: wall %s, CPU %s (median of %zu paired rounds [lo..hi])\n",
              a.label.c_str(), base.label.c_str(), spread(w, "%.2fx").c_str(),
              spread(c, "%.2fx").c_str(), w.n);
}

// One machine-readable line per contender for bench/all, appended to `path` (none when empty):
// bench, size, label, median wall s, median CPU s, peak RSS MB, then `base`'s label and the
// paired-median wall and CPU ratios against it ("-" and zeros when `base` is null or `c`),
// tab-separated.
inline void append_tsv(const std::string& path, const char* bench, long long size,
                       const Contender& c, const Contender* base) {
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw std::runtime_error("cannot append to " + path);
  const Summary w = base && base != &c ? wall_ratio(c, *base) : Summary{};
  const Summary u = base && base != &c ? cpu_ratio(c, *base) : Summary{};
  std::fprintf(f, "%s\t%lld\t%s\t%.6f\t%.6f\t%.3f\t%s\t%.4f\t%.4f\n", bench, size, c.label.c_str(),
               c.wall().median, c.cpu().median, c.peak_rss_mb(),
               base && base != &c ? base->label.c_str() : "-", w.median, u.median);
  std::fclose(f);
}

}  // namespace kprof::bench
