// Every pass launcher this kprof has, by the name its owner records carry (passes.launcher) and
// `--launcher` takes. Adding a launcher: its own file (core/exec/<name>_launcher.{hpp,cpp}) and
// one line in k_launchers below (ARCHITECTURE.md, "Seams").
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/local_launcher.hpp"
#include "core/exec/pass_launcher.hpp"
#include "core/exec/slurm_launcher.hpp"

namespace kprof::exec {
namespace {

struct Registered {
  std::string_view name;
  std::unique_ptr<PassLauncher> (*make)();
};

using Made = std::unique_ptr<PassLauncher>;

constexpr Registered k_launchers[] = {
    {"local", []() -> Made { return std::make_unique<LocalLauncher>(); }},
    {"slurm", []() -> Made { return std::make_unique<SlurmLauncher>(SbatchOptions{}); }},
};

}  // namespace

std::unique_ptr<PassLauncher> make_pass_launcher(std::string_view name) {
  for (const auto& l : k_launchers)
    if (l.name == name) return l.make();
  throw Error::input("unknown pass launcher '" + std::string(name) + "'",
                     "this kprof launches passes with: " + join(pass_launcher_names(), ", "));
}

std::vector<std::string> pass_launcher_names() {
  std::vector<std::string> names;
  for (const auto& l : k_launchers) names.emplace_back(l.name);
  return names;
}

}  // namespace kprof::exec
