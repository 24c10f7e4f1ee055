// export_bench: builds capture databases of N dispatches (default 1M and 10M) shaped like the Qwen3
// decode loop (steps of 48 layers x 17 kernels + 31 per step, two queues, a prefill step with other
// grids) through the store's real loader, then runs each as its own process, interleaved, best of
// --rounds:
//   sqlite3 -json        the sqlite3 shell writing the trace pass's dispatch rows (with kernel
//                        names, in (pid, Dispatch_Id) order) as JSON: the baseline, the same rows
//                        read from the same file and written as JSON by SQLite itself
//   kprof export, outline computed
//                        `kprof export DB --perfetto F` with the run's stored outline dropped
//                        first (by the sqlite3 shell, untimed): the first export of a run, which
//                        loads the capture, detects the phases and stores the outline
//   kprof export, outline stored
//                        the same right after it: every later export, which reads the stored
//                        outline (O(steps) rows) and streams everything else (issue #16)
// and prints best and median seconds, CPU seconds, peak RSS (wait4's ru_maxrss of each process),
// peak RSS per dispatch, the output sizes (both exports' traces are compared byte for byte), and,
// from the first size to the last, how each export's peak RSS grows per added dispatch. Simulated
// data, labelled as such. Asserts nothing.
//
//   export_bench [--rounds R] [--kprof PATH] [--db-dir DIR] [N ...]
// --db-dir keeps the databases in DIR and reuses one that is there (a 10M database takes minutes
// to build), instead of building them in a temporary folder removed at the end.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/database_bench.hpp"
#include "bench/harness/side_by_side.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;
namespace fs = std::filesystem;
using bench::Contender;

// The trace pass's rows as a user would dump them with the sqlite3 shell.
const char* k_dump =
    "SELECT d.pid, d.dispatch_id, s.value AS kernel, d.agent, d.queue_id, d.start_ns, d.end_ns, "
    "d.grid_x, d.grid_y, d.grid_z, d.wg_x, d.wg_y, d.wg_z FROM dispatches d "
    "JOIN strings s ON s.id = d.kernel_name_id "
    "WHERE d.pass_id = (SELECT id FROM passes WHERE ordinal = 0 ORDER BY id DESC LIMIT 1) "
    "ORDER BY d.pid, d.dispatch_id";

// The run outline's tables (core/analysis/analysis_schema.sql), children first.
const char* k_drop_outline =
    "DROP TABLE IF EXISTS analysis_outline_segments; DROP TABLE IF EXISTS "
    "analysis_outline_passes; DROP TABLE IF EXISTS analysis_outline;";

std::string slurp(const fs::path& p) {
  std::string out;
  if (FILE* f = std::fopen(p.c_str(), "rb")) {
    char buf[1 << 16];
    for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, k);
    std::fclose(f);
  }
  return out;
}

double mib(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : static_cast<double>(n) / 1048576.0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = bench::parse_database_bench_args(argc, argv, "export_bench");
  if (!args) return 2;
  const auto& [sizes, rounds, kprof, db_dir] = *args;
  const fs::path tmp =
      fs::temp_directory_path() / ("kprof_export_bench_" + std::to_string(::getpid()));
  const fs::path dir = db_dir.empty() ? tmp : fs::path(db_dir);
  fs::create_directories(dir);
  fs::create_directories(tmp);
  std::printf("export_bench (simulated data; %s; %ld CPUs)\n", kprof.c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  struct Size {
    int64_t n;
    double computed_mb, stored_mb;
  };
  std::vector<Size> done;
  try {
    for (int64_t n : sizes) {
      const fs::path db = dir / ("export_" + std::to_string(n) + ".db");
      bench::DecodeLoopShape shape;
      shape.run_name = "export-bench";
      shape.two_queues = true;  // the export's per-queue tracks
      bench::prepare_database(db, n, *args, shape, "export_bench");
      const fs::path json = tmp / "trace.json", json2 = tmp / "trace2.json",
                     dump = tmp / "dump.json";
      std::vector<Contender> cs(3);
      cs[0].label = "sqlite3 -json: the rows as JSON (baseline)";
      cs[0].argv = {"sqlite3", "-readonly", "-json", db.string(), k_dump};
      cs[0].stdout_path = dump.string();
      cs[1].label = "kprof export, outline computed (1st export)";
      cs[1].argv = {kprof, "export", db.string(), "--perfetto", json.string()};
      cs[1].stdout_path = (tmp / "export.out").string();
      const std::string drop = "sqlite3 " + db.string() + " '" + k_drop_outline + "'";
      cs[1].before = [json, drop] {
        fs::remove(json);
        if (std::system(drop.c_str()) != 0) throw std::runtime_error("failed: " + drop);
      };
      cs[2].label = "kprof export, outline stored (later ones)";
      cs[2].argv = {kprof, "export", db.string(), "--perfetto", json2.string()};
      cs[2].stdout_path = (tmp / "export2.out").string();
      cs[2].before = [json2] { fs::remove(json2); };
      bench::interleave(cs, rounds, false);
      bench::print_table(cs, static_cast<double>(n));
      for (const auto& c : cs)
        std::printf("  %-44s %7.1f B of peak RSS per dispatch\n", c.label.c_str(),
                    c.peak_rss_mb() * 1048576.0 / static_cast<double>(n));
      const bool same = slurp(json) == slurp(json2);
      std::printf(
          "  output: trace %.1f MiB (%s), sqlite3's JSON %.1f MiB; stored-outline export / "
          "sqlite3: %.2fx the wall time, %.2fx the CPU seconds, %.2fx the peak RSS   (load "
          "average after: %s)\n",
          mib(json), same ? "both exports byte for byte the same" : "THE EXPORTS DIFFER", mib(dump),
          cs[2].best() / cs[0].best(), cs[2].best_cpu() / cs[0].best_cpu(),
          cs[2].peak_rss_mb() / cs[0].peak_rss_mb(), bench::load_average().c_str());
      std::fflush(stdout);
      if (!same) throw std::runtime_error("the two exports of " + db.string() + " differ");
      done.push_back({n, cs[1].peak_rss_mb(), cs[2].peak_rss_mb()});
      fs::remove(json);
      fs::remove(json2);
      fs::remove(dump);
      if (db_dir.empty()) fs::remove(db);
    }
    if (done.size() >= 2) {
      const Size& a = done.front();
      const Size& b = done.back();
      auto growth = [&](const char* what, double mb_a, double mb_b) {
        std::printf(
            "%s %lld -> %lld dispatches: peak RSS %.1f -> %.1f MiB, %.1f B per added "
            "dispatch\n",
            what, static_cast<long long>(a.n), static_cast<long long>(b.n), mb_a, mb_b,
            (mb_b - mb_a) * 1048576.0 / static_cast<double>(b.n - a.n));
      };
      std::printf("\n");
      growth("export, outline computed", a.computed_mb, b.computed_mb);
      growth("export, outline stored  ", a.stored_mb, b.stored_mb);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export_bench: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  return 0;
}
