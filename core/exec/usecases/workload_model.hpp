// The workload model a runbook names (`sim.model`, configs/sim/<model>.yaml) as core/exec reads it
// for `kprof plan`'s estimates (run_estimate.hpp): its dispatch sequence and modelled times, as
// data. The model's reader is the rocprofv3 test double's engine (core/sim), which core/exec does
// not link: apps/kprof composes the loader in its main (apps/kprof/sim_workload.cpp) and hands it
// to the use cases that estimate (RunbookPlanRequest::workload_model).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kprof::exec {

struct ModelDispatch {
  int symbol = 0;                         // index into WorkloadModel::symbols
  std::array<uint32_t, 3> grid{1, 1, 1};  // work-items
  bool in_region = true;                  // inside the measured region (one request)
};

struct WorkloadModel {
  std::string name;
  std::vector<std::string> symbols;  // kernel names
  std::vector<ModelDispatch> dispatches;
  // Modelled times of one application run, in ns (an ESTIMATE, never a measurement).
  double load_ns = 0;           // start-up and model load
  double warmup_ns = 0;         // outside the region
  double region_ns = 0;         // one measured request
  double counter_extra_ns = 0;  // added per counted dispatch in a counter run
};

// Loads the model a runbook's `sim.model` names (a name under configs/sim or a path). Throws
// kprof::Error when it cannot be read.
using WorkloadModelLoader = std::function<WorkloadModel(const std::string& name_or_path)>;

}  // namespace kprof::exec
