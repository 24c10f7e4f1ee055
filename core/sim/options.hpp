// The rocprofv3 7.0 command-line subset the double understands, parsed the way rocprofv3.py's
// argparse does (allow_abbrev=False, BOOL options with an optional value, split at the first "--").
// Source: ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3.py (ROCm 7.0).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kprof::sim {

// A failure the real launcher reports before profiling anything: the exact stderr text and the
// exit status (2 for argparse errors, 1 for "Fatal error: ...").
class CliFailure : public std::runtime_error {
 public:
  CliFailure(int exit_code, std::string text)
      : std::runtime_error(text), m_exit_code(exit_code), m_text(std::move(text)) {}
  int exit_code() const { return m_exit_code; }
  const std::string& text() const { return m_text; }

 private:
  int m_exit_code;
  std::string m_text;
};

// One application run's profiling settings (the CLI, or one `jobs` entry of an input file merged
// over the CLI).
struct JobOptions {
  bool kernel_trace = false;
  bool stats = false;
  std::vector<std::string> pmc;  // deduplicated and sorted, as the tool's std::set
  bool pmc_given = false;
  // Each --pmc flag's counters, in order: the counter groups kernel replay replays.
  std::vector<std::vector<std::string>> pmc_flags;
  // --replay-mode {kernel,application} and --kernel-replay-beta-enabled (rocprofv3 versions that
  // have kernel replay only: SimVersion::has_kernel_replay).
  std::string replay_mode;
  bool kernel_replay_beta = false;
  // Input file only (ROCm 7.0+): counter groups rotated over successive dispatches of one run.
  // rocprofv3.py turns them into ROCPROF_COUNTER_GROUPS / ROCPROF_COUNTER_GROUPS_INTERVAL; the
  // tool picks group (iter / interval) % groups per dispatch (stream.cpp).
  std::vector<std::vector<std::string>> pmc_groups;  // each deduplicated and sorted
  uint64_t pmc_group_interval = 1;
  std::optional<std::string> include_regex;
  std::optional<std::string> exclude_regex;
  std::vector<std::string> iteration_range;  // raw tokens, parsed by the stream
  bool selected_regions = false;
  bool marker_trace = false;  // --marker-trace (ROCm 7.0: needed for --selected-regions)
  bool truncate_kernels = false;
  std::string agent_index = "relative";  // absolute | relative | type-relative
  std::vector<std::string> output_format = {"rocpd"};
  std::optional<std::string> output_file;
  std::optional<std::string> output_directory;
  // argparse destination names given explicitly (for input-file conflict checks).
  std::vector<std::string> explicit_keys;
};

struct Options {
  JobOptions cli;
  std::optional<std::string> input_file;
  bool list_avail = false;
  bool version = false;
  bool help = false;
  std::vector<std::string> app;  // argv after the first "--"
};

// Parses rocprofv3's arguments (argv[1..]). Throws CliFailure for what argparse rejects.
Options parse_options(const std::vector<std::string>& args);

// The jobs of an input file (.yaml/.yml/.json) merged over the CLI settings; each job with `pmc`
// is one pass. Throws CliFailure with rocprofv3's messages for bad extensions and conflicts.
std::vector<JobOptions> load_jobs(const std::string& path, const JobOptions& cli);

// "usage: rocprofv3 [-h] ..." — the first line argparse prints before an error.
std::string usage_line();

// rocprofv3's help text (-h); the kernel-replay options only where the version has them.
std::string help_text(bool kernel_replay);

// Options only some versions have: true for the kernel-replay ones (--replay-mode,
// --kernel-replay-beta-enabled).
bool is_kernel_replay_option(const std::string& dest);

// Counter-list parsing of the tool: separators (and punctuation) become spaces; result sorted and
// deduplicated like the std::set the tool keeps. `:` and `=` are kept (device qualifiers).
std::vector<std::string> split_counters(const std::vector<std::string>& raw);

// Python's distutils strtobool, which rocprofv3.py uses for BOOL options and input-file booleans;
// throws CliFailure with the ValueError traceback for anything else.
bool truth_value(const std::string& v);

}  // namespace kprof::sim
