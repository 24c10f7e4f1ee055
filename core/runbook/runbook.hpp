// The runbook: what to profile, with which profiler, through which passes, stored where. A plain
// value produced once by load_runbook() (core/runbook/runbook_parser.cpp) and read by plan and
// exec. Every setting is a Located<T>: its effective value, where the runbook wrote it, and whether
// it was written at all (a default is still Located, at the runbook file with line 0), so that
// later stages can say "qwen3.yaml:31:9: counter 'FOO' unknown" and `kprof validate` can mark
// defaults. Every key is documented in runbooks/README.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::runbook {

// The only schema this kprof reads (`schema_version: 1`).
inline constexpr int k_schema_version = 1;

template <class T>
struct Located {
  T value{};
  // Where the value was written (line and column 1-based); for a default: the runbook file with
  // line 0.
  SourcePos pos;
  // True when the runbook wrote the value, false when it is kprof's default.
  bool from_file = false;

  const T& operator*() const { return value; }
  const T* operator->() const { return &value; }
};

using LocatedString = Located<std::string>;
using LocatedStrings = Located<std::vector<LocatedString>>;

enum class OutputFormat { csv, rocpd };
// rocprofv3 `--agent-index`: how Agent_Id values are numbered (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/bin/rocprofv3.py).
enum class AgentIndex { absolute, relative, type_relative };
// What `passes.counters.kernels.from_trace` ranks kernels by.
enum class RankBy { total_duration, calls };
// How counter groups that need more than one hardware pass are collected
// (`passes.counters.replay`): `application` re-runs the workload once per pass; `rotate` collects
// every group in ONE run, a different group on successive dispatches (rocprofv3 input-file
// `pmc_groups` / `pmc_group_interval`, ROCm 7.0+); `automatic` (the default) rotates when the
// run's trace shows rotation serves every variant of interest, and replays otherwise
// (core/exec/passes/replay_choice.hpp); `kernel` replays each dispatch once per group inside ONE
// run (rocprofv3's beta `--replay-mode kernel`), where the installed rocprofv3 offers it and the
// workload is within its limits (checked before the run, core/exec/passes/replay_choice.hpp).
enum class Replay { automatic, application, rotate, kernel };

// The spelling in runbooks (and in `kprof validate`): "csv", "type-relative", "total_duration".
std::string_view to_string(OutputFormat v);
std::string_view to_string(AgentIndex v);
std::string_view to_string(RankBy v);
std::string_view to_string(Replay v);  // "auto", "application", "rotate", "kernel"

struct EnvVar {
  LocatedString name;
  LocatedString value;
};

struct Workload {
  // argv of the application, never empty. With shell: true it holds exactly one element, the
  // command line that exec hands to `/bin/sh -c`.
  LocatedStrings command;
  Located<bool> shell;  // default false
  // Set (or overridden) on top of kprof's own environment, in the order written; names are unique.
  Located<std::vector<EnvVar>> env;
  // Absolute, normalised; default the runbook's folder. Must be an existing directory.
  Located<std::filesystem::path> cwd;
  // Limit for one run of the workload (each pass is one run); nullopt = no limit.
  Located<std::optional<std::chrono::milliseconds>> timeout;
  // The option kprof appends, followed by R, when a rotated counter run must repeat the measured
  // request R times inside one application run (runbooks/workloads/qwen3_generate.py: --repeat);
  // nullopt: the workload cannot repeat it.
  Located<std::optional<std::string>> repeat_option;
  // The processes that each drive one GPU in every pass (tensor x pipeline parallel, one node),
  // 1..64, default 1. rocprofiler-sdk writes each process's output at its own finalization, so a
  // worker killed at teardown leaves a pass without that rank's rows while the profiler still
  // exits 0: exec fails such a pass (core/exec/passes/pass_ingest.hpp, judge_ranks), and a
  // --gpus slot is this many GPUs.
  Located<int> ranks;
};

struct Profiler {
  // The profiler backend, by a name of core/exec's registry (profiler_backends.cpp), kept as
  // written: core/runbook cannot see the registry, so core/exec checks the name
  // (check_registered_names, registered_names.hpp) before validate, plan, run or resume go on.
  // Default "rocprofv3". The keys below are rocprofv3's.
  LocatedString backend{"rocprofv3", {}, false};
  // "rocprofv3" (default, searched on PATH) or, when written with a '/', an absolute normalised
  // path resolved against the runbook's folder.
  LocatedString path;
  // Unwritten (from_file false): the profiler's own default, rocpd from ROCm 7.0 and csv before
  // (the backend decides, core/exec/profiler/rocprofv3_backend.hpp); `value` then reads csv.
  Located<OutputFormat> output_format;
  // `--selected-regions`: profile only between roctxProfilerResume/Pause. Default false.
  Located<bool> selected_regions;
  // `--truncate-kernels`. A profiler-wide setting, not a trace option, because kernel names must
  // be spelt the same in every pass for include_regex and family rules to mean the same. Default
  // false.
  Located<bool> truncate_kernels;
  // Passed to rocprofv3 before `--` on every pass, verbatim.
  LocatedStrings extra_args;
  Located<std::optional<AgentIndex>> agent_index;  // nullopt: rocprofv3's default (relative)
};

struct Target {
  // Names configs/hw/<arch>.yaml; load_runbook checks that the file exists. Default "gfx942".
  LocatedString arch;
};

struct TracePass {
  Located<bool> enabled;  // default true
  Located<bool> stats;    // `--stats` (kernel_stats.csv); default true
  Located<bool> markers;  // `--marker-trace` (roctx ranges, for step detection); default false
};

struct FromTrace {
  Located<int> top;    // 1..10000
  Located<RankBy> by;  // default total_duration
  SourcePos pos;       // the `from_trace` map
};

struct KernelSelection {
  // ECMAScript regexes (std::regex, as rocprofv3 uses), checked to compile; nullopt = not set.
  Located<std::optional<std::string>> include_regex;
  Located<std::optional<std::string>> exclude_regex;
  // The N heaviest kernels of the trace pass (requires passes.trace.enabled).
  std::optional<FromTrace> from_trace;
};

struct CountersPass {
  // True when the runbook has a `passes.counters` map (then metric_sets or counters is non-empty).
  Located<bool> enabled;
  // Names of configs/metrics sets and of counters; existence is checked by the planner.
  LocatedStrings metric_sets;
  LocatedStrings counters;
  // Each inner list (>= 2 distinct names) must be collected in the same pass.
  Located<std::vector<LocatedStrings>> pins;
  KernelSelection kernels;
  // rocprofv3 `--kernel-iteration-range` syntax ("[1-2],[5]"), checked; nullopt = every iteration.
  Located<std::optional<std::string>> iteration_range;
  Located<Replay> replay;  // default automatic
  // Rotation: launches of every kernel variant of interest that every group must get; 1..100000,
  // default 30.
  Located<int> min_samples;
};

struct Passes {
  TracePass trace;
  CountersPass counters;
};

struct Retry {
  Located<int> attempts;  // tries per pass including the first, 1..100; default 2
  Located<std::chrono::milliseconds> backoff;  // wait before a retry; default 5s
};

// The shape of configs/families rules `{match: RE, family: NAME}`; runbook rules are tried first.
struct FamilyRule {
  LocatedString match;   // ECMAScript regex searched in the kernel name
  LocatedString family;  // the family a matching kernel belongs to
};

struct Analysis {
  Located<std::optional<int>> layers;         // transformer layers per step, a hint
  Located<std::optional<int>> output_tokens;  // decode steps per run, a hint
  Located<std::vector<FamilyRule>> families;  // first match wins, in the order written
};

// Where passes run: `type` names a pass launcher of core/exec's registry (pass_launchers.cpp):
// `local` (processes on this host, the default), `slurm` (tasks of a Slurm job array,
// core/exec/launch/slurm_launcher.hpp), or any other registered one. The name is kept as written
// and checked by core/exec (check_registered_names, registered_names.hpp), which sees the registry.
// The other keys are Slurm's: sbatch's options of the same meaning
// (https://slurm.schedmd.com/archive/slurm-22.05.8/sbatch.html), refused with another type.
struct Launcher {
  bool present = false;  // the runbook has a `launcher` map
  LocatedString type{"local", {}, false};
  LocatedString partition;     // --partition; '' = the cluster's default
  LocatedString time;          // --time in Slurm's syntax ("30", "1:00:00", "1-0"); '' = default
  Located<int> gpus_per_task;  // --gres=gpu:N, 0..64; default 1
  LocatedStrings sbatch_args;  // more sbatch options, each "--opt[=value]"; kprof's own refused
};

// For an sbatch option kprof writes itself into the batch script ("--array=1-3", "-o x", "--gres"),
// what to do instead; nullopt for any other option. Checks `launcher.sbatch_args` and
// `--sbatch-arg` alike.
std::optional<std::string> sbatch_option_owned_by_kprof(const std::string& arg);

// Settings read only when the profiler is the test double (rocprofv3-sim).
struct Sim {
  bool present = false;  // the runbook has a `sim` map
  // A name in configs/sim (kept as written) or, when written with a '/' or ending in .yaml, an
  // absolute normalised path resolved against the runbook's folder.
  LocatedString model;
  Located<std::uint64_t> seed;  // default 1
};

struct Runbook {
  Located<int> schema_version;
  LocatedString name;  // [A-Za-z0-9][A-Za-z0-9._-]*, names runs in the database
  LocatedString description;
  Workload workload;
  Profiler profiler;
  Target target;
  Passes passes;
  Retry retry;
  // Absolute, normalised; default <runbook folder>/<name>.db. Relative paths start at the
  // runbook's folder, or at the working directory for a runbook of the installation.
  Located<std::filesystem::path> database;
  // Where pass folders go; absolute, normalised; default <db folder>/<db stem>-captures (also
  // for the database given with --db, use_database()).
  Located<std::filesystem::path> captures;
  Analysis analysis;
  Launcher launcher;
  Sim sim;

  std::filesystem::path source;  // absolute path of the runbook file
  std::filesystem::path dir;     // its folder: the base of every relative path
  std::string sha256;            // of the file's bytes
  std::string text;              // the file's bytes (for source lines in diagnostics)
};

struct LoadOptions {
  // Folder holding <arch>.yaml hardware files; default config_dir()/hw. When it cannot be found
  // the arch is checked for form only.
  std::optional<std::filesystem::path> hw_dir;
  // The installation's share/kprof; default installed_data_dir(). A runbook under it resolves
  // its database and captures against the working directory instead of its own folder.
  std::optional<std::filesystem::path> install_dir;
};

// Reads, parses and validates. Throws Error(input) holding every problem found, each with its
// position and source line; Error(runtime) when the file cannot be read.
Runbook load_runbook(const std::filesystem::path& file, const LoadOptions& options = {});
// The same from bytes already read; `file` names them in positions and is the base of relative
// paths.
Runbook parse_runbook(std::string_view text, const std::filesystem::path& file,
                      const LoadOptions& options = {});

// Points the runbook at another capture database (`--db`, or the database `kprof resume` was
// given). Captures the runbook does not place itself follow the database
// (<db folder>/<db stem>-captures): two databases made from one runbook never share, and so never
// overwrite, each other's run-N pass folders.
void use_database(Runbook& rb, const std::filesystem::path& db);

// A diagnostic pointing into the runbook, with the source line filled in for the caret. For later
// stages: throw Error(ErrorKind::input, diagnostic(rb, counter.pos, "counter 'FOO' unknown",
// hint)).
Diagnostic diagnostic(const Runbook& rb, const SourcePos& pos, std::string what,
                      std::string hint = {});

// "<file>:<line>:<col>: <key>: unknown value '<name>' (use a or b)", with a did-you-mean before
// the names when one is near: for a closed choice whose names a later stage knows (the pass
// launchers and profiler backends registered in core/exec).
Diagnostic unknown_value(const Runbook& rb, const LocatedString& name, std::string_view key,
                         const std::vector<std::string>& names);

}  // namespace kprof::runbook
