#include "core/base/paths.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/base/error.hpp"

namespace kprof {

namespace fs = std::filesystem;

fs::path self_exe_dir() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

std::vector<fs::path> config_dir_candidates(const fs::path& exe_dir) {
  // <prefix>/bin/kprof -> <prefix>/share/kprof/configs; build/tests/sim/kprof_sim_tests ->
  // build/share/kprof/configs. Three ancestors cover both without wandering up to '/'.
  std::vector<fs::path> out;
  fs::path dir = exe_dir;
  for (int up = 0; up < 3 && dir.has_relative_path(); ++up) {
    dir = dir.parent_path();
    out.push_back(dir / "share" / "kprof" / "configs");
  }
  return out;
}

fs::path config_dir() {
  if (const char* env = std::getenv("KPROF_CONFIG_DIR"); env && *env) {
    if (fs::is_directory(fs::path(env) / "hw")) return env;
    throw Error::input(std::string("KPROF_CONFIG_DIR='") + env +
                           "' is not a kprof configs folder (it has no hw/ folder)",
                       "unset it, or point it at the configs/ folder of a kprof source tree or at "
                       "<prefix>/share/kprof/configs of an installation");
  }
  std::string looked;
  for (const fs::path& p : config_dir_candidates(self_exe_dir())) {
    if (fs::is_directory(p / "hw")) return fs::weakly_canonical(p);
    looked += (looked.empty() ? "" : ", ") + p.lexically_normal().string();
  }
  throw Error::runtime("cannot find kprof's configs (looked in " + looked + ")",
                       "reinstall kprof, or set KPROF_CONFIG_DIR to a configs/ folder");
}

std::optional<fs::path> installed_data_dir() {
  for (const fs::path& p : config_dir_candidates(self_exe_dir()))
    if (fs::is_directory(p / "hw")) return p.parent_path().lexically_normal();
  return std::nullopt;
}

bool path_is_under(const fs::path& file, const fs::path& dir) {
  std::error_code ec;
  const fs::path f = fs::absolute(file, ec).lexically_normal();
  fs::path d = fs::absolute(dir, ec).lexically_normal();
  if (d.has_relative_path() && d.filename().empty()) d = d.parent_path();  // "a/b/" -> "a/b"
  const auto [di, fi] = std::mismatch(d.begin(), d.end(), f.begin(), f.end());
  return di == d.end();
}

}  // namespace kprof
