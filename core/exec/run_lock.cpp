#include "core/exec/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/process_runner.hpp"

namespace kprof::exec {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::filesystem::path lock_path_for(const std::filesystem::path& db_path) {
  return db_path.string() + ".lock";
}

RunLock::RunLock(const std::filesystem::path& db_path) : m_path(lock_path_for(db_path)) {
  if (m_path.has_parent_path()) std::filesystem::create_directories(m_path.parent_path());
  // O_CLOEXEC: the profiler and workload must not inherit the lock, or an orphaned workload would
  // keep a dead kprof's database locked.
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    throw Error::runtime("cannot open lock file '" + m_path.string() + "': " + std::strerror(errno),
                         "check that the database's folder is writable");
  }
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[512] = {};
    const ssize_t n = ::pread(m_fd, buf, sizeof buf - 1, 0);
    ::close(m_fd);
    m_fd = -1;
    if (err != EWOULDBLOCK) {
      throw Error::runtime("cannot lock '" + m_path.string() + "': " + std::strerror(err));
    }
    // "pid host"
    const auto words = split(trim(std::string_view(buf, n > 0 ? static_cast<size_t>(n) : 0)), ' ');
    const std::string pid = !words.empty() && !words[0].empty() ? words[0] : "?";
    const std::string host = words.size() > 1 ? words[1] : "?";
    throw Error::runtime(
        "database '" + db_path.string() + "' is in use by kprof pid " + pid + " on host " + host,
        "wait for that run to finish, or stop it (Ctrl-C or kill " + pid +
            ") and then 'kprof resume'");
  }
  const std::string text = std::to_string(::getpid()) + " " + host_name() + "\n";
  if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, text.data(), text.size(), 0) < 0) {
    // The lock itself is held; only the holder's description is missing. Not worth failing for.
  }
}

RunLock::~RunLock() {
  if (m_fd >= 0) {
    if (::ftruncate(m_fd, 0) != 0) {
    }
    ::flock(m_fd, LOCK_UN);
    ::close(m_fd);
  }
}

}  // namespace kprof::exec
