// The temporary file behind SpillVector (spill_vector.hpp).
#include "core/base/spill_vector.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/base/error.hpp"

namespace kprof {
namespace {

std::string spill_folder() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

[[noreturn]] void fail(const std::string& what, int err) {
  throw Error::runtime(what + " in " + spill_folder() + ": " + std::strerror(err),
                       "free space there, or set TMPDIR to a folder with more room (a first "
                       "`kprof export` spills up to about 56 bytes per trace dispatch)");
}

}  // namespace

size_t spill_memory_bytes(size_t fallback) {
  const char* v = std::getenv("KPROF_SPILL_BYTES");
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*v == '-' || *end != '\0' || errno == ERANGE || n < 1024)
    throw Error::input(
        std::string("KPROF_SPILL_BYTES='") + v + "' is not a number of bytes of at least 1024",
        "unset it (default: " + std::to_string(fallback) +
            ") or give a whole number such as 4194304");
  return static_cast<size_t>(n);
}

SpillFile::SpillFile() {
  const std::string dir = spill_folder();
  // O_TMPFILE: a file with no name, gone when closed, even after kill -9 (open(2)).
  m_fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (m_fd < 0) {
    // File systems without O_TMPFILE (EOPNOTSUPP, EISDIR on old kernels): a named file, unlinked
    // at once.
    std::string name = dir + "/kprof-spill-XXXXXX";
    m_fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (m_fd < 0) fail("cannot create a spill file", errno);
    ::unlink(name.c_str());
  }
}

SpillFile::~SpillFile() {
  if (m_fd >= 0) ::close(m_fd);
}

void SpillFile::write(uint64_t offset, const void* data, size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(m_fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write the spill file", n < 0 ? errno : ENOSPC);
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
}

void SpillFile::read(uint64_t offset, void* data, size_t bytes) const {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(m_fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    // Only written blocks are read: a short file was cut by something else.
    if (n <= 0) fail("cannot read the spill file", n < 0 ? errno : EIO);
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace kprof
