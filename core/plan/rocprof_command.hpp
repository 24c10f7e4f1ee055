// The exact rocprofv3 command line of one counter pass, as an argv vector. A pure function: the
// executor (core/exec) runs it, `kprof plan` prints it.
//   rocprofv3 --pmc A B -d DIR -o NAME -f csv [--kernel-include-regex RE] [--kernel-exclude-regex
//   RE]
//             [--kernel-iteration-range R] [--selected-regions] [-T] [-A MODE] [extra...] -- app
//             args
// `--pmc` takes any number of values (argparse nargs="*"), so the options after it end its list
// and `--` keeps the application's own arguments away from rocprofv3 (facts/rocprofv3.md 1.2).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kprof::plan {

struct PassCommand {
  std::string rocprofv3 = "rocprofv3";
  std::vector<std::string> counters;
  std::filesystem::path output_dir;   // -d
  std::string output_name;            // -o
  std::string output_format = "csv";  // -f
  std::optional<std::string> kernel_include_regex;
  std::optional<std::string> kernel_exclude_regex;
  std::optional<std::string> kernel_iteration_range;
  bool selected_regions = false;
  bool truncate_kernels = false;
  std::optional<std::string> agent_index;  // absolute | relative | type-relative
  std::vector<std::string> extra_args;     // verbatim, before `--`
  std::vector<std::string> app;            // the workload's argv (or {"/bin/sh", "-c", line})
};

std::vector<std::string> rocprof_argv(const PassCommand& command);

}  // namespace kprof::plan
