// Text views of a run's status (run_status.hpp): the `kprof status` table, the summary that ends
// `kprof run` and `kprof resume` (with the exact command that goes on), and resume's first line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/run/run_status.hpp"

namespace kprof::exec {

struct ExecResult;

// The run and every pass with state, attempts, duration, reason, as a table at most `width`
// columns wide (0 = no limit).
std::string render_status(const RunStatusModel& m, size_t width);

// `kprof status DB`: render_status(load_run_status(db, run_id), width).
std::string status_text(const std::filesystem::path& db,
                        std::optional<int64_t> run_id = std::nullopt, size_t width = 0);

// What `kprof run`/`resume` print when they end: a blank line, the status table, the database as
// the user can type it, and, when passes are left, why and the exact command that continues
// (with the --gpus, launcher flags and --force it was given).
std::string run_summary_text(const RunStatusModel& m, const ExecResult& r,
                             const std::vector<int>& gpus, bool force, size_t width,
                             const std::vector<std::string>& launcher_args = {});

// `kprof resume`'s first line: what the earlier kprof finished and what this one will run.
std::string resume_header(const store::RunInfo& run, const std::vector<store::PassInfo>& before,
                          bool retry_failed);

}  // namespace kprof::exec
