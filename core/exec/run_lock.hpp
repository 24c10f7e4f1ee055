// One kprof at a time per capture database. The lock is a file beside the database
// (`<db>.lock`) held with flock(2): the kernel releases it when its holder dies, even by kill -9,
// so a dead owner never blocks a resume. The file's text names the holder (pid and host) for the
// refusal message. flock is not reliable on every network file system; a database on NFS shared by
// two hosts is not protected (the DB row lock then still names the owner).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace kprof::exec {

std::string host_name();

class RunLock {
 public:
  // Throws Error (runtime) when another live process holds the lock: "database X is in use by
  // kprof pid 123 on host h" with a hint.
  explicit RunLock(const std::filesystem::path& db_path);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
};

// The lock file for a database.
std::filesystem::path lock_path_for(const std::filesystem::path& db_path);

}  // namespace kprof::exec
