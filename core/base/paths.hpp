// Where kprof finds its data files (configs/) and its sibling executables (rocprofv3-sim).
#pragma once

#include <filesystem>

namespace kprof {

// The folder holding this process's executable (from /proc/self/exe).
std::filesystem::path self_exe_dir();

// configs/ of this installation. Order: $KPROF_CONFIG_DIR, <exe>/../share/kprof/configs,
// <exe>/../configs, then the source tree the binary was built from. Throws Error when none exists.
std::filesystem::path config_dir();

}  // namespace kprof
