// Runs a runbook's passes and keeps their state in the capture database:
//   plan → record the run and every planned pass → trace pass → kernels of interest from the
//   ingested trace → counter passes (one per GPU slot at once) → each pass ingested in one
//   transaction as it finishes → summary.
// Pass states: planned → running → done | failed | interrupted. `resume` re-enters the same loop:
// done passes are skipped; interrupted ones and running ones whose kprof died re-run; failed ones
// re-run with retry_failed.
//
// How an attempt runs is the PassLauncher's business (pass_launcher.hpp; local processes by
// default); what the command is, and how a failure is classified, the ProfilerBackend's
// (profiler_backend.hpp). The calling thread is the only one that touches the database (state
// changes and ingest), so ingest is serialized.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/launcher_choice.hpp"
#include "core/exec/pass_launcher.hpp"
#include "core/exec/pass_plan.hpp"
#include "core/exec/profiler_backend.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// The seams the executor runs through. Defaults: make_profiler_backend(), plan_run() and a
// LocalLauncher; the executor's unit tests give fakes.
struct ExecSeams {
  // Makes the backend for the runbook: `kprof run` asks with --simulate, `resume` with what the
  // run recorded (simulated, profiler version).
  std::function<std::unique_ptr<ProfilerBackend>(const runbook::Runbook&, const BackendChoice&)>
      backend;
  PassLauncher* launcher = nullptr;  // runs every attempt; not owned
  // Plans the run (pass_plan.hpp). Called once per `kprof run` or `resume`, before the database is
  // touched; the driver is handed the plan and never plans again.
  std::function<RunPlan(const runbook::Runbook&, const ProfilerBackend&, int64_t,
                        const RunPlanOptions&)>
      plan;
};

struct ExecOptions {
  bool simulate = false;  // run rocprofv3-sim instead of the runbook's profiler
  std::vector<int> gpus;  // --gpus: one pass per GPU at once; empty = one at a time
  std::optional<std::filesystem::path> db;  // --db: instead of the runbook's `database`
  bool quiet = false;                       // no progress lines (the summary is still printed)
  bool retry_failed = false;                // resume: re-run failed passes too
  LauncherFlags launcher;  // --launcher/--slurm and the Slurm flags, over the runbook's `launcher:`
  bool force = false;      // resume: accept a changed runbook
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};  // SIGTERM → SIGKILL
  std::ostream* out = nullptr;  // progress and summary; default std::cout
  std::optional<bool> tty;      // live progress line; default isatty(stdout)
};

struct ExecResult {
  int64_t run_id = 0;
  std::filesystem::path db;
  bool simulated = false;
  store::RunStatus status = store::RunStatus::running;
  int passes = 0, done = 0, failed = 0, interrupted = 0;
  // 0 all done; 1 a pass failed; 128 + signal when interrupted (130 SIGINT, 143 SIGTERM).
  int exit_code = 0;
};

// `kprof run`. Throws Error for a bad runbook or plan, a database in use, a missing profiler.
ExecResult run_runbook(const runbook::Runbook& rb, const ExecOptions& options,
                       const ExecSeams& seams = {});

// `kprof resume DB|RUNBOOK`: continues the last run in the database. A runbook whose sha256
// differs from the recorded one is refused (Error, input) unless options.force; the line diff is
// written to `diff_out` (default std::cerr) first.
// A pass recorded as running (its kprof was killed) has its attempt stopped first by the launcher
// that recorded it (make_pass_launcher of its name, or seams.launcher when the names match).
ExecResult resume_run(const std::filesystem::path& db_or_runbook, const ExecOptions& options,
                      std::ostream* diff_out = nullptr, const ExecSeams& seams = {});

}  // namespace kprof::exec
