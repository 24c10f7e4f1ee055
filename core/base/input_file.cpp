#include "core/base/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/error.hpp"

namespace kprof {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace

InputFile::InputFile(const std::filesystem::path& path, std::string_view what) {
  m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (m_fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      throw Error::input("no such " + std::string(what) + " " + quoted(path), "check the path");
    }
    throw Error::runtime(
        "cannot open " + std::string(what) + " " + quoted(path) + ": " + std::strerror(err),
        "check the path and its permissions");
  }
  struct stat st {};
  if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(m_fd);
    m_fd = -1;
    const std::string kind = kind_of(mode);
    throw Error::input(std::string(what) + " " + quoted(path) + " is " + kind +
                           (kind == "not a regular file" ? "" : ", not a regular file"),
                       "name a regular file");
  }
  // Regular files ignore O_NONBLOCK, but clear it so the descriptor behaves as usual when passed
  // on.
  ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) & ~O_NONBLOCK);
  m_size = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (m_fd >= 0) ::close(m_fd);
}

int InputFile::release() {
  const int fd = m_fd;
  m_fd = -1;
  return fd;
}

InputStream open_input_stream(const std::filesystem::path& path, std::string_view what) {
  InputFile in(path, what);
  InputStream f(::fdopen(in.fd(), "rb"));
  if (!f)
    throw Error::input("cannot open file: " + std::string(std::strerror(errno)),
                       "check the path and its permissions", SourcePos{path.string()});
  in.release();  // the stream owns the descriptor now
  return f;
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  InputFile f(path, what);
  auto too_big = [&] {
    return Error::input(std::string(what) + " " + quoted(path) + " is larger than " +
                            std::to_string(max_bytes) + " bytes",
                        "is this the right file?");
  };
  if (f.size() > max_bytes) throw too_big();
  std::string out;
  out.resize(static_cast<size_t>(f.size()));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (out.size() > max_bytes) throw too_big();
      out.resize(out.size() + 4096);  // the file grew since fstat
    }
    const ssize_t n = ::read(f.fd(), out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::runtime("cannot read " + std::string(what) + " " + quoted(path) + ": " +
                           std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  if (got > max_bytes) throw too_big();
  return out;
}

}  // namespace kprof
