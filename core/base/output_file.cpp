#include "core/base/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <streambuf>

#include "core/base/crash_point.hpp"
#include "core/base/error.hpp"

namespace kprof {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_tmp_marker = ".kprof-tmp-";

// A stream buffer over a file descriptor this module opened itself (O_EXCL|O_NOFOLLOW), so no
// second open(2) by name can be redirected; remembers the first write error.
class FdBuf final : public std::streambuf {
 public:
  explicit FdBuf(int fd) : m_fd(fd) { setp(m_buf.data(), m_buf.data() + m_buf.size()); }
  int error() const { return m_errno; }

 protected:
  int_type overflow(int_type c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush_buffer() ? 0 : -1; }

 private:
  bool flush_buffer() {
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(m_fd, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (m_errno == 0) m_errno = n < 0 ? errno : EIO;
        setp(m_buf.data(), m_buf.data() + m_buf.size());
        return false;
      }
      p += n;
    }
    setp(m_buf.data(), m_buf.data() + m_buf.size());
    return true;
  }

  int m_fd;
  int m_errno = 0;
  std::array<char, 1 << 16> m_buf{};
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The folder an output or input lives in ("." for a bare name).
fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : "."; }

// True when `out` names `name` in the folder of `in` (compared by the folder's inode, so another
// spelling of the folder counts), whether or not that file exists yet.
bool names_beside(const fs::path& out, const fs::path& in, const std::string& name) {
  struct stat od {
  }, id{};
  return out.filename() == name && ::stat(folder_of(out).c_str(), &od) == 0 &&
         ::stat(folder_of(in).c_str(), &id) == 0 && same_inode(od, id);
}

std::string random_suffix() {
  std::random_device rd;
  std::uniform_int_distribution<unsigned long long> d;
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", d(rd));
  return buf;
}

// Creates "<path>.kprof-tmp-<pid>-<random>" exclusively; its descriptor and name.
std::pair<int, fs::path> create_temporary(const fs::path& path) {
  for (int tries = 0;; ++tries) {
    const fs::path tmp =
        path.string() + k_tmp_marker + std::to_string(::getpid()) + "-" + random_suffix();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return {fd, tmp};
    if (errno == EEXIST && tries < 16) continue;
    throw Error::input("cannot create " + tmp.string() + ": " + std::strerror(errno),
                       "check that the folder exists and is writable");
  }
}

void remove_quietly(const fs::path& p) { ::unlink(p.c_str()); }

}  // namespace

void check_output_path(const fs::path& path, const std::vector<fs::path>& inputs) {
  const std::string shown = path.string();
  if (path.empty()) throw Error::input("empty output path", "name the file to write");
  struct stat out {};
  const bool exists = ::lstat(path.c_str(), &out) == 0;
  if (exists && S_ISLNK(out.st_mode)) {
    throw Error::input(
        "output " + shown + " is a symbolic link; kprof does not write through links",
        "name the file itself, or remove the link first");
  }
  if (exists && !S_ISREG(out.st_mode)) {
    throw Error::input("output " + shown + " is " + kind_of(out.st_mode) + ", not a regular file",
                       "name a file to write, e.g. out/report.html");
  }
  for (const auto& in : inputs) {
    struct stat is {};
    if (exists && ::stat(in.c_str(), &is) == 0 && same_inode(out, is)) {
      throw Error::input("output " + shown + " is the input " + in.string() +
                             " (the same file); writing it would destroy it",
                         "write to another file");
    }
    const std::string name = in.filename().string();
    for (const char* side : {"-wal", "-shm", "-journal"}) {
      if (names_beside(path, in, name + side)) {
        throw Error::input("output " + shown + " is SQLite's " + side + " file of the database " +
                               in.string() + "; writing it would damage the database",
                           "write to another file");
      }
    }
  }
}

std::vector<fs::path> stale_output_temporaries(const fs::path& path) {
  std::vector<fs::path> out;
  const std::string prefix = path.filename().string() + k_tmp_marker;
  std::error_code ec;
  for (fs::directory_iterator it(folder_of(path), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>-<16 hex digits>", nothing else: a name kprof made.
    const std::string rest = name.substr(prefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.size() != dash + 17 ||
        rest.find_first_not_of("0123456789") != dash ||
        rest.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos)
      continue;
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;  // its process may still be writing it
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid())
      continue;
    out.push_back(it->path());
  }
  return out;
}

void write_file_atomically(const fs::path& path, const std::vector<fs::path>& inputs,
                           const std::function<void(std::ostream&)>& write) {
  check_output_path(path, inputs);
  for (const auto& stale : stale_output_temporaries(path)) remove_quietly(stale);
  auto [fd, tmp] = create_temporary(path);
  int err = 0;
  try {
    FdBuf buf(fd);
    std::ostream os(&buf);
    write(os);
    os.flush();
    err = buf.error();
  } catch (...) {
    ::close(fd);
    remove_quietly(tmp);
    throw;
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    remove_quietly(tmp);
    throw Error::input("cannot write " + tmp.string() + ": " + std::strerror(err),
                       "check free disk space");
  }
  crash_point("output.written");
  try {
    check_output_path(path, inputs);  // it may have changed while we wrote
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    remove_quietly(tmp);
    throw Error::input("cannot rename " + tmp.string() + " to " + path.string() + ": " + why,
                       "check that " + path.string() + " is not a folder");
  }
}

}  // namespace kprof
