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
// `usage` may hold several forms, one per line (each without "kprof NAME"); `epilog` is shown
// under the options (examples, the views of `query`). Positionals are shown as ARGUMENTS with
// their option's description, not as options; defaults as "(default: X)".
std::optional<po::variables_map> parse_args(
    const std::string& name, const std::string& usage, const Args& args,
    po::options_description options, const po::positional_options_description& positional = {},
    const std::string& epilog = "");

// How --help renders (text for a terminal; roff for man pages; words for shell completion).
// `kprof __man DIR` and `kprof __completion` set it and call each command with --help, so the man
// pages and the completion are made from the same text as --help.
enum class HelpFormat { text, man, words };
void set_help_format(HelpFormat f);

// The top-level help (`kprof --help`) in the current format.
void print_main_help(std::ostream& os);

}  // namespace kprof::app
