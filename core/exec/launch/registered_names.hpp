// The runbook names its pass launcher (`launcher.type`) and its profiler backend
// (`profiler.backend`) as written: the registries that know the names (pass_launchers.cpp,
// profiler_backends.cpp) are core/exec's, which core/runbook may not include (ARCHITECTURE.md), so
// the names are checked here, by `kprof validate`, `plan`, `run` and `resume`, before anything
// runs or is recorded. A new launcher or backend is then accepted by its registration line alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

// One diagnostic per name of the runbook that no registry holds; empty when all are known.
std::vector<Diagnostic> unregistered_names(const runbook::Runbook& rb);

// Throws Error(input) with every diagnostic of unregistered_names(rb) and of
// unknown_counter_names(rb) (counter_names.hpp).
void check_registered_names(const runbook::Runbook& rb);

}  // namespace kprof::exec
