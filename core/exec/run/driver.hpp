// The loop that runs a run's planned passes (the core of `kprof run` and `resume`,
// usecases/executor.hpp): the trace pass first, then the kernels of interest from its ingested
// rows, then the counter passes, one per GPU slot at once, through the PassLauncher. Every state
// change is recorded in the database before and after it happens; each attempt that exits 0 is
// ingested in one transaction and judged; a transient failure is retried per the runbook's policy.
// On SIGINT/SIGTERM every running attempt is cancelled with that signal.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/exec/run/run_options.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// Runs every pass of `run_id` that is `planned` (the caller reset the ones to re-run), then sets
// the run's status and returns the counts. `plan` is the run's plan (pass_plan.hpp), made once by
// the caller: the driver decides replay: auto and rotated passes from it and never plans again.
// Progress goes to out_of(options). `adopted`: (pass id, attempt id) of running attempts a killed
// kprof left that `launcher` took over (PassLauncher::adopt, on resume); they are waited for, not
// started again. A launcher that schedules_itself() gets every ready pass in one start_all (one
// Slurm array job).
ExecResult drive_run(store::CaptureDb& db, const runbook::Runbook& rb,
                     const ProfilerBackend& backend, const RunPlan& plan, PassLauncher& launcher,
                     int64_t run_id, const ExecOptions& options,
                     const std::vector<std::pair<int64_t, std::string>>& adopted = {});

// Where progress and the summary go: options.out, else std::cout.
std::ostream& out_of(const ExecOptions& options);

}  // namespace kprof::exec
