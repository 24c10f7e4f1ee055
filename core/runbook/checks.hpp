// Internal to core/runbook: checks of single values whose rules are not YAML's (regexes, names,
// rocprofv3's iteration-range syntax). Each returns the problem in words, or nullopt when fine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kprof::runbook::detail {

// std::regex (ECMAScript) is what rocprofv3 applies to kernel names
// (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp), so
// a regex that compiles here means the same there. Messages are ours, not libstdc++'s what().
std::optional<std::string> regex_problem(const std::string& pattern);

// rocprofv3 `--kernel-iteration-range`: tokens split on '[', ']', ',' and spaces; each token N or
// A-B (inclusive), 1-based (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/config.cpp).
std::optional<std::string> iteration_range_problem(std::string_view text);

// Runbook names become file names (the default database) and run labels.
bool is_valid_name(std::string_view name);
// POSIX environment variable names: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

}  // namespace kprof::runbook::detail
