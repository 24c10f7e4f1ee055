#include "apps/kprof/command.hpp"

#include <algorithm>
#include <iostream>

#include "core/base/error.hpp"

namespace kprof::app {
namespace {
std::vector<Command>& table() {
  static std::vector<Command> t;
  return t;
}
}  // namespace

const std::vector<Command>& commands() {
  auto& t = table();
  std::sort(t.begin(), t.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  return t;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : table())
    if (c.name == name) return &c;
  return nullptr;
}

RegisterCommand::RegisterCommand(std::string name, std::string summary, int (*run)(const Args&)) {
  table().push_back(Command{std::move(name), std::move(summary), run});
}

std::optional<po::variables_map> parse_args(const std::string& name, const std::string& usage,
                                            const Args& args, po::options_description options,
                                            const po::positional_options_description& positional) {
  options.add_options()("help,h", "show this help");
  const std::string hint = "see 'kprof " + name + " --help'";
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: kprof " << name << " " << usage << "\n\n" << options << "\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw Error::input("too many arguments", hint);
  } catch (const po::error& e) {
    throw Error::input(e.what(), hint);
  }
  return vm;
}

}  // namespace kprof::app
