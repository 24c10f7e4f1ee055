// Slurm's commands as kprof uses them: sbatch to submit a job array, scontrol (or sacct, where the
// cluster keeps accounting) to read its tasks' states, scancel to stop tasks. A requeued task is
// left to Slurm: it starts again after its hold (cred_expire, slurm.conf AuthInfo); releasing it
// sooner makes slurmd refuse the launch ("Job credential revoked", seen on slurm-wlm 22.05). Each
// is a real process found on PATH with the caller's environment (SLURM_CONF included), bounded by a
// timeout so a hung controller cannot hang kprof.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/launch/slurm_jobs.hpp"

namespace kprof::exec {

class SlurmClient {
 public:
  // `scratch`: a folder for the commands' output files.
  explicit SlurmClient(std::filesystem::path scratch,
                       std::chrono::milliseconds command_timeout = std::chrono::seconds(60));

  // sbatch --parsable SCRIPT, run in `work_dir`. Throws Error(runtime) with sbatch's own message
  // when it refuses (unknown partition, bad option) or is not installed.
  int64_t submit(const std::filesystem::path& script, const std::filesystem::path& work_dir);

  // Every task of the array Slurm still knows, by task id: scontrol first; sacct when the
  // controller no longer knows the job. A task in neither is missing from the map (a pending task
  // cancelled, or a job purged from a cluster without accounting).
  std::map<int64_t, SlurmTaskStatus> tasks(int64_t job_id);

  // scancel JOB_TASK (or the whole array without a task). Slurm sends SIGTERM, then SIGKILL after
  // its KillWait. Errors are ignored: a task that already ended needs no cancel.
  void cancel(int64_t job_id, std::optional<int64_t> task = std::nullopt);

  // True when sbatch is on PATH.
  static bool installed();

 private:
  struct Output {
    int exit_code = -1;
    std::string text;
  };
  Output run(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {});

  std::filesystem::path m_scratch;
  std::chrono::milliseconds m_timeout;
};

}  // namespace kprof::exec
