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

#include <filesystem>
#include <iosfwd>

#include "core/exec/run/run_options.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

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
