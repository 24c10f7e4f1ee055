// One-line profiling: `kprof run [--metric-set S | --counters A,B] [--kernels REGEX] [--simulate]
// -- app args...` stands for a runbook. This file writes that runbook's YAML, so the one-liner and
// `kprof run FILE` go through the same parser, checks, plan and executor, and the runbook is kept
// (next to the database, and its text in the database) for editing and re-running.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kprof::runbook {

struct OneLine {
  std::vector<std::string> command;      // the application and its arguments (after `--`)
  std::string name;                      // default: from the application's file name
  std::vector<std::string> metric_sets;  // --metric-set (repeatable, or comma-separated)
  std::vector<std::string> counters;     // --counters A,B
  std::string kernels;                   // --kernels REGEX: counter passes' include_regex
  std::string arch = "gfx942";
  std::filesystem::path database;  // default: <name>.db in the working directory
  bool simulate = false;           // adds a sim section (the test double's model)
  std::string origin;              // the command line, quoted in the header comment
};

// A valid runbook name from an application path: "/usr/bin/python3" -> "python3"; characters a
// name may not hold become '-'.
std::string name_from_command(const std::string& argv0);

// The runbook's YAML text. Throws Error(input) when there is no command.
std::string one_line_yaml(const OneLine& o);

// Where `kprof run` keeps the runbook of a one-liner: beside the database, <db stem>.runbook.yaml.
std::filesystem::path one_line_runbook_path(const std::filesystem::path& database);

// Writes one_line_yaml(o) to one_line_runbook_path() of its database (default <name>.db here),
// creating the folder; returns the path. A file already there is left as it is: used when it
// holds the same runbook, else refused with Error(input) (it may hold the user's edits).
std::filesystem::path write_one_line_runbook(const OneLine& o);

}  // namespace kprof::runbook
