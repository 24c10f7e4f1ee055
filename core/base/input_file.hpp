// Opening and reading files a user names (runbooks, hardware and metric files, captures) so that
// what is not a regular file — a FIFO, /dev/zero, a folder, a symlink to one — is refused at once
// instead of blocking or being read without end, and a file is read only up to a size cap.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace kprof {

// An open regular file: the descriptor (owned; closed by the destructor) and its size when opened.
class InputFile {
 public:
  // Throws Error(input) "<what> '<path>' is a FIFO, not a regular file" (folder, device, socket),
  // "no such <what>", or Error(runtime) for other open errors. Never blocks: a FIFO is opened with
  // O_NONBLOCK, which open(2) allows without a writer for reading, and then refused.
  InputFile(const std::filesystem::path& path, std::string_view what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return m_fd; }
  std::uint64_t size() const { return m_size; }
  // Gives up ownership of the descriptor (e.g. to fdopen it).
  int release();

 private:
  int m_fd = -1;
  std::uint64_t m_size = 0;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using InputStream = std::unique_ptr<std::FILE, FileCloser>;

// An InputFile as a stdio stream for reading, with the same refusals; Error(input) naming the
// path when the stream cannot be made.
InputStream open_input_stream(const std::filesystem::path& path, std::string_view what);

// The whole file, refused (Error input, naming the cap and a hint) when it is larger than
// `max_bytes` — checked on the size and again while reading, since a file may grow.
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes);

}  // namespace kprof
