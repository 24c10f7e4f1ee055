// Writes an output file (report, trace) whole or not at all: into `<path>.tmp-<pid>` beside it,
// then rename(2), so a reader never sees half a file and an interrupted export leaves the old one.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace kprof::report {

// Calls `write` with a stream on the temporary file; throws Error(input) naming the path when it
// cannot be created or written (and removes the temporary file).
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace kprof::report
