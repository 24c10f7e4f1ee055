// The subcommand table of `kprof` (ninja's tool table, git's subcommands). Each cmd_<name>.cpp
// registers one entry with KPROF_COMMAND and does nothing but parse flags and call core/.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kprof::app {

using Args = std::vector<std::string>;

struct Command {
  std::string name;
  std::string summary;  // one line for `kprof --help`
  int (*run)(const Args& args);
};

const std::vector<Command>& commands();
const Command* find_command(const std::string& name);

struct RegisterCommand {
  RegisterCommand(std::string name, std::string summary, int (*run)(const Args&));
};

#define KPROF_COMMAND(name, summary, fn) \
  static const ::kprof::app::RegisterCommand kprof_register_##fn(name, summary, fn)

namespace po = boost::program_options;

// Parses `args` for subcommand `name`. Adds --help; prints usage and returns nullopt when asked for
// it. Unknown options, missing values and surplus positionals throw Error (input) naming the option
// and pointing at `kprof <name> --help`.
std::optional<po::variables_map> parse_args(
    const std::string& name, const std::string& usage, const Args& args,
    po::options_description options, const po::positional_options_description& positional = {});

}  // namespace kprof::app
