// Test-only: a capture database of two ranks written by hand through the store's loader. Rank r is
// pid 101 + r on GPU agent 1 + r; each runs a GEMM from 1000 ns to its arrival at a vLLM
// all-reduce, 1100 ns on rank 0 and 1100 + delay_ns on rank 1; the all-reduce ends on both 100 ns
// after the later arrival. So rank 0 computes 100 ns and waits in the collective 100 + delay_ns;
// rank 1 computes 100 + delay_ns and spends 100 ns in it.
#pragma once

#include <filesystem>

#include "core/store/capture_db.hpp"

namespace kprof::report::test {

inline void write_two_rank_db(const std::filesystem::path& path, int64_t delay_ns) {
  store::CaptureDb db(path);
  store::NewRun run;
  run.name = "tp";
  run.host = "test-host";
  run.kprof_version = "test";
  store::PlannedPass pass;
  pass.kind = store::PassKind::trace;
  const int64_t id = db.add_planned_pass(db.create_run(run), pass);
  store::PassLoader loader(db, id);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  int64_t n = 0;
  const int64_t end = 1100 + delay_ns + 100;
  for (int64_t rank : {0, 1}) {
    const int64_t arrive = 1100 + (rank ? delay_ns : 0);
    for (const auto& [name, start, stop] :
         {std::tuple{"Cijk_Alik_Bljk_BBS_BH_MT64x64", int64_t{1000}, arrive},
          std::tuple{"void vllm::cross_device_reduce_1stage<__hip_bfloat16, 2>(vllm::RankData*)",
                     arrive, end}}) {
      store::DispatchRow d;
      d.dispatch_id = d.correlation_id = ++n;
      d.kernel_id = n % 2 ? 1 : 2;
      d.pid = d.tid = 101 + rank;
      d.agent = 1 + rank;
      d.queue_id = 1;
      d.start_ns = start;
      d.end_ns = stop;
      d.kernel_name = name;
      d.grid_x = 1024;
      d.wg_x = 256;
      loader.dispatch(d);
    }
  }
  loader.end_file(n);
  loader.commit();
  store::PassTransition done;
  done.state = store::PassState::done;
  db.set_pass_state(id, done);
}

}  // namespace kprof::report::test
