// Every pass launcher this kprof has, by the name its owner records carry (passes.launcher) and
// `--launcher` takes. Adding a launcher: its file core/exec/<name>_launcher.cpp defining
// make_<name>_launcher(), and one line in launchers.def (ARCHITECTURE.md, "Seams").
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/launch/pass_launcher.hpp"

namespace kprof::exec {

// The factories, each defined in its launcher's own file.
#define KPROF_LAUNCHER(name) std::unique_ptr<PassLauncher> make_##name##_launcher();
#include "core/exec/launch/launchers.def"
#undef KPROF_LAUNCHER

namespace {

struct Registered {
  std::string_view name;
  std::unique_ptr<PassLauncher> (*make)();
};

constexpr Registered k_launchers[] = {
#define KPROF_LAUNCHER(name) {#name, make_##name##_launcher},
#include "core/exec/launch/launchers.def"
#undef KPROF_LAUNCHER
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
