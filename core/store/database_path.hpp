// What the commands check about a capture database's path before they open or create it, and how
// a command that only reads names a damaged file. CaptureDb (capture_db.hpp) and exec's RunLock
// call these; the analysis commands wrap their reading in with_database_errors.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

namespace kprof::store {

// Refuses (Error, input) a database path kprof must not open or create: a symbolic link whose
// target does not exist (kprof would create a file the user never named, and a failed command
// could only clean up by removing the link), and anything that exists but is neither a regular
// file nor a folder (a FIFO would block open(2) forever, a device is not a database). A missing
// path, a regular file and a link to one pass; folders are refused by the open itself.
void require_database_path(const std::filesystem::path& path);

// create_capture_db (capture_db.hpp), saying whether this call created the file: false when a file
// was there, or another process linked its own into place first.
bool create_capture_db_here(const std::filesystem::path& path);

// Runs `fn`, a command's reading of the databases `dbs`, and turns an SQLite failure that escapes
// it into kprof::Error: a damaged file is named (each of `dbs` is checked with PRAGMA quick_check)
// with the hint of how to recover its rows, as the commands that write give it.
void with_database_errors(const std::vector<std::filesystem::path>& dbs,
                          const std::function<void()>& fn);

}  // namespace kprof::store
