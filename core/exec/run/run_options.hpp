// What `kprof run` and `resume` are given (ExecOptions), run through (ExecSeams) and return
// (ExecResult): shared by the use cases (usecases/executor.hpp) and the driver loop that they hand
// a planned run to (driver.hpp).
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

#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
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

}  // namespace kprof::exec
