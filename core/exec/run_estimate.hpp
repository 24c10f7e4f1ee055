// How long the application runs of a profile take, estimated from the workload model's modelled
// times (configs/sim/<model>.yaml: load, warm-up, one measured request; core/sim/model.hpp
// run_times): a trace run, then either one run per counter pass (application replay) or ONE
// rotated run that repeats the request R times after a single load. Every figure is an ESTIMATE
// from a MODELLED workload (SIMULATED), never a measurement; without a workload model (the
// runbook's sim.model) there is none.
#pragma once

#include <cstdint>
#include <string>

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
};

// `passes`: the counter passes planned; `repeats`: the rotated run's requests; `counted`: the
// dispatches per request that the counter runs count (each pays the model's counter overhead).
RunEstimate estimate_runs(const runbook::Runbook& rb, size_t passes, int repeats, int64_t counted);

}  // namespace kprof::exec
