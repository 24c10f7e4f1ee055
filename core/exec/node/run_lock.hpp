// One kprof writer at a time per capture database. The lock is flock(2) on the database file
// itself, so it is keyed by the file's identity (device + inode), not by the path as typed: a
// symlink, a hard link or `./a/../t.db` all meet the same lock, and two `kprof resume` through two
// names can no longer both drive one run. The kernel releases it when its holder dies, even by
// kill -9, so a dead owner never blocks a resume. A second writer is refused with the holder's pid
// (from /proc/locks, which lists every flock with its pid and device:inode, proc(5)) and host.
//
// flock and SQLite's fcntl(2) byte-range locks do not interact on Linux (flock(2), NOTES), so
// SQLite's own locking is unaffected. The one rule: our extra descriptor on the database file must
// be closed only after every SQLite connection to that file in this process is closed, because
// close() of any descriptor drops all of the process's fcntl locks on the file
// (https://sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
// Declare the RunLock before the CaptureDb it guards. Not for network file systems (NFS emulates
// flock with fcntl locks there; SQLite's WAL mode does not work over a network anyway,
// https://sqlite.org/wal.html).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace kprof::exec {

std::string host_name();

class RunLock {
 public:
  // Creates the database (whole, with its folder) when it is missing, then locks it. Throws Error
  // (runtime) when another process holds the lock: "database X is in use by kprof pid 123 on host
  // h" with a hint; Error (input) when the path is not a regular file.
  explicit RunLock(const std::filesystem::path& db_path);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  // True when this lock's constructor created the database file (it was missing).
  bool created() const { return m_created; }
  // Removes the database file (and its -wal, -shm) when this lock created it and the path still
  // names that same file (device and inode): a command that fails after creating its database
  // leaves no empty one behind, and never removes a file or a link the user had.
  void remove_created_file() const;

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  bool m_created = false;
  dev_t m_dev = 0;
  ino_t m_ino = 0;
};

// The pid holding an exclusive flock on the file with this device and inode, from /proc/locks;
// nullopt when none is listed (or the holder is not visible from this pid namespace).
std::optional<pid_t> flock_holder(dev_t dev, ino_t ino);

}  // namespace kprof::exec
