// The seams' promise in ARCHITECTURE.md ("Seams"): a launcher or a profiler backend is one file,
// core/exec/launch/<name>_launcher.cpp or core/exec/profiler/<name>_backend.cpp, plus one line in
// the launchers.def or backends.def beside it. Checked both ways against the source tree and the
// compiled registries, so that a file without its line (built but never reachable) or a line
// without its file fails here, not at link time on someone else's machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/profiler/profiler_backend.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
const fs::path k_exec_dir = fs::path(KPROF_SOURCE_DIR) / "core" / "exec";

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The names of `MACRO(name)` lines in a .def file, in order.
std::vector<std::string> def_names(const fs::path& file, const std::string& macro) {
  std::vector<std::string> out;
  std::istringstream in(read_all(file));
  const std::regex line("^" + macro + "\\(([a-z0-9_]+)\\)\\s*(//.*)?$");
  std::smatch m;
  for (std::string l; std::getline(in, l);)
    if (std::regex_match(l, m, line)) out.push_back(m[1]);
  return out;
}

// The <name> of every <dir>/<name><suffix>.
std::set<std::string> files_named(const fs::path& dir, const std::string& suffix) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.insert(f.substr(0, f.size() - suffix.size()));
  }
  return out;
}

// `sub`: the subfolder of core/exec that holds the .def and the implementations.
void expect_one_file_one_line(const std::string& sub, const std::string& def,
                              const std::string& macro, const std::string& kind,
                              const std::vector<std::string>& compiled) {
  const fs::path dir = k_exec_dir / sub;
  const auto listed = def_names(dir / def, macro);
  EXPECT_EQ(listed, compiled) << def << " is what the registry was compiled from";
  const auto files = files_named(dir, "_" + kind + ".cpp");
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), files)
      << "every core/exec/" << sub << "/<name>_" << kind << ".cpp has its line in " << def
      << " and back";
  for (const auto& name : listed) {
    const std::string text = read_all(dir / (name + "_" + kind + ".cpp"));
    EXPECT_NE(text.find("make_" + name + "_" + kind + "("), std::string::npos)
        << name << "_" << kind << ".cpp defines make_" << name << "_" << kind << "()";
  }
}

TEST(RegistryFiles, EachLauncherIsOneFileAndOneLine) {
  expect_one_file_one_line("launch", "launchers.def", "KPROF_LAUNCHER", "launcher",
                           pass_launcher_names());
}

TEST(RegistryFiles, EachBackendIsOneFileAndOneLine) {
  expect_one_file_one_line("profiler", "backends.def", "KPROF_BACKEND", "backend",
                           profiler_backend_names());
}

}  // namespace
}  // namespace kprof::exec
