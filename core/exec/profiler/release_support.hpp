// What kprof does with each rocprofv3 release it has an option table for (configs/rocprofv3):
// output format, how counters are asked, kernel filters, how a selected region is applied,
// rotation and kernel replay, each derived from the release's table and version rules
// (rocprofv3_version.hpp), never written by hand. docs/rocprofv3-releases.md holds the same
// table, and a test compares the two.
#pragma once

#include <string>
#include <vector>

#include "core/base/rocprof_release.hpp"
#include "core/exec/profiler/rocprofv3_version.hpp"

namespace kprof::exec {

// The version kprof reads from a tool of `release` (--version from ROCm 7.0, --help before).
ProfilerVersion version_of_release(const RocprofRelease& release);

// One markdown row per release, oldest first, with the header and separator first:
// | release | ROCm | rocprofiler-sdk | format | counters | kernel filters | region | rotation |
// kernel replay |
std::vector<std::string> release_support_rows();

// What release_support_rows() says, in the README's few words; one markdown row per release
// after the header:
// | release | ROCm | output | region | counter passes | kernel replay |
std::vector<std::string> release_summary_rows();

}  // namespace kprof::exec
