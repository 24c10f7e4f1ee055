// The use case of `kprof plan`: a runbook planned into passes for the next run of its database,
// with every pass's exact command and environment delta (pass_plan.hpp, the commands `kprof run`
// launches), the first-fit baseline, each --gpus slot's environment, and a one-run rotation
// preview on a trace already in the database. Plans only; runs no pass (it does run
// `<profiler> --version`, as `kprof run` does, because the command lines depend on it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/passes/pass_manifest.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/passes/rotation_preview.hpp"
#include "core/exec/profiler/rocprofv3_version.hpp"
#include "core/exec/usecases/run_estimate.hpp"
#include "core/exec/usecases/workload_model.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct RunbookPlanRequest {
  std::filesystem::path runbook;
  std::optional<std::filesystem::path> db;  // instead of the runbook's `database`
  bool simulate = false;                    // plan for the test double
  std::optional<std::string> gpus;          // --gpus LIST as given: each slot's environment
  std::uint64_t node_budget = plan::PlanOptions{}.node_budget;
  // Shows the counter passes' kernel filter the trace decides as a placeholder; false: their
  // commands without it, as they can run (`kprof plan --emit-sbatch`).
  bool filter_placeholder = true;
  // Refuses a profiler that is not on PATH (Error(runtime)); false for a batch script that runs
  // on other nodes (`--emit-sbatch`).
  bool require_profiler = true;
  // Reads the runbook's workload model for the estimates (workload_model.hpp); the app composes
  // it. Without one there is no estimate.
  WorkloadModelLoader workload_model;
};

struct RunbookPlan {
  runbook::Runbook rb;
  std::string profiler;  // the executable
  bool simulated = false;
  ProfilerVersion version;
  std::optional<int64_t> seed;  // the double's seed, as `kprof run` records it
  // How `kprof run` would keep each kind of pass to the region at ingest (pass_ingest.hpp).
  RegionCut trace_cut = RegionCut::none;
  RegionCut counters_cut = RegionCut::none;
  int64_t run_id = 0;  // the id `kprof run` would give the next run: the commands hold it
  RunPlan plan;        // the counter passes' filter decided by the trace shows as a placeholder
  size_t first_fit_passes = 0;  // rocprofiler-compute's first-fit on the same counters
  std::vector<int> gpus;
  std::vector<std::vector<int>> slots;      // --gpus in slots of workload.ranks GPUs
  std::vector<store::EnvDelta> slot_envs;   // per --gpus slot
  std::optional<RotationPreview> rotation;  // two counter passes or more
  // replay: auto decides on the run's trace (plan.replay after_trace): what it would decide on
  // the trace already in the database (the preview's).
  std::optional<ReplayChoice> predicted;
  // Application runs and their wall time from the workload model, both ways (an ESTIMATE).
  std::optional<RunEstimate> estimate;
  // Wall time of plan_runbook as a whole (the runbook, `<profiler> --version`, the pass search,
  // the trace read for the rotation preview, the estimates), of the preview alone (0 when none
  // was read) and of the run estimates (the workload model read, and simulated when there is no
  // trace); the pass search's own is plan.counters->planning_ms.
  double total_ms = 0;
  double preview_ms = 0;
  double estimate_ms = 0;
};

// Throws Error(input) for a bad runbook, plan or --gpus setting, as `kprof run` would.
RunbookPlan plan_runbook(const RunbookPlanRequest& request);

// `kprof plan --emit-sbatch`: emit_sbatch() of the request's plan, every command runnable (no
// placeholder: a command that could not run is no use in a script); each task writes its pass's
// manifest (pass_manifest.hpp) for `kprof ingest`. Throws Error(input) when the
// request picks GPUs of this host (--gpus): the script asks Slurm for them.
std::string plan_sbatch(RunbookPlanRequest request, const LauncherFlags& flags);

}  // namespace kprof::exec
