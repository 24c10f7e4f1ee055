#include "core/exec/run_estimate.hpp"

#include "core/base/error.hpp"
#include "core/sim/model.hpp"

namespace kprof::exec {

RunEstimate estimate_runs(const runbook::Runbook& rb, size_t passes, int repeats, int64_t counted) {
  RunEstimate e;
  if (!rb.sim.present || rb.sim.model.value.empty()) {
    e.unavailable = "no workload model (the runbook's sim.model) to estimate run times from";
    return e;
  }
  sim::RunTimes t;
  try {
    t = sim::run_times(sim::load_model_named(rb.sim.model.value));
  } catch (const Error& err) {
    e.unavailable = std::string("workload model not readable: ") + err.what();
    return e;
  }
  e.model = rb.sim.model.value;
  e.load_s = t.load_ns * 1e-9;
  e.warmup_s = t.warmup_ns * 1e-9;
  e.region_s = t.region_ns * 1e-9;
  const double counted_s = static_cast<double>(counted) * t.counter_extra_ns * 1e-9;
  const double trace = e.load_s + e.warmup_s + e.region_s;
  const double counter = e.load_s + e.warmup_s + e.region_s + counted_s;
  e.application_runs = 1 + static_cast<int>(passes);
  e.repeats = repeats;
  e.application_s = trace + static_cast<double>(passes) * counter;
  e.rotated_s = trace + e.load_s + e.warmup_s + repeats * (e.region_s + counted_s);
  return e;
}

}  // namespace kprof::exec
