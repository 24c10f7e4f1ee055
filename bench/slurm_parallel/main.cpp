// bench/slurm_parallel: how much running the counter passes as one Slurm job array shortens a run
// whose passes are dominated by the workload's own run time, on a real Slurm (the loopback cluster
// of the tests: scripts/slurm-loopback start DIR, then SLURM_CONF=DIR/slurm.conf; one node with 4
// GPU slots). The workload is `sleep S` under rocprofv3-sim (SIMULATED, its 8-GPU model, so the
// GPU Slurm gives a task exists there); the runbook asks for 10
// GRBM counters, which the planner splits into P = 5 passes, and no trace pass. Contenders, each
// the whole `kprof run` as a user runs it, in paired rounds (A B C, A B C, ...; each ratio the
// median of the per-round ratios):
//   array:      --slurm --gpus-per-task 1: one sbatch --array job, up to 4 tasks at once;
//   sequential: --slurm --gpus-per-task 4: the same job array, but each task needs the node's 4
//               GPUs, so Slurm runs them one at a time (Slurm's own serial baseline);
//   local:      --launcher local: the passes one after another on this host, no Slurm at all.
// Expected array/sequential ratio: ceil(P/4)/P = 2/5 of the workload time, plus Slurm's
// scheduling latency and kprof's 1 s poll per wave. Prints the ratios; asserts nothing.
//   usage: bench_slurm_parallel [SLEEP_SECONDS (default 2)] [ROUNDS (default 3)]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/common/grbm_runbook.hpp"
#include "bench/harness/side_by_side.hpp"

namespace {

namespace fs = std::filesystem;
using kprof::bench::Contender;

Contender contender(const std::string& label, const fs::path& dir, const fs::path& rb,
                    const std::vector<std::string>& flags) {
  Contender c;
  c.label = label;
  const fs::path db = dir / (label + ".db");
  c.argv = {std::string(KPROF_BIN_DIR) + "/kprof",
            "run",
            rb.string(),
            "--simulate",
            "--quiet",
            "--db",
            db.string()};
  c.argv.insert(c.argv.end(), flags.begin(), flags.end());
  // Each round is a fresh run in a fresh database.
  c.before = [db, dir, label] {
    std::error_code ec;
    fs::remove(db, ec);
    fs::remove_all(dir / (label + "-captures"), ec);
  };
  c.stdout_path = (dir / (label + ".out")).string();
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string sleep_s = argc > 1 ? argv[1] : "2";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const char* conf = std::getenv("SLURM_CONF");
  if (!conf || !fs::exists(conf)) {
    std::cerr << "bench_slurm_parallel: no Slurm cluster (SLURM_CONF unset or missing); start the "
                 "loopback one: scripts/slurm-loopback start build/slurm-loopback, then "
                 "SLURM_CONF=build/slurm-loopback/slurm.conf\n";
    return 2;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("kprof-bench-slurm-parallel-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rb = dir / "parallel.yaml";
  kprof::bench::write_grbm_runbook(rb, "slurm-parallel", sleep_s, "vector-ops-8gpu");
  std::vector<Contender> cs = {
      contender("array", dir, rb, {"--slurm", "--gpus-per-task", "1"}),
      contender("sequential", dir, rb, {"--slurm", "--gpus-per-task", "4"}),
      contender("local", dir, rb, {"--launcher", "local"}),
  };
  kprof::bench::interleave(cs, rounds, false);
  for (const auto& c : cs) {
    for (const auto& r : c.runs) {
      if (!r.ok) {
        std::ifstream in(c.stdout_path);
        std::cerr << "bench_slurm_parallel: '" << c.label << "' failed:\n" << in.rdbuf();
        return 1;
      }
    }
  }
  std::printf(
      "workload: sleep %s under rocprofv3-sim (SIMULATED), 5 counter passes, %d rounds, "
      "load %s\n",
      sleep_s.c_str(), rounds, kprof::bench::load_average().c_str());
  std::printf("%-12s %-26s %-26s\n", "contender", "wall s: median [lo..hi]",
              "cpu s: median [lo..hi]");
  for (const auto& c : cs)
    std::printf("%-12s %-26s %-26s\n", c.label.c_str(), kprof::bench::spread(c.wall()).c_str(),
                kprof::bench::spread(c.cpu()).c_str());
  std::printf(
      "array / sequential (same Slurm, one task at a time): %s (paired median [lo..hi]); "
      "workload-only expectation ceil(5/4)/5 = 0.400\n",
      kprof::bench::spread(kprof::bench::wall_ratio(cs[0], cs[1])).c_str());
  std::printf("array / local launcher (no Slurm):                   %s (paired median [lo..hi])\n",
              kprof::bench::spread(kprof::bench::wall_ratio(cs[0], cs[2])).c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
