// The test double's workload models (core/sim/model.hpp) as core/exec's WorkloadModelLoader
// (core/exec/usecases/workload_model.hpp): the implementation the main composes into the use cases
// that estimate, so that core/exec does not link the double's engine.
#pragma once

#include "core/exec/usecases/workload_model.hpp"

namespace kprof::app {

exec::WorkloadModelLoader sim_workload_model_loader();

}  // namespace kprof::app
