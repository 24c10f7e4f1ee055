// query_bench: builds capture databases of N dispatches (default 1M and 10M) shaped like the Qwen3
// decode loop (steps of 48 layers × 17 kernels + 31 per-step kernels, one prefill step with other
// grids) through the store's real loader, then times, in interleaved rounds (best of --rounds,
// after a warm-up round when R > 1), each as its own process:
//   sqlite3 GROUP BY     — the sqlite3 shell computing `top`'s aggregation (launches and summed
//                          duration per kernel name, sorted) on the same file: the baseline
//   kprof query top      — the kprof CLI's `top` view
//   kprof query explain  — steps × layers × variants per family
//   kprof query roofline — per family and phase against the target's peaks
// and prints best and median seconds, peak RSS (wait4 rusage of each process), RSS per dispatch,
// `top` against the GROUP BY, and how each view's time and memory grow from the first size to the
// last. Simulated data, labelled as such. Asserts nothing.
//
//   query_bench [--rounds R] [--kprof PATH] [--db-dir DIR] [N ...]
// --db-dir keeps the databases in DIR and reuses one that is there (a 10M database takes minutes
// to build), instead of building them in a temporary folder removed at the end.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/database_bench.hpp"
#include "bench/harness/side_by_side.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;
using bench::Contender;

// `top`'s aggregation, as a user would type it into the sqlite3 shell.
const char* k_group_by =
    "SELECT s.value, count(*), sum(d.end_ns - d.start_ns), avg(d.end_ns - d.start_ns) "
    "FROM dispatches d JOIN strings s ON s.id = d.kernel_name_id "
    "WHERE d.pass_id = (SELECT id FROM passes WHERE ordinal = 0 ORDER BY id DESC LIMIT 1) "
    "GROUP BY d.kernel_name_id ORDER BY 3 DESC";

}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::parse_database_bench_args(argc, argv, "query_bench");
  if (!args) return 2;
  const auto& [sizes, rounds, kprof, db_dir] = *args;
  const auto dir = db_dir.empty() ? std::filesystem::temp_directory_path() /
                                        ("kprof_query_bench_" + std::to_string(::getpid()))
                                  : std::filesystem::path(db_dir);
  std::filesystem::create_directories(dir);
  std::printf("query_bench (simulated data; %s; %ld CPUs)\n", kprof.c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  struct Size {
    int64_t n;
    std::vector<std::pair<std::string, std::pair<double, double>>> views;  // label, (best s, MB)
  };
  std::vector<Size> done;
  try {
    for (int64_t n : sizes) {
      const auto path = dir / ("bench_" + std::to_string(n) + ".db");
      bench::DecodeLoopShape shape;
      shape.run_name = "bench";
      bench::prepare_database(path, n, *args, shape, "query_bench");
      std::vector<Contender> cs(4);
      cs[0].label = "sqlite3 shell: top's GROUP BY";
      cs[0].argv = {"sqlite3", "-readonly", path.string(), k_group_by};
      int i = 1;
      for (const char* view : {"top", "explain", "roofline"}) {
        cs[i].label = std::string("kprof query DB ") + view;
        cs[i].argv = {kprof, "query", path.string(), view};
        cs[i].stdout_path = (dir / (std::string(view) + ".out")).string();
        ++i;
      }
      bench::interleave(cs, rounds, rounds > 1);  // a warm-up round unless only one is asked
      bench::print_table(cs, static_cast<double>(n));
      for (const auto& c : cs)
        std::printf("  %-44s %7.1f B of peak RSS per dispatch\n", c.label.c_str(),
                    c.peak_rss_mb() * 1048576.0 / static_cast<double>(n));
      std::printf(
          "  kprof query top / sqlite3 GROUP BY: %.2fx the wall time, %.2fx the CPU seconds   "
          "(load average after: %s)\n",
          cs[1].best() / cs[0].best(), cs[1].best_cpu() / cs[0].best_cpu(),
          bench::load_average().c_str());
      std::fflush(stdout);
      Size sz{n, {}};
      for (size_t k = 1; k < cs.size(); ++k)
        sz.views.push_back({cs[k].label, {cs[k].best(), cs[k].peak_rss_mb()}});
      done.push_back(sz);
      if (db_dir.empty()) std::filesystem::remove(path);
    }
    if (done.size() >= 2) {
      // Growth from the first size to the last, per kprof view: linear time is the size ratio;
      // the marginal memory is what each added dispatch costs once the fixed part is paid.
      const Size& a = done.front();
      const Size& b = done.back();
      const double grow = static_cast<double>(b.n) / static_cast<double>(a.n);
      std::printf("\n%lld -> %lld dispatches (%.0fx):\n", static_cast<long long>(a.n),
                  static_cast<long long>(b.n), grow);
      for (size_t k = 0; k < a.views.size() && k < b.views.size(); ++k) {
        const auto& [label, first] = a.views[k];
        const auto& last = b.views[k].second;
        std::printf(
            "  %-44s %6.2fx the time, %6.2fx the peak RSS; marginal memory %6.1f B per added "
            "dispatch\n",
            label.c_str(), last.first / first.first, last.second / first.second,
            (last.second - first.second) * 1048576.0 / static_cast<double>(b.n - a.n));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "query_bench: %s\n", e.what());
    if (db_dir.empty()) std::filesystem::remove_all(dir);
    return 1;
  }
  if (db_dir.empty()) std::filesystem::remove_all(dir);
  return 0;
}
