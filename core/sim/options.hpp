// rocprofv3's command line as one release's launcher parses it: the options of its table
// (configs/rocprofv3/<release>.json), read the way rocprofv3.py's argparse does
// (allow_abbrev=False, BOOL options with an optional value, split at the first "--"). Source:
// ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3.py, per release.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/base/rocprof_release.hpp"

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
  bool list_metrics = false;  // -L/--list-metrics of the releases before --list-avail
  bool version = false;
  bool help = false;
  std::vector<std::string> app;  // argv after the first "--"
  // argparse's error, held back until the input file was read (a release that reads it first:
  // RocprofRelease::reads_input_before_argument_errors). Thrown by run_tool after load_jobs.
  std::optional<std::string> deferred_error;
};

// Parses rocprofv3's arguments (argv[1..]) with `release`'s options. Throws CliFailure for what
// argparse rejects. Without a release: the default release of the double (version.hpp).
Options parse_options(const std::vector<std::string>& args, const RocprofRelease& release);
Options parse_options(const std::vector<std::string>& args);

// The jobs of an input file (.yaml/.yml/.json) merged over the CLI settings; each job with `pmc`
// is one pass. Throws CliFailure with rocprofv3's messages for bad extensions and conflicts.
// ROCm 6.2 (`version.metrics_input()`) reads a `metrics` list instead, each entry's `pmc` one pass.
struct SimVersion;
std::vector<JobOptions> load_jobs(const std::string& path, const JobOptions& cli,
                                  const SimVersion& version);

// "usage: rocprofv3 [-h] ..." — the first line argparse prints before an error.
std::string usage_line();

// rocprofv3's help text (-h): every option spelling of `release`.
std::string help_text(const RocprofRelease& release);

// The ROCPROF_* variables the release's launcher hands the tool for one job (what kprof relies
// on: tracing switches, counters, groups and interval, regions, markers, kernel filters, format,
// agent index), as rocprofv3.py spells them (ROCm/rocm-systems projects/rocprofiler-sdk/source/
// bin/rocprofv3.py, the update_env calls). `rocpd_default`: the release's default format is rocpd.
std::map<std::string, std::string> launcher_env(const JobOptions& job, bool rocpd_default);

// Counter-list parsing of the tool: separators (and punctuation) become spaces; result sorted and
// deduplicated like the std::set the tool keeps. `:` and `=` are kept (device qualifiers).
std::vector<std::string> split_counters(const std::vector<std::string>& raw);

// Python's distutils strtobool, which rocprofv3.py uses for BOOL options and input-file booleans;
// throws CliFailure with the ValueError traceback for anything else.
bool truth_value(const std::string& v);

}  // namespace kprof::sim
