// How many application runs, and how much (modelled) wall time, the Qwen3-30B-A3B request's
// `full` counter set costs: application replay (a trace run, then one run per counter pass, each
// loading the model) against the rotation `replay: auto` chooses (a trace run, then ONE run that
// rotates the passes as pmc_groups and repeats the request R times after one load). The rotation
// is chosen exactly as kprof chooses it (plan::choose_rotation, through exec::rotation_on_model,
// which `kprof plan` shows before a trace) on the model's own fused-MoE dispatch sequence, the
// kernels of interest of runbooks/qwen3-30b-a3b-sim.yaml; the wall times come from the workload
// model's modelled load, warm-up and request times (exec::estimate_runs). EVERY TIME HERE IS
// SIMULATED (configs/sim/qwen3-30b-a3b-mi300x.yaml), none was measured. Usage: run_count_bench
// [--min-samples N]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/kprof/sim_workload.hpp"
#include "core/base/error.hpp"
#include "core/base/paths.hpp"
#include "core/exec/usecases/run_estimate.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"
#include "core/plan/rotation.hpp"
#include "core/runbook/runbook.hpp"

int main(int argc, char** argv) {
  using namespace kprof;
  int64_t min_samples = 30;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-samples") == 0 && i + 1 < argc) {
      min_samples = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: run_count_bench [--min-samples N]\n");
      return 2;
    }
  }
  try {
    const hw::Target t = hw::Target::load_arch("gfx942");
    const plan::Plan p =
        plan::plan_passes(t, plan::request_from_sets({hw::load_metric_set_named("full", t)}));
    const size_t groups = p.passes.size();
    const runbook::Runbook rb =
        runbook::load_runbook(config_dir().parent_path() / "runbooks" / "qwen3-30b-a3b-sim.yaml");
    // The rotation kprof would choose on the model's own sequence of counted dispatches.
    const auto load = app::sim_workload_model_loader();
    const auto m = exec::rotation_on_model(rb, groups, min_samples, load);
    if (!m) throw Error::runtime("no workload model in " + rb.source.string(), "check sim.model");
    const plan::RotationChoice& c = m->choice;
    std::printf(
        "run_count: Qwen3-30B-A3B request (workload model %s), metric set full on gfx942:\n"
        "%zu counter passes; kernels of interest %s: %zu variants, %zu counted launches a "
        "request\nSIMULATED: times are the model's modelled load, warm-up and request times, "
        "not measurements\n\n",
        m->model.c_str(), groups,
        rb.passes.counters.kernels.include_regex.value.value_or("(all)").c_str(), m->variants,
        static_cast<size_t>(m->counted));
    if (!c.feasible) {
      std::printf("rotation: not possible (%s): application replay only\n", c.why.c_str());
      return 0;
    }
    const exec::RunEstimate e = exec::estimate_runs(rb, groups, c.repeats, m->counted, load);
    if (!e.unavailable.empty()) throw Error::runtime(e.unavailable, "check the workload model");
    std::printf("one application run: load %.1f s + warm-up %.3f s + one request %.3f s\n\n",
                e.load_s, e.warmup_s, e.region_s);
    std::printf("%-34s %16s %18s\n", "", "application runs", "wall time (SIM.)");
    std::printf("%-34s %16d %16.1f s\n", "application replay (1 + passes)", e.application_runs,
                e.application_s);
    char label[96];
    std::snprintf(label, sizeof label, "rotate (auto: interval %llu, R %d)",
                  static_cast<unsigned long long>(c.interval), c.repeats);
    std::printf("%-34s %16d %16.1f s\n", label, e.rotated_runs, e.rotated_s);
    std::printf(
        "\nratio application replay / rotate: runs %.2fx, wall time %.2fx\nevery variant "
        ">= %lld samples of each of the %zu groups in the rotated run\n",
        static_cast<double>(e.application_runs) / e.rotated_runs, e.application_s / e.rotated_s,
        static_cast<long long>(c.least), groups);
    return 0;
  } catch (const Error& err) {
    std::fprintf(stderr, "run_count_bench: %s\n", err.what());
    return 1;
  }
}
