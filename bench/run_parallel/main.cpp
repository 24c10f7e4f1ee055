// bench/run_parallel: how much `--gpus 0,1,2,3` shortens a run whose passes are dominated by the
// workload's own run time. The workload is `sleep S` under rocprofv3-sim (small doc-vector-ops
// model, so ingest is negligible); the runbook asks for 10 GRBM counters, which the planner must
// split into P = 5 passes (GRBM holds 2 per pass), and no trace pass, so every pass can run in
// parallel. With 4 GPUs the passes run in ceil(P/4) waves instead of P: the expected wall-time
// ratio is ceil(P/4)/P, plus kprof's own fixed costs (planning, starting the double).
//   usage: bench_run_parallel [SLEEP_SECONDS]   (default 1)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/common/grbm_runbook.hpp"
#include "core/base/error.hpp"
#include "core/exec/node/process_runner.hpp"

namespace {

namespace fs = std::filesystem;

double run_kprof(const fs::path& dir, const fs::path& rb, const std::string& db,
                 const std::string& gpus) {
  kprof::exec::LaunchSpec s;
  s.argv = {std::string(KPROF_BIN_DIR) + "/kprof",
            "run",
            rb.string(),
            "--simulate",
            "--quiet",
            "--db",
            (dir / db).string()};
  if (!gpus.empty()) s.argv.insert(s.argv.end(), {"--gpus", gpus});
  s.log_path = dir / (db + ".log");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = kprof::exec::run_process(s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    std::cerr << "kprof failed (" << r.describe() << "):\n" << r.log_tail;
    std::exit(1);
  }
  return secs;
}

int count_passes(const fs::path& log) {
  std::ifstream in(log);
  std::string line;
  int passes = 0;
  while (std::getline(in, line)) {
    if (line.size() > 6 && line.find("counters") != std::string::npos &&
        line.find("done") != std::string::npos && line.find_first_of("0123456789") == 0) {
      ++passes;
    }
  }
  return passes;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string sleep_s = argc > 1 ? argv[1] : "1";
  const fs::path dir =
      fs::temp_directory_path() / ("kprof-bench-run-parallel-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rb = dir / "parallel.yaml";
  kprof::bench::write_grbm_runbook(rb, "run-parallel", sleep_s, "doc-vector-ops");
  try {
    const double one = run_kprof(dir, rb, "one.db", "");
    const double four = run_kprof(dir, rb, "four.db", "0,1,2,3");
    const int p = count_passes(dir / "one.db.log");
    const double expected = p > 0 ? static_cast<double>((p + 3) / 4) / p : 0;
    std::printf("workload: sleep %s under rocprofv3-sim (SIMULATED), P = %d counter passes\n",
                sleep_s.c_str(), p);
    std::printf("%-18s %10s\n", "mode", "wall s");
    std::printf("%-18s %10.2f\n", "--gpus (none)", one);
    std::printf("%-18s %10.2f\n", "--gpus 0,1,2,3", four);
    std::printf("ratio 4 GPUs / 1 GPU: %.3f   expected ceil(P/4)/P = %d/%d = %.3f\n", four / one,
                (p + 3) / 4, p, expected);
  } catch (const kprof::Error& e) {
    std::cerr << "bench_run_parallel: " << e.what() << "\n";
    return 1;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
