// Planner requests from metric sets (no runbook needed): benchmarks, tests, `kprof counters`.
#pragma once

#include <vector>

#include "core/hw/metric_set.hpp"
#include "core/plan/plan.hpp"

namespace kprof::plan {

// Appends the set's counters (with their positions) and one soft group per formula, named
// "<set>.<metric>".
void append_metric_set(Request& request, const hw::MetricSet& set);
Request request_from_sets(const std::vector<hw::MetricSet>& sets);

}  // namespace kprof::plan
