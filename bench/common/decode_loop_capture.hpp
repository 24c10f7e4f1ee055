// A synthetic capture database shaped like the Qwen3 decode loop, for the benches that read one
// (bench/query, bench/export): steps of 48 layers x 17 kernels plus 31 per-step kernels, the first
// step (prefill) with other grids and kernel ids, written through the store's real loader.
// Simulated data: the run is marked simulated.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/store/capture_db.hpp"

namespace kprof::bench {

struct DecodeLoopShape {
  std::string run_name = "bench";
  bool two_queues = false;  // every 7th kernel on queue 2 (the export's per-queue tracks)
};

inline void build_decode_loop_capture(const std::filesystem::path& path, int64_t n,
                                      const DecodeLoopShape& shape = {}) {
  store::CaptureDb db(path);
  store::NewRun r;
  r.name = shape.run_name;
  r.host = "bench";
  r.kprof_version = "bench";
  r.simulated = true;
  const int64_t run = db.create_run(r);
  store::PlannedPass p;
  const int64_t pass = db.add_planned_pass(run, p);
  store::PassLoader loader(db, pass);
  loader.begin_file("synthetic", "kernel_trace");
  const int per_layer = 17, layers = 48, per_step_extra = 31;
  int64_t t = 1'000'000'000, id = 1;
  for (int64_t step = 0; id <= n; ++step) {
    t += 40'000;  // host gap between steps
    auto emit = [&](int k) {
      if (id > n) return;
      store::DispatchRow d;
      d.dispatch_id = id++;
      d.kernel_id = k + (step == 0 ? 100 : 0);
      d.agent = 2;
      if (shape.two_queues) d.queue_id = k % 7 == 0 ? 2 : 1;
      d.pid = 4242;
      d.start_ns = t;
      d.end_ns = t + 3000 + 97 * k;
      t = d.end_ns + 500;
      d.kernel_name =
          "bench_kernel_" + std::to_string(k) + "<c10::BFloat16, " + std::to_string(k % 3) + ">";
      d.grid_x = (step == 0 ? 4096 : 256) * (1 + k % 5);
      d.wg_x = 256;
      d.vgpr = 80, d.agpr = 0, d.sgpr = 48;
      loader.dispatch(d);
    };
    for (int k = 0; k < per_step_extra / 2; ++k) emit(100 + k);
    for (int l = 0; l < layers; ++l)
      for (int k = 0; k < per_layer; ++k) emit(k);
    for (int k = per_step_extra / 2; k < per_step_extra; ++k) emit(100 + k);
  }
  loader.end_file(n);
  loader.commit();
}

// Builds it in a child process: Linux carries a process's peak RSS over exec (exec_mmap keeps the
// old image's high-water mark: torvalds/linux fs/exec.c, setmax_mm_hiwater_rss), so a bench that
// grew while building would inflate the figure of every contender it forks afterwards. `tool`
// prefixes the child's error message.
inline void build_decode_loop_capture_in_child(const std::filesystem::path& path, int64_t n,
                                               const DecodeLoopShape& shape, const char* tool) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    try {
      build_decode_loop_capture(path, n, shape);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: building %s: %s\n", tool, path.c_str(), e.what());
      std::_Exit(1);
    }
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("building " + path.string() + " failed");
}

}  // namespace kprof::bench
