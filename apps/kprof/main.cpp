// kprof: thin entry point. Finds the subcommand, runs it, and is the one place that catches
// kprof::Error and turns it into stderr lines and an exit code (0 ok, 1 runtime, 2 usage/input).
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace {

void print_usage(std::ostream& os) {
  os << "usage: kprof <command> [options]\n\n"
        "kprof runs rocprofv3 through a kernel-trace pass and the fewest hardware-counter passes,\n"
        "keeps every capture in one SQLite database, and explains the trace.\n\ncommands:\n";
  for (const auto& c : kprof::app::commands()) {
    os << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
       << c.summary << "\n";
  }
  os << "\n'kprof <command> --help' shows a command's options.\n";
}

int run(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
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
