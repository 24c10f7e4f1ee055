// query_bench [N ...]: builds a capture database of N dispatches per size (default 54194 and
// 10000000) shaped like the Qwen3 decode loop (steps of 48 layers × 17 kernels + 31 per-step
// kernels, one prefill step with other grids), through the store's real loader, then times the
// `explain` and `top` views end to end (load from SQLite, families, variants, phases, the view).
// load_s is the part of explain_s spent reading dispatches from SQLite. Prints wall times; no
// assertion (benchmarks are not tests). Simulated data, labelled as such.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/analysis/views.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void build(const std::filesystem::path& path, int64_t n) {
  store::CaptureDb db(path);
  store::NewRun r;
  r.name = "bench";
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {54194, 10'000'000};
  const auto dir =
      std::filesystem::temp_directory_path() / ("kprof_query_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("query_bench (simulated data)\n%12s %10s %10s %10s %10s  %s\n", "dispatches",
              "build_s", "load_s", "explain_s", "top_s", "found");
  for (int64_t n : sizes) {
    const auto path = dir / ("bench_" + std::to_string(n) + ".db");
    auto t0 = Clock::now();
    build(path, n);
    const double build_s = since(t0);
    std::string found;
    double explain_s = 0, top_s = 0, load_s = 0;
    {
      store::CaptureDb db(path, store::OpenMode::read_only);
      t0 = Clock::now();
      const auto cap = analysis::load_capture(db, std::nullopt);
      load_s = since(t0);
    }
    {
      store::CaptureDb db(path, store::OpenMode::read_only);
      t0 = Clock::now();
      analysis::QueryContext q(db, std::nullopt, analysis::FamilyRules::load_default());
      const auto t = q.view("explain", {});
      explain_s = since(t0);
      found = std::to_string(q.model().phases.prefill_steps) + " prefill + " +
              std::to_string(q.model().phases.decode_steps) + " decode steps, " +
              std::to_string(q.model().phases.layers) + " layers, " +
              std::to_string(t.rows.size()) + " families";
    }
    {
      store::CaptureDb db(path, store::OpenMode::read_only);
      t0 = Clock::now();
      analysis::QueryContext q(db, std::nullopt, analysis::FamilyRules::load_default());
      q.view("top", {});
      top_s = since(t0);
    }
    std::printf("%12lld %10.3f %10.3f %10.3f %10.3f  %s\n", static_cast<long long>(n), build_s,
                load_s, explain_s, top_s, found.c_str());
    std::fflush(stdout);
    std::filesystem::remove(path);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
