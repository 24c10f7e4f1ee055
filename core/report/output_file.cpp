#include "core/report/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/base/error.hpp"

namespace kprof::report {

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error::input("cannot create " + tmp.string() + ": " + std::strerror(errno),
                         "check that the folder exists and is writable");
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(tmp);
      throw;
    }
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      out.close();
      std::filesystem::remove(tmp);
      throw Error::input("cannot write " + tmp.string() + ": " + why, "check free disk space");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error::input(
        "cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message(),
        "check that " + path.string() + " is not a folder");
  }
}

}  // namespace kprof::report
