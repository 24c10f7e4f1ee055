// How long the application runs of a profile take, estimated from the workload model's modelled
// times (configs/sim/<model>.yaml: load, warm-up, one measured request; read through the
// WorkloadModelLoader the app composes, workload_model.hpp): a trace run, then either one run per
// counter pass (application replay) or ONE rotated run that repeats the request R times after a
// single load. Every figure is an ESTIMATE from a MODELLED workload (SIMULATED), never a
// measurement; without a workload model (the runbook's sim.model) or without a loader there is
// none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/exec/usecases/workload_model.hpp"
#include "core/plan/rotation.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

struct RunEstimate {
  std::string unavailable;                        // non-empty: why there is no estimate
  std::string model;                              // the workload model it came from
  double load_s = 0, warmup_s = 0, region_s = 0;  // one run's parts
  int application_runs = 0;                       // trace + one per pass
  double application_s = 0;
  int rotated_runs = 2;  // trace + one rotated run
  int repeats = 1;       // requests in the rotated run
  double rotated_s = 0;
  // Where `repeats` comes from: a trace in the database ("run 3's trace"), or, before any trace,
  // the workload model's own dispatch sequence (an ESTIMATE: kprof decides R on the run's trace).
  std::string repeats_basis;
};

// The rotation kprof would choose on the workload model's dispatch sequence (the model's region,
// the runbook's include_regex), before any trace exists: what `kprof plan` shows as the estimated
// R, and what bench/run_count compares. nullopt without a readable workload model (or `load`).
// `counted` gets the dispatches per request the rotated run counts, `variants` the variants among
// them.
struct ModelRotation {
  plan::RotationChoice choice;
  int64_t counted = 0;
  size_t variants = 0;
  std::string model;
};
std::optional<ModelRotation> rotation_on_model(const runbook::Runbook& rb, size_t groups,
                                               int64_t min_samples,
                                               const WorkloadModelLoader& load);

// `passes`: the counter passes planned; `repeats`: the rotated run's requests; `counted`: the
// dispatches per request that the counter runs count (each pays the model's counter overhead).
// `load`, reading each model once: later calls with the same name get the first call's model (a
// failed load is not kept, so it fails again).
WorkloadModelLoader loaded_once(WorkloadModelLoader load);

RunEstimate estimate_runs(const runbook::Runbook& rb, size_t passes, int repeats, int64_t counted,
                          const WorkloadModelLoader& load);

}  // namespace kprof::exec
