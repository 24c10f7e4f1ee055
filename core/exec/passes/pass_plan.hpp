// Use case "plan a runbook into passes": the counter plan, and for every pass the exact command
// line and environment delta that `kprof run` launches. `kprof plan` prints it and `kprof run`
// records and runs it, so the two can never disagree (the plan CLI test compares `plan --format
// json` with `passes.argv` after a run).
//
// Layout of a run's files (the executor empties a pass folder before every attempt):
//   <captures>/run-<R>/pass-<K>/            rocprofv3 -d, with -o %hostname%/%pid%
//   <captures>/run-<R>/logs/pass-<K>.log    the profiler's stdout+stderr, all attempts
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/passes/replay_choice.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/request.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// rocprofv3's default prefix (ROCm/rocprofiler-sdk source/bin/rocprofv3.py, --output-file);
// ingest reads the pid from it.
inline constexpr const char* k_output_name = "%hostname%/%pid%";

std::filesystem::path run_dir(const runbook::Runbook& rb, int64_t run_id);
std::filesystem::path pass_dir(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal);
std::filesystem::path pass_log(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal);

struct CounterPlan {
  hw::Target target;
  plan::Request request;
  plan::Plan plan;
  double planning_ms = 0;
};

struct PlannedCommand {
  int64_t ordinal = 0;  // 0 = the trace pass; counter passes 1.. in plan order
  store::PassKind kind = store::PassKind::trace;
  PassRequest request;
  std::vector<std::string> argv;
  store::EnvDelta env;
  std::filesystem::path output_dir;
  std::filesystem::path log_path;
};

struct RunPlan {
  std::optional<CounterPlan> counters;  // when the runbook asks for counter passes
  std::vector<PlannedCommand> passes;   // in ordinal order
  // The counter passes' kernel filter is decided from the trace pass (from_trace, or narrowing
  // to the region's kernels where regions do not pause counters); `why` says so for display.
  std::optional<std::string> filter_after_trace;
  // Rotated or one run per pass (replay_choice.hpp). after_trace: `replay: auto`, decided on this
  // run's trace; until then the commands are the application passes (what `kprof plan
  // --emit-sbatch` writes), and `kprof run` records only the trace pass before it.
  ReplayChoice replay;
};

struct RunPlanOptions {
  plan::PlanOptions planner;
  // Shown instead of the kernel filter that only the trace pass can decide (`kprof plan`); run
  // leaves it unset and records the command without it until the trace pass ran.
  std::optional<std::string> filter_placeholder;
};

// Plans run `run_id` of `rb` with `backend`. Throws Error(input) for unknown metric sets or
// counters (at their runbook positions), counters that fit no pass, and profiler settings the
// backend's version cannot honour.
RunPlan plan_run(const runbook::Runbook& rb, const ProfilerBackend& backend, int64_t run_id,
                 const RunPlanOptions& options = {});

// The same plan's commands for run `run_id` (the executor plans before the run exists, then
// records the commands under the run's id).
std::vector<PlannedCommand> commands_for_run(const RunPlan& plan, const runbook::Runbook& rb,
                                             const ProfilerBackend& backend, int64_t run_id,
                                             const std::optional<std::string>& placeholder = {});

// The pass as the store records it before it runs.
store::PlannedPass planned_pass(const PlannedCommand& command);

// What pass `ordinal` of run `run_id` asks the profiler for, before its command line exists:
// folder, file prefix, counters and kernel filter (nullopt: the runbook's own). Callers add what
// only they know (a rotated pass's input file and repeats, kernel replay's groups) and then make
// the command once with pass_command.
PassRequest pass_request(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal,
                         store::PassKind kind, std::vector<std::string> counters,
                         std::optional<std::string> kernel_include_regex);

// `replay: kernel`: the planned passes as the groups every dispatch is replayed with, in one run;
// empty for a trace pass, another replay or a profiler without kernel replay.
std::vector<std::vector<std::string>> kernel_replay_groups(const runbook::Runbook& rb,
                                                           const ProfilerBackend& backend,
                                                           const RunPlan& plan,
                                                           store::PassKind kind);

// The one factory of a pass's command line: the backend's argv and environment for `request`,
// built once. The command it returns is what the store records, `kprof plan` shows, the launcher
// starts and a Slurm script runs.
PlannedCommand pass_command(const runbook::Runbook& rb, const ProfilerBackend& backend,
                            int64_t run_id, int64_t ordinal, store::PassKind kind,
                            PassRequest request);

}  // namespace kprof::exec
