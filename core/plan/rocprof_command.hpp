// The exact rocprofv3 command line of one pass, as an argv vector. A pure function: the profiler
// backend (core/exec/profiler/rocprofv3_backend.hpp) fills a PassCommand from the runbook, the pass
// and the profiler's version; `kprof plan` and `kprof run` both print or run what it returns. The
// options are the detected release's own (configs/rocprofv3): FMTOPT is `-f` where the release has
// it and `--output-format` before ROCm 7.0; counters go through `-i FILE` where it has no --pmc
// (ROCm 6.2); the backend leaves out what the release lacks.
//   trace:    rocprofv3 --kernel-trace [--stats] [--marker-trace] -d DIR -o NAME FMTOPT FMT
//             [--selected-regions] [--truncate-kernels] [--agent-index A] [extra...] -- app
//   counters: rocprofv3 --pmc A B | -i FILE | --pmc A B --pmc C D ... --replay-mode kernel
//             --kernel-replay-beta-enabled  -d DIR -o NAME -f FMT [--kernel-include-regex RE]
//             [--kernel-exclude-regex RE] [--kernel-iteration-range R] [--marker-trace]
//             [--selected-regions] [--truncate-kernels] [--agent-index A] [extra...] -- app
// `--pmc` takes any number of values (argparse nargs="*"), so the options after it end its list,
// and `--` keeps the application's own arguments away from rocprofv3: the launcher splits its
// argv at the first `--` (ROCm/rocprofiler-sdk source/bin/rocprofv3.py, parse_arguments).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kprof::plan {

enum class PassMode { trace, counters };

struct PassCommand {
  std::string rocprofv3 = "rocprofv3";
  PassMode mode = PassMode::counters;
  // trace mode: --stats and --marker-trace after --kernel-trace.
  bool stats = false;
  // --marker-trace: asked by the runbook (trace pass) or needed for --selected-regions (see the
  // backend); in counter mode it is written after the kernel filters.
  bool marker_trace = false;
  std::vector<std::string> counters;  // counters mode: the --pmc values
  // Counters mode with pmc_groups (ROCm 7.0+): `-i FILE` instead of --pmc, which rocprofv3
  // refuses together with an input file's pmc_groups (ROCm/rocm-systems
  // projects/rocprofiler-sdk/source/bin/rocprofv3.py); and ROCm 6.2, whose launcher takes
  // counters only from an input file's `metrics` list (ROCm/rocprofiler-sdk tag rocm-6.2.0
  // source/bin/rocprofv3.py, parse_json).
  std::optional<std::filesystem::path> input_file;
  // Counters mode, kernel replay (`replay: kernel`): one `--pmc` per group and
  // `--replay-mode kernel --kernel-replay-beta-enabled`; rocprofv3 replays each targeted dispatch
  // once per group in the one run (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/
  // using-kernel-replay-rocprofv3.rst: both flags are required, and so is --pmc).
  std::vector<std::vector<std::string>> replay_groups;
  std::filesystem::path output_dir;         // -d
  std::string output_name;                  // -o
  std::string output_format = "csv";        // -f
  std::string output_format_option = "-f";  // "--output-format" where the release has no -f
  // Kernel filters thin counter collection only, never kernel_trace.csv, so they are written for
  // counter passes only (ROCm/rocprofiler-sdk source/docs/how-to/using-rocprofv3.rst, "Kernel
  // filtering").
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
