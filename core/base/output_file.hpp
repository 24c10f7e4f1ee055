// Writes an output file (report, trace, runbook) whole or not at all, and never over what the user
// has: the path is refused when it is one of the command's inputs (the same file by inode: another
// spelling, a hard link; or that database's -wal/-shm/-journal), a symbolic link, or anything but a
// regular file (a folder, a device, a FIFO). The bytes go to a temporary file created beside the
// output with O_CREAT|O_EXCL|O_NOFOLLOW and a random name, which is renamed over the output
// (rename(2) replaces the directory entry, never what a link pointed at), and is removed on every
// error path. A temporary file left by a killed kprof ("<name>.kprof-tmp-<pid>-<random>") is
// removed by the next write of that output once its process is gone.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <vector>

namespace kprof {

// Throws Error(input) naming the path and the reason when `path` may not be written as an output
// of a command that reads `inputs` (see above). Nothing is written. Commands call it before their
// work, so a refusal comes at once; write_file_atomically checks again.
void check_output_path(const std::filesystem::path& path,
                       const std::vector<std::filesystem::path>& inputs);

// Checks `path` (check_output_path), removes leftover temporary files of dead kprof processes
// beside it, then calls `write` with a stream on a new temporary file and renames it over `path`.
// Throws Error(input) naming the path when it cannot be created, written or renamed (and removes
// the temporary file); rethrows what `write` throws, after removing the temporary file.
void write_file_atomically(const std::filesystem::path& path,
                           const std::vector<std::filesystem::path>& inputs,
                           const std::function<void(std::ostream&)>& write);

// The temporary files of `path` that kprof processes no longer running left behind: their names
// start with "<name>.kprof-tmp-", carry the pid of a process that is gone, and they are regular
// files of this user. What write_file_atomically removes before it writes.
std::vector<std::filesystem::path> stale_output_temporaries(const std::filesystem::path& path);

}  // namespace kprof
