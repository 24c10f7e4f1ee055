// Text conventions of rocprofv3's output that the double reproduces: CSV number formats, glog-style
// stderr prefixes and the output-path placeholders (%hostname%, %pid%, ...).
// Sources: csv.hpp and format_path.cpp of
// ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output).
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <string>
#include <string_view>

namespace kprof::sim {

// Counter_Value style: >= 1 fixed with 6 decimals ("16384.000000"), otherwise (0, negatives,
// fractions) scientific with 8 digits ("0.00000000e+00").
std::string format_counter_value(double v);
// AverageNs / StdDev style: > 0.01 fixed 6 decimals, else scientific 8 digits.
std::string format_stats_double(double v);
// Percentage style: >= 1 two decimals, > 0.01 four decimals, else scientific 3 digits.
std::string format_percentage(double v);
// A CSV string field: wrapped in '"', embedded quotes NOT escaped (as rocprofv3's csv.hpp does).
std::string csv_quoted(std::string_view s);

// "W20261202 16:43:14.123456 140280525504320 tool.cpp:1234] " — glog's prefix for one line.
// `severity` is one of I, W, E, F; `tid` is the OS thread id of the profiled process.
std::string glog_prefix(char severity, uint64_t tid, std::string_view file_line);

// Expands rocprofv3 placeholders in an -o/-d value for the process `pid`: %hostname%, %pid%,
// %ppid%, %cwd%, %rank%, %job%, %launch_date%, short forms %h %p %r %j, and {key} spellings.
// Unknown placeholders are left as written (the real tool does the same for unknown keys).
std::string expand_placeholders(std::string_view pattern, pid_t pid, pid_t ppid);

std::string hostname();

}  // namespace kprof::sim
