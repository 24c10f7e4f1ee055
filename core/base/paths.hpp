// Where kprof finds its data files (configs/) and its sibling executables (rocprofv3-sim).
//
// One layout serves the build tree and an installation: the configs live in
// <prefix>/share/kprof/configs beside <prefix>/bin/kprof (GNUInstallDirs), and the build tree
// mirrors it (build/share/kprof/configs is a link to the source tree's configs/, made by CMake).
// No source path is compiled into the binary, so an installed or copied kprof never reads a source
// tree by accident.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace kprof {

// The folder holding this process's executable (from /proc/self/exe).
std::filesystem::path self_exe_dir();

// configs/ of this installation. Order: $KPROF_CONFIG_DIR (must be a folder holding hw/), then
// share/kprof/configs under the executable's folder's parent or one of the next two ancestors
// (bin/kprof in a prefix or a build tree; tests/<sub>/<test> in a build tree). Throws Error
// naming every place it looked when none exists.
std::filesystem::path config_dir();

// The places config_dir() tries after $KPROF_CONFIG_DIR, nearest first.
std::vector<std::filesystem::path> config_dir_candidates(const std::filesystem::path& exe_dir);

// share/kprof of the installation (or build tree) this executable belongs to: the first of
// config_dir_candidates() holding configs/hw, without its configs/ and with links left as they
// are (the build tree's configs/ links into the source tree, whose runbooks are the user's).
// nullopt when there is none. $KPROF_CONFIG_DIR does not move it.
std::optional<std::filesystem::path> installed_data_dir();

// Whether `file` lies inside `dir` (both made absolute and normalised; links not followed).
bool path_is_under(const std::filesystem::path& file, const std::filesystem::path& dir);

}  // namespace kprof
