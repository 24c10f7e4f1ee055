// The metric sets (configs/metrics/*.yaml) and counters (the target's hardware file) a runbook
// names, checked before anything runs: `kprof validate` reports them with the runbook's other
// problems, and `plan`, `run` and `resume` refuse them (check_registered_names).
#pragma once

#include <vector>

#include "core/base/error.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

// One diagnostic per unknown metric set or counter of passes.counters (metric_sets, counters,
// pins), at its position, with the nearest known names (edit distance) or, when none is near, where
// the known ones are listed. Empty when all are known, or when the target has no hardware file
// (the plan reports that).
std::vector<Diagnostic> unknown_counter_names(const runbook::Runbook& rb);

}  // namespace kprof::exec
