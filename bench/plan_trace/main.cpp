// plan_trace_db: writes a capture database whose one run holds a finished trace pass of N
// dispatches shaped like the Qwen3 decode loop (bench/common/decode_loop_capture.hpp: 48 layers x
// 17 kernels + 31 per-step kernels, a prefill step with other grids and kernel ids), the trace
// `kprof plan` previews rotation on and `kprof run` selects kernels from. Simulated data.
//
//   plan_trace_db DB N
// Then time `kprof plan bench/plan_trace/plan_trace.yaml --db DB --simulate` (performance.md).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "bench/common/decode_loop_capture.hpp"
#include "core/store/capture_db.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: plan_trace_db DB N\n");
    return 2;
  }
  const std::filesystem::path db_path = argv[1];
  const int64_t n = std::atoll(argv[2]);
  try {
    std::filesystem::remove(db_path);
    kprof::bench::build_decode_loop_capture(db_path, n);
    // The loader leaves the pass planned; the preview reads only a finished trace pass.
    kprof::store::CaptureDb db(db_path);
    const auto run = db.find_last_run();
    for (const auto& p : db.list_passes(run->id)) {
      kprof::store::PassTransition t;
      t.state = kprof::store::PassState::running;
      db.set_pass_state(p.id, t);
      t.state = kprof::store::PassState::done;
      t.exit_code = 0;
      db.set_pass_state(p.id, t);
    }
    db.set_run_status(run->id, kprof::store::RunStatus::done);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plan_trace_db: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %lld dispatches\n", db_path.c_str(), static_cast<long long>(n));
  return 0;
}
