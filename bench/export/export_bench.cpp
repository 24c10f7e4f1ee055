// export_bench: builds capture databases of N dispatches (default 1M and 10M) shaped like the Qwen3
// decode loop (steps of 48 layers x 17 kernels + 31 per step, two queues, a prefill step with other
// grids) through the store's real loader, then runs each as its own process, in paired rounds
// (--rounds of them):
//   sqlite3 -json        the sqlite3 shell writing the trace pass's dispatch rows (with kernel
//                        names, in (pid, Dispatch_Id) order) as JSON: the baseline, the same rows
//                        read from the same file and written as JSON by SQLite itself
//   kprof export, outline computed
//                        `kprof export DB --perfetto F` with the run's stored outline dropped
//                        first (by the sqlite3 shell, untimed): the first export of a run, which
//                        finds the phases from the database in bounded memory
//                        (analysis::compute_outline_bounded) and stores the outline
//   kprof export, outline stored
//                        the same right after it: every later export, which reads the stored
//                        outline (O(steps) rows) and streams everything else
// and prints the median wall and CPU seconds with their spread, peak RSS (wait4's ru_maxrss of each
// process), peak RSS per dispatch, the output sizes (every export's trace is compared byte for
// byte), and, from the first size to the last, how each export's peak RSS grows per added dispatch.
// Simulated data, labelled as such. Asserts nothing about the figures.
//
// --counters K (1 or 2): the database also holds K counter passes of the same workload, loaded as
// rocprofv3 counter_collection.csv loads (bench/common/decode_loop_capture.hpp): the first export
// then also joins them and stores the mapping (the stored join and outline are both dropped before
// it; that export aligns the passes read from the database, in bounded memory too), and a fourth
// contender, "outline computed, join stored", drops only the outline; every dispatch slice carries
// its counters and the FLOPs and bytes derived from them, and each counter pass's dispatches get
// tracks of their own. The bench counts the slices with counter args and fails when there are none
// (it would measure a path the export did not take). The baseline stays the trace pass's rows.
//
//   export_bench [--rounds R] [--kprof PATH] [--db-dir DIR] [--counters K] [N ...]
// --db-dir keeps the databases in DIR and reuses one that is there (a 10M database takes minutes
// to build), instead of building them in a temporary folder removed at the end.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// The run outline's rows (core/store/schema/0007_analysis_results.sql), children first.
const char* k_drop_outline =
    "DELETE FROM analysis_outline_segments; DELETE FROM analysis_outline_passes; DELETE FROM "
    "analysis_outline;";

// With counter passes, the join's rows too (children first): the first export joins again.
const char* k_drop_join =
    "DELETE FROM analysis_join; DELETE FROM analysis_join_proofs; DELETE FROM analysis_unmatched; "
    "DELETE FROM analysis_join_passes; DELETE FROM analysis_join_files;";

// Byte for byte, a block at a time (a 10M-dispatch trace with counters is several GiB).
bool same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code ea, eb;
  if (fs::file_size(a, ea) != fs::file_size(b, eb) || ea || eb) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::vector<char> ba(1 << 20), bb(1 << 20);
  while (fa && fb) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    if (fa.gcount() != fb.gcount() ||
        std::memcmp(ba.data(), bb.data(), static_cast<size_t>(fa.gcount())) != 0)
      return false;
  }
  return fa.eof() && fb.eof();
}

// What the trace's slices carry (the writer puts one event on a line).
struct SliceCounts {
  int64_t dispatch = 0, with_counters = 0, with_flops = 0, with_bytes = 0, counter_pass = 0;
  std::string first_with_counters;
};

SliceCounts count_slices(const fs::path& p) {
  SliceCounts c;
  std::ifstream f(p, std::ios::binary);
  for (std::string line; std::getline(f, line);) {
    if (line.find("\"cat\":\"dispatch\"") != std::string::npos) {
      ++c.dispatch;
      if (line.find("\"counters\":{") == std::string::npos) continue;
      ++c.with_counters;
      if (line.find("\"flops\":") != std::string::npos) ++c.with_flops;
      if (line.find("\"hbm_bytes\":") != std::string::npos) ++c.with_bytes;
      if (c.first_with_counters.empty()) c.first_with_counters = line;
    } else if (line.find("\"cat\":\"counter pass dispatch\"") != std::string::npos) {
      ++c.counter_pass;
    }
  }
  return c;
}

double mib(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : static_cast<double>(n) / 1048576.0;
}

}  // namespace

int main(int argc, char** argv) {
  // --counters K is this bench's own; the rest is the database benches' command line.
  int counters = 0;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--counters") == 0 && i + 1 < argc)
      counters = std::atoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  if (counters < 0 || counters > 2) {
    std::fprintf(stderr, "export_bench: --counters takes 0, 1 or 2\n");
    return 2;
  }
  const auto args =
      bench::parse_database_bench_args(static_cast<int>(rest.size()), rest.data(), "export_bench");
  if (!args) {
    std::fprintf(stderr, "  --counters K (0, 1 or 2): each database also holds K counter passes\n");
    return 2;
  }
  const auto& sizes = args->sizes;
  const int rounds = args->rounds;
  const std::string& kprof = args->kprof;
  const std::string& db_dir = args->db_dir;
  const fs::path tmp =
      fs::temp_directory_path() / ("kprof_export_bench_" + std::to_string(::getpid()));
  const fs::path dir = db_dir.empty() ? tmp : fs::path(db_dir);
  fs::create_directories(dir);
  fs::create_directories(tmp);
  std::printf("export_bench (simulated data; %s; %ld CPUs%s)\n", kprof.c_str(),
              sysconf(_SC_NPROCESSORS_ONLN),
              counters > 0 ? ("; " + std::to_string(counters) + " counter passes").c_str() : "");
  struct Size {
    int64_t n;
    double computed_mb, bounded_mb, stored_mb;
  };
  std::vector<Size> done;
  try {
    for (int64_t n : sizes) {
      const fs::path db =
          dir / ("export_" + std::to_string(n) +
                 (counters > 0 ? "_c" + std::to_string(counters) : std::string()) + ".db");
      bench::DecodeLoopShape shape;
      shape.run_name = "export-bench";
      shape.two_queues = true;  // the export's per-queue tracks
      shape.counter_passes = counters;
      bench::prepare_database(db, n, *args, shape, "export_bench");
      const fs::path json = tmp / "trace.json", json2 = tmp / "trace2.json",
                     json3 = tmp / "trace3.json", dump = tmp / "dump.json";
      // With counters: the baseline, join+outline computed, outline computed with the join
      // stored, both stored. Without: the baseline, outline computed, outline stored.
      std::vector<Contender> cs(counters > 0 ? 4 : 3);
      const size_t stored_at = cs.size() - 1;
      cs[0].label = "sqlite3 -json: the rows as JSON (baseline)";
      cs[0].argv = {"sqlite3", "-readonly", "-json", db.string(), k_dump};
      cs[0].stdout_path = dump.string();
      cs[1].label = counters > 0 ? "kprof export, join+outline computed (1st)"
                                 : "kprof export, outline computed (1st export)";
      cs[1].argv = {kprof, "export", db.string(), "--perfetto", json.string()};
      cs[1].stdout_path = (tmp / "export.out").string();
      const std::string drop = "sqlite3 " + db.string() + " '" + k_drop_outline +
                               (counters > 0 ? k_drop_join : "") + "'";
      cs[1].before = [json, drop] {
        fs::remove(json);
        if (std::system(drop.c_str()) != 0) throw std::runtime_error("failed: " + drop);
      };
      if (counters > 0) {
        cs[2].label = "kprof export, outline computed, join stored";
        cs[2].argv = {kprof, "export", db.string(), "--perfetto", json3.string()};
        cs[2].stdout_path = (tmp / "export3.out").string();
        const std::string drop_outline = "sqlite3 " + db.string() + " '" + k_drop_outline + "'";
        cs[2].before = [json3, drop_outline] {
          fs::remove(json3);
          if (std::system(drop_outline.c_str()) != 0)
            throw std::runtime_error("failed: " + drop_outline);
        };
      }
      Contender& stored = cs[stored_at];
      stored.label = counters > 0 ? "kprof export, join+outline stored (later)"
                                  : "kprof export, outline stored (later ones)";
      stored.argv = {kprof, "export", db.string(), "--perfetto", json2.string()};
      stored.stdout_path = (tmp / "export2.out").string();
      stored.before = [json2] { fs::remove(json2); };
      bench::interleave(cs, rounds, false);
      bench::print_table(cs, static_cast<double>(n));
      for (const auto& c : cs)
        std::printf("  %-44s %7.1f B of peak RSS per dispatch\n", c.label.c_str(),
                    c.peak_rss_mb() * 1048576.0 / static_cast<double>(n));
      const bool same = same_bytes(json, json2) && (counters == 0 || same_bytes(json, json3));
      std::printf(
          "  output: trace %.1f MiB (%s), sqlite3's JSON %.1f MiB; stored-outline export / "
          "sqlite3: %.2fx the wall time, %.2fx the CPU seconds (medians of the paired rounds' "
          "ratios), %.2fx the peak RSS   (load average after: %s)\n",
          mib(json), same ? "every export byte for byte the same" : "THE EXPORTS DIFFER", mib(dump),
          bench::wall_ratio(stored, cs[0]).median, bench::cpu_ratio(stored, cs[0]).median,
          stored.peak_rss_mb() / cs[0].peak_rss_mb(), bench::load_average().c_str());
      std::fflush(stdout);
      if (!same) throw std::runtime_error("the two exports of " + db.string() + " differ");
      if (counters > 0) {
        const SliceCounts sc = count_slices(json2);
        std::printf(
            "  slices: %lld dispatch slices, %lld with counter args, %lld with flops, %lld with "
            "hbm_bytes; %lld counter-pass dispatch slices\n  first with counters: %s\n",
            static_cast<long long>(sc.dispatch), static_cast<long long>(sc.with_counters),
            static_cast<long long>(sc.with_flops), static_cast<long long>(sc.with_bytes),
            static_cast<long long>(sc.counter_pass), sc.first_with_counters.c_str());
        // What the first export said: the join it computed (its match rate and self-check).
        std::ifstream said(tmp / "export.out");
        for (std::string line; std::getline(said, line);)
          std::printf("  1st export: %s\n", line.c_str());
        std::fflush(stdout);
        if (sc.with_counters == 0)
          throw std::runtime_error(
              "the export of " + db.string() +
              " wrote no counter args: the bench would measure the wrong path");
      }
      done.push_back(
          {n, cs[1].peak_rss_mb(), counters > 0 ? cs[2].peak_rss_mb() : 0, stored.peak_rss_mb()});
      fs::remove(json);
      fs::remove(json2);
      fs::remove(json3);
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
      growth(counters > 0 ? "export, join+outline computed" : "export, outline computed",
             a.computed_mb, b.computed_mb);
      if (counters > 0) growth("export, outline computed, join stored", a.bounded_mb, b.bounded_mb);
      growth(counters > 0 ? "export, join+outline stored  " : "export, outline stored  ",
             a.stored_mb, b.stored_mb);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export_bench: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  return 0;
}
