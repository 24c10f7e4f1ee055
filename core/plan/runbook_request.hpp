// The planner's inputs from a runbook: passes.counters.metric_sets / counters / pins, resolved
// against the target and the metric sets, each name keeping its runbook position.
#pragma once

#include <string>
#include <vector>

#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::plan {

// Metric sets are read by the caller (I/O) and passed in. Unknown counters, sets or pinned names:
// Error(input) at the runbook's file:line:col with the source line and the three nearest names.
Request request_from_runbook(const runbook::Runbook& rb, const hw::Target& target,
                             const std::vector<hw::MetricSet>& sets);

}  // namespace kprof::plan
