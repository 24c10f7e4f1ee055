// A synthetic capture database shaped like the Qwen3 decode loop, for the benches that read one
// (bench/query, bench/export): steps of 48 layers x 17 kernels plus 31 per-step kernels, the first
// step (prefill) with other grids and kernel ids, written through the store's real loader; with
// counter passes (DecodeLoopShape::counter_passes), the same kernel sequence again per pass, as
// rocprofv3 counter_collection.csv loads. Simulated data: the run is marked simulated.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::bench {

struct DecodeLoopShape {
  std::string run_name = "bench";
  bool two_queues = false;  // every 7th kernel on queue 2 (the export's per-queue tracks)
  // Counter passes after the trace pass (0: none, the database the benches measured first), each
  // loaded as rocprofv3 --pmc writes counter_collection.csv in a run of its own; with any, the
  // passes also get agent_info's gfx942 GPU agent, so an export derives FLOPs and bytes.
  int counter_passes = 0;
  // The counters of each counter pass, as a plan gives them (pass 1 first); empty: the fixed sets
  // of decode_loop_counters. With them, counter_passes is their count.
  std::vector<std::vector<std::string>> counter_plan;
  // Only the dispatches whose kernel name contains this are in a counter pass, as rocprofv3's
  // --kernel-include-regex of a plain name leaves them; empty: every dispatch.
  std::string counter_kernels;
};

// The counters of counter pass `ordinal` (1-based), in the name order the counter_collection
// reader delivers them (rocprofv3 writes a dispatch's counters sorted by name). Pass 1 holds the
// ones the roofline formulas need (MFMA BF16 FLOPs; HBM bytes from FETCH_SIZE and WRITE_SIZE, KiB,
// rows rocprofv3 writes for derived counters); later passes other counters.
inline std::vector<std::string> decode_loop_counters(int ordinal) {
  if (ordinal == 1) return {"FETCH_SIZE", "SQ_INSTS_VALU_MFMA_MOPS_BF16", "SQ_WAVES", "WRITE_SIZE"};
  return {"GRBM_COUNT", "GRBM_GUI_ACTIVE", "SQ_BUSY_CYCLES", "SQ_WAVE_CYCLES"};
}

// Every dispatch of the decode loop in launch order, as the trace pass holds it.
template <class F>
void for_each_decode_loop_dispatch(int64_t n, const DecodeLoopShape& shape, F&& f) {
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
      // Two of a layer's kernels are the MoE GEMMs (vLLM's Triton fused_moe_kernel, one name for
      // both, told apart by grid), which the Qwen3 runbook's counter passes select.
      d.kernel_name = k == 7 || k == 12 ? std::string("fused_moe_kernel")
                                        : "bench_kernel_" + std::to_string(k) + "<c10::BFloat16, " +
                                              std::to_string(k % 3) + ">";
      d.grid_x = (step == 0 ? 4096 : 256) * (1 + k % 5);
      d.wg_x = 256;
      d.vgpr = 80, d.agpr = 0, d.sgpr = 48;
      f(d, k);
    };
    for (int k = 0; k < per_step_extra / 2; ++k) emit(100 + k);
    for (int l = 0; l < layers; ++l)
      for (int k = 0; k < per_layer; ++k) emit(k);
    for (int k = per_step_extra / 2; k < per_step_extra; ++k) emit(100 + k);
  }
}

// agent_info.csv of a one-GPU MI300X node as rocprofv3 writes it (the CPU agent, then the GPU).
inline void load_decode_loop_agents(store::PassLoader& loader) {
  loader.begin_file("synthetic_agent_info", "agent_info");
  store::AgentRow cpu;
  cpu.node_id = cpu.logical_node_id = 0;
  cpu.type = "CPU";
  cpu.name = "AMD EPYC 9454 48-Core Processor";
  cpu.product_name = cpu.name;
  loader.agent(cpu);
  store::AgentRow gpu;
  gpu.node_id = gpu.logical_node_id = 2;  // the dispatches' "Agent 2"
  gpu.type = "GPU";
  gpu.name = "gfx942";
  gpu.product_name = "AMD Instinct MI300X";
  gpu.cu_count = 304;
  gpu.simd_count = 1216;
  gpu.wave_front_size = 64;
  gpu.max_waves_per_simd = 8;
  gpu.num_xcc = 8;
  gpu.max_engine_clk_mhz = 2100;
  loader.agent(gpu);
  loader.end_file(2);
}

// Counter pass `ordinal` of the same workload, as rocprofv3 counter_collection.csv loads (the
// CounterCollectionReader's rows): the trace's kernel sequence run again by another process, so
// Dispatch_Ids of its own run (1..n), another pid and its own clock, kernels serialized and slowed
// by the counter collection; grid and workgroup only as products; then each dispatch's counters.
inline void load_decode_loop_counter_pass(store::CaptureDb& db, int64_t run, int64_t n,
                                          const DecodeLoopShape& shape, int ordinal) {
  store::PlannedPass p;
  p.ordinal = ordinal;
  p.kind = store::PassKind::counters;
  if (shape.counter_plan.empty()) {
    p.counters = decode_loop_counters(ordinal);
  } else {
    p.counters = shape.counter_plan.at(static_cast<size_t>(ordinal - 1));
    std::sort(p.counters.begin(), p.counters.end());  // the reader's order: by name
  }
  const int64_t pass = db.add_planned_pass(run, p);
  store::PassLoader loader(db, pass);
  load_decode_loop_agents(loader);
  loader.begin_file("synthetic_counter_collection", "counter_collection");
  int64_t t = 5'000'000'000 * ordinal;
  store::CounterRow c;
  int64_t rows = 0;
  for_each_decode_loop_dispatch(n, shape, [&](store::DispatchRow& d, int k) {
    if (!shape.counter_kernels.empty() &&
        d.kernel_name.find(shape.counter_kernels) == std::string::npos)
      return;
    d.pid = 5000 + ordinal;
    d.correlation_id = d.dispatch_id;
    d.start_ns = t + 20'000;
    d.end_ns = d.start_ns + 2 * (3000 + 97 * k);
    t = d.end_ns;
    d.grid_x *= d.grid_y * d.grid_z;
    d.wg_x *= d.wg_y * d.wg_z;
    d.grid_y = d.grid_z = d.wg_y = d.wg_z = 1;
    d.dims_known = false;
    loader.dispatch(d);
    c.pid = d.pid;
    c.dispatch_id = d.dispatch_id;
    // Values that vary by kernel and a little by launch.
    const double base = static_cast<double>(d.grid_x) * (1 + k % 11);
    const double jitter = 1 + static_cast<double>(d.dispatch_id % 13) / 100;
    int i = 0;
    for (const auto& name : p.counters) {
      c.counter = name;
      c.value = std::floor(base * jitter * (i + 1) * (ordinal == 1 && i == 1 ? 40 : 1));
      loader.counter(c);
      ++i;
      ++rows;
    }
  });
  loader.end_file(rows);
  loader.commit();
}

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
  {
    store::PassLoader loader(db, pass);
    if (shape.counter_passes > 0 || !shape.counter_plan.empty()) load_decode_loop_agents(loader);
    loader.begin_file("synthetic", "kernel_trace");
    for_each_decode_loop_dispatch(n, shape,
                                  [&](const store::DispatchRow& d, int) { loader.dispatch(d); });
    loader.end_file(n);
    loader.commit();
  }
  const int passes = shape.counter_plan.empty() ? shape.counter_passes
                                                : static_cast<int>(shape.counter_plan.size());
  for (int k = 1; k <= passes; ++k) load_decode_loop_counter_pass(db, run, n, shape, k);
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
