// The rocprofv3 options that runbook keys control, each with the key to use instead. One list: the
// runbook loader refuses them in `profiler.extra_args` (a second copy would contradict the plan,
// and `--` would end rocprofv3's options early), and the profiler backend (core/exec) emits only
// options from it, which its tests check. Spellings: ROCm/rocprofiler-sdk source/bin/rocprofv3.py.
#pragma once

#include <span>
#include <string_view>

namespace kprof::runbook {

struct OwnedOption {
  std::string_view option;   // as rocprofv3 spells it, e.g. "--kernel-trace"
  std::string_view instead;  // the runbook key that sets it
};

inline constexpr OwnedOption k_rocprofv3_owned_options[] = {
    {"--", "workload.command"},
    {"-d", "database and captures"},
    {"--output-directory", "database and captures"},
    {"-o", "database and captures"},
    {"--output-file", "database and captures"},
    {"-f", "profiler.output_format"},
    {"--output-format", "profiler.output_format"},
    {"--pmc", "passes.counters"},
    {"-i", "passes.counters"},
    {"--input", "passes.counters"},
    {"--kernel-trace", "passes.trace.enabled"},
    {"--stats", "passes.trace.stats"},
    {"--marker-trace", "passes.trace.markers"},
    {"--kernel-include-regex", "passes.counters.kernels.include_regex"},
    {"--kernel-exclude-regex", "passes.counters.kernels.exclude_regex"},
    {"--kernel-iteration-range", "passes.counters.iteration_range"},
    {"--selected-regions", "profiler.selected_regions"},
    {"-T", "profiler.truncate_kernels"},
    {"--truncate-kernels", "profiler.truncate_kernels"},
    {"-A", "profiler.agent_index"},
    {"--agent-index", "profiler.agent_index"},
};

inline std::span<const OwnedOption> rocprofv3_owned_options() { return k_rocprofv3_owned_options; }

}  // namespace kprof::runbook
