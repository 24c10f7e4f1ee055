#include "core/exec/node/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/base/error.hpp"
#include "core/store/capture_db.hpp"
#include "core/store/database_path.hpp"

namespace kprof::exec {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::optional<pid_t> flock_holder(dev_t dev, ino_t ino) {
  // Lines look like "3: FLOCK  ADVISORY  WRITE 4242 08:01:1310733 0 EOF"; a waiting request has
  // "->" after the id. Device numbers are hex major:minor, the inode decimal (proc(5)). Some file
  // systems (btrfs, overlayfs) list another device number than stat(2) gives, so the inode alone
  // is accepted when no line matches both.
  std::ifstream in("/proc/locks");
  std::string line;
  std::optional<pid_t> by_inode;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string id, type, mode, access, pid, where;
    ss >> id >> type;
    if (type == "->") continue;
    ss >> mode >> access >> pid >> where;
    if (type != "FLOCK" || access != "WRITE") continue;
    unsigned maj = 0, min = 0;
    unsigned long long inode = 0;
    if (std::sscanf(where.c_str(), "%x:%x:%llu", &maj, &min, &inode) != 3) continue;
    if (inode != static_cast<unsigned long long>(ino)) continue;
    const pid_t p = static_cast<pid_t>(std::atol(pid.c_str()));
    if (p <= 0) continue;
    if (maj == major(dev) && min == minor(dev)) return p;
    by_inode = p;
  }
  return by_inode;
}

RunLock::RunLock(const std::filesystem::path& db_path) : m_path(db_path) {
  store::require_database_path(db_path);
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(db_path, ec))) {
    if (db_path.has_parent_path()) std::filesystem::create_directories(db_path.parent_path(), ec);
    m_created = store::create_capture_db_here(db_path);
  }
  // O_CLOEXEC: the profiler and workload must not inherit the lock, or an orphaned workload would
  // keep a dead kprof's database locked. Read-only: the descriptor never writes the file.
  // O_NONBLOCK: a FIFO swapped in after the check must not block the open (it is refused below).
  m_fd = ::open(db_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (m_fd < 0) {
    throw Error::runtime(
        "cannot open capture database '" + db_path.string() + "': " + std::strerror(errno),
        "check the path and its permissions");
  }
  struct stat st {};
  if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(m_fd);
    m_fd = -1;
    throw Error::input("capture database '" + db_path.string() + "' is not a regular file",
                       "name a database file");
  }
  m_dev = st.st_dev;
  m_ino = st.st_ino;
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(m_fd);
    m_fd = -1;
    if (err != EWOULDBLOCK) {
      throw Error::runtime("cannot lock '" + db_path.string() + "': " + std::strerror(err));
    }
    const auto pid = flock_holder(st.st_dev, st.st_ino);
    const std::string who = pid ? std::to_string(*pid) : std::string("?");
    throw Error::runtime("database '" + db_path.string() + "' is in use by kprof pid " + who +
                             " on host " + host_name(),
                         "wait for that run to finish, or stop it (Ctrl-C or kill " + who +
                             ") and then 'kprof resume'");
  }
}

void RunLock::remove_created_file() const {
  if (!m_created) return;
  struct stat st {};
  if (::lstat(m_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != m_dev ||
      st.st_ino != m_ino) {
    return;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((m_path.string() + suffix).c_str());
}

RunLock::~RunLock() {
  if (m_fd >= 0) {
    ::flock(m_fd, LOCK_UN);
    ::close(m_fd);
  }
}

}  // namespace kprof::exec
