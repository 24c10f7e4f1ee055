// The planner's inputs from a runbook: passes.counters.metric_sets / counters / pins, resolved
// against the target and the metric sets, each name keeping its runbook position.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"
#include "core/plan/rocprof_command.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::plan {

// Metric sets are read by the caller (I/O) and passed in. Unknown counters, sets or pinned names:
// Error(input) at the runbook's file:line:col with the source line and the three nearest names.
Request request_from_runbook(const runbook::Runbook& rb, const hw::Target& target,
                             const std::vector<hw::MetricSet>& sets);

// A PassCommand from the runbook's profiler, counter-pass and workload settings. `output_dir` and
// `output_name` are the executor's choice; `kernel_include_regex` overrides the runbook's (for
// kernels chosen from the trace pass).
PassCommand pass_command_from_runbook(
    const runbook::Runbook& rb, const std::vector<std::string>& counters,
    const std::filesystem::path& output_dir, const std::string& output_name,
    const std::optional<std::string>& kernel_include_regex = std::nullopt);

}  // namespace kprof::plan
