// kprof: thin entry point. Finds the subcommand, runs it, and is the one place that catches
// kprof::Error and turns it into stderr lines and an exit code (0 ok, 1 runtime, 2 usage/input).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/composition.hpp"
#include "apps/kprof/sim_workload.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace {

void print_usage(std::ostream& os) { kprof::app::print_main_help(os); }

// `kprof __man DIR`: kprof.1 and kprof-<command>.1 from the --help texts. `kprof __completion`:
// a bash completion script from the same. Run by the build (apps/kprof/CMakeLists.txt).
int generate_man(const std::string& dir) {
  namespace app = kprof::app;
  std::filesystem::create_directories(dir);
  app::set_help_format(app::HelpFormat::man);
  {
    std::ofstream out(std::filesystem::path(dir) / "kprof.1");
    app::print_main_help(out);
  }
  for (const auto& c : app::commands()) {
    std::ostringstream text;
    auto* old = std::cout.rdbuf(text.rdbuf());
    c.run({"--help"});
    std::cout.rdbuf(old);
    std::ofstream(std::filesystem::path(dir) / ("kprof-" + c.name + ".1")) << text.str();
  }
  return 0;
}

int generate_completion() {
  namespace app = kprof::app;
  app::set_help_format(app::HelpFormat::words);
  std::cout << "# bash completion for kprof, generated from kprof's --help texts\n"
               "_kprof() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\" opts=\"\"\n"
               "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W \"";
  std::string names;
  for (const auto& c : app::commands()) names += (names.empty() ? "" : " ") + c.name;
  std::cout << names << " --help --version\" -- \"$cur\"))\n    return\n  fi\n"
            << "  case \"${COMP_WORDS[1]}\" in\n";
  for (const auto& c : app::commands()) {
    std::ostringstream words;
    auto* old = std::cout.rdbuf(words.rdbuf());
    c.run({"--help"});
    std::cout.rdbuf(old);
    std::string w = words.str();
    for (auto& ch : w) ch = ch == '\n' ? ' ' : ch;
    std::cout << "    " << c.name << ") opts=\"" << kprof::trim(w) << "\" ;;\n";
  }
  std::cout << "  esac\n  if [[ \"$cur\" == -* ]]; then\n"
               "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n  else\n"
               "    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n"
               "complete -o filenames -F _kprof kprof\n";
  return 0;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "__man" && argc == 3) return generate_man(argv[2]);
  if (name == "__completion") return generate_completion();
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return 0;
  }
  const auto* cmd = kprof::app::find_command(name == "--version" ? "version" : name);
  if (!cmd) {
    std::vector<std::string> names;
    for (const auto& c : kprof::app::commands()) names.push_back(c.name);
    std::string hint = kprof::did_you_mean(kprof::nearest_names(name, names, 1));
    throw kprof::Error::input("unknown command '" + name + "'",
                              hint.empty() ? "see 'kprof --help'" : hint);
  }
  return cmd->run(kprof::app::Args(argv + 2, argv + argc));
}

}  // namespace

int main(int argc, char** argv) {
  // The composition: core/exec estimates from the test double's workload models without linking
  // the double's engine.
  kprof::app::compose({kprof::app::sim_workload_model_loader()});
  try {
    return run(argc, argv);
  } catch (const kprof::Error& e) {
    const bool tty = isatty(STDERR_FILENO);
    for (const auto& d : e.diagnostics())
      std::cerr << "kprof: " << (tty ? d.with_context() : d.line()) << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    // Anything else is a bug or an environment failure (out of memory, disk full); still one line.
    std::cerr << "kprof: internal error: " << e.what() << "\n";
    return 1;
  }
}
