// The profiler seam: everything kprof knows about one profiler lives behind this interface, so the
// planner and executor never spell a profiler option. Implementations:
//   - Rocprofv3Backend (rocprofv3_backend.hpp): AMD's rocprofv3, and the test double
//     rocprofv3-sim as a variant of it (same command lines; the double's model, seed and, for the
//     workload, the simulation stand-ins in the environment);
//   - later: NVIDIA's ncu (its file ncu_backend.cpp plus one line in backends.def; the
//     runbook names it in `profiler.backend`).
// Callers: the pass-plan use case (pass_plan.hpp: `kprof plan` and `kprof run` build every command
// line through it) and the executor (failure classification).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/exec/node/process_runner.hpp"
#include "core/exec/profiler/failure.hpp"
#include "core/exec/profiler/rocprofv3_version.hpp"
#include "core/plan/rocprof_command.hpp"
#include "core/runbook/owned_options.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

using plan::PassMode;

// One pass as the plan sees it; the backend turns it into its own command line.
struct PassRequest {
  PassMode mode = PassMode::trace;
  std::vector<std::string> counters;  // counters mode: what this pass collects
  std::filesystem::path output_dir;   // where the profiler writes (emptied before each attempt)
  std::string output_name;            // file prefix inside it
  // Counters mode: the kernels of interest chosen from the trace pass; overrides the runbook's
  // include_regex. nullopt: the runbook's own filter.
  std::optional<std::string> kernel_include_regex;
  // Counters mode, rotated (`replay: rotate`, rotated_pass.hpp): the rocprofv3 input file with
  // the job's pmc_groups and pmc_group_interval (then no --pmc: rocprofv3 refuses both), and how
  // many times the workload repeats its measured request (workload.repeat_option R when > 1).
  std::optional<std::filesystem::path> input_file;
  int repeats = 1;
  // Counters mode, kernel replay (`replay: kernel`): every group replayed on each dispatch in one
  // run; `counters` holds their union.
  std::vector<std::vector<std::string>> replay_groups;
};

class ProfilerBackend {
 public:
  virtual ~ProfilerBackend() = default;

  // "rocprofv3" or "rocprofv3-sim"; recorded in logs and shown by `kprof plan`.
  virtual std::string_view name() const = 0;
  // argv[0] of every pass.
  virtual const std::string& executable() const = 0;
  // The figures it produces are simulated (the run is marked so).
  virtual bool simulated() const = 0;
  virtual std::optional<int64_t> seed() const = 0;  // the double's seed
  // The profiler's version, read once (when the backend was made) and stored with the run.
  virtual const ProfilerVersion& version() const = 0;
  // Whether this profiler collects hardware counters in separate passes that kprof plans.
  virtual bool plans_counter_passes() const = 0;
  // True when counter passes also count dispatches outside the measured region, so the executor
  // restricts them to the kernels the trace saw inside it.
  virtual bool counters_count_outside_regions() const = 0;
  // Whether it replays each dispatch once per counter group inside one run (rocprofv3's beta
  // `--replay-mode kernel`), and how that was found out (for messages).
  virtual bool offers_kernel_replay() const { return false; }
  virtual std::string kernel_replay_probe() const { return "this profiler has no kernel replay"; }

  // The full command line of one pass.
  virtual std::vector<std::string> argv(const PassRequest& pass) const = 0;
  // Variables set on top of kprof's environment for every pass, in order.
  virtual store::EnvDelta env() const = 0;
  // The options its command lines are made of, each with the runbook key that controls it; the
  // runbook's `profiler.extra_args` may not repeat them.
  virtual std::span<const runbook::OwnedOption> owned_options() const = 0;
  // How a finished attempt failed, with profiler knowledge (e.g. rocprofiler error 38) on top of
  // the generic rules of failure.hpp.
  virtual Failure classify(const RunResult& result, const PassRequest& pass) const = 0;
};

struct BackendChoice {
  bool simulate = false;  // --simulate: the test double instead of the runbook's profiler
  // The version text a run recorded (resume): reused instead of asking the profiler again, so a
  // resumed run builds the same command lines as its start did.
  std::optional<std::string> recorded_version;
};

// The one place that decides which profiler runs (profiler_backends.cpp): the backend the
// runbook's `profiler.backend` names (default rocprofv3), made by its registered function, which
// reads `profiler.path` and `choice`. Throws Error(input) at `profiler.backend` for a name this
// kprof has not registered, listing those it has.
std::unique_ptr<ProfilerBackend> make_profiler_backend(const runbook::Runbook& rb,
                                                       const BackendChoice& choice);

// The names make_profiler_backend knows, in registration order ("rocprofv3" first).
std::vector<std::string> profiler_backend_names();

}  // namespace kprof::exec
