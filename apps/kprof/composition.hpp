// What the main composes for the subcommands: the implementations of core/ seams that live outside
// the library that uses them (ARCHITECTURE.md, "Seams"). main() sets it once before any command
// runs; a command reads it.
#pragma once

#include "core/exec/usecases/workload_model.hpp"

namespace kprof::app {

struct Composition {
  exec::WorkloadModelLoader workload_model;  // the test double's models (sim_workload.hpp)
};

const Composition& composition();
void compose(Composition c);

}  // namespace kprof::app
