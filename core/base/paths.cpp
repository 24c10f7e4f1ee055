#include "core/base/paths.hpp"

#include <cstdlib>

#include "core/base/error.hpp"

namespace kprof {

std::filesystem::path self_exe_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : exe.parent_path();
}

std::filesystem::path config_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("KPROF_CONFIG_DIR"); env && *env) {
    if (fs::is_directory(env)) return env;
    throw Error::input(std::string("KPROF_CONFIG_DIR='") + env + "' is not a directory",
                       "unset it or point it at kprof's configs/ folder");
  }
  const fs::path exe = self_exe_dir();
  for (const fs::path& p : {exe / "../share/kprof/configs", exe / "../configs", exe / "../../configs",
                            fs::path(KPROF_SOURCE_DIR) / "configs"}) {
    if (fs::is_directory(p / "hw")) return fs::weakly_canonical(p);
  }
  throw Error::runtime("cannot find kprof's configs/ folder", "set KPROF_CONFIG_DIR");
}

}  // namespace kprof
