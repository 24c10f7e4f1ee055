// What Slurm says about the tasks of a job array, read from its own commands (no library: the
// commands are the interface Slurm keeps stable across versions, and what users run by hand).
//
// States come from `scontrol show job -o JOBID`, which works without accounting while the
// controller still holds the job (MinJobAge after its end,
// https://slurm.schedmd.com/archive/slurm-22.05.8/slurm.conf.html#OPT_MinJobAge), and from
// `sacct -X -P -n -j JOBID -o JobID,State,ExitCode` where the cluster has accounting and the
// controller has forgotten the job. Observed on slurm-wlm 22.05 (Debian 12):
//   - pending tasks of an array are one record, `ArrayTaskId=3-5` (or `3,5-7%2` with a limit);
//     a task that started is its own record with its own JobId and `ArrayTaskId=N`;
//   - `ExitCode=3:0` is exit status 3; `ExitCode=0:9` is killed by signal 9;
//   - scancel of a pending task removes it without a record (it is in no output afterwards);
//     of a running one: `JobState=CANCELLED ExitCode=0:15`;
//   - a node set DOWN requeues its running tasks: `JobState=PENDING Restarts=1`, held until
//     their BeginTime (`Reason=BeginTime`), cred_expire seconds later (slurm.conf AuthInfo,
//     default 120); a task released sooner (`scontrol update StartTime=now`) may fail to launch
//     with "Job credential revoked" (exit 1).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof::exec {

// How a task stands, from Slurm's job state
// (https://slurm.schedmd.com/archive/slurm-22.05.8/squeue.html#SECTION_JOB-STATE-CODES).
enum class SlurmPhase {
  waiting,    // PENDING, REQUEUED, CONFIGURING, RESIZING, SUSPENDED: not running yet (or again)
  running,    // RUNNING, COMPLETING
  completed,  // COMPLETED: exit 0
  failed,     // FAILED, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE: the command failed or could not start
  timeout,    // TIMEOUT: past --time
  cancelled,  // CANCELLED (scancel, or an admin)
  lost,       // NODE_FAIL, PREEMPTED, REVOKED: the node or the scheduler took it away
};

struct SlurmTaskStatus {
  int64_t task = 0;   // the array task id
  std::string state;  // Slurm's word: "COMPLETED", "NODE_FAIL", ...
  SlurmPhase phase = SlurmPhase::waiting;
  std::string reason;  // Reason=..., when Slurm gave one
  int exit_code = 0;   // from ExitCode=E:S
  int signal = 0;
  int restarts = 0;  // times it was requeued
  std::string node;  // NodeList (empty while pending)
};

// Slurm's word → phase. Unknown words are `waiting` (Slurm adds states; a task in one has not
// ended as far as kprof can tell) and the word is kept for display.
SlurmPhase slurm_phase(const std::string& state);
bool slurm_phase_ended(SlurmPhase p);

// "3-5", "3,5-7%2", "4" → the task ids.
std::vector<int64_t> parse_array_ranges(const std::string& text);

// Every task of array `job_id` in `scontrol show job -o` output (one job record per line), by
// task id. Lines of other jobs are ignored.
std::map<int64_t, SlurmTaskStatus> parse_scontrol_jobs(const std::string& text, int64_t job_id);

// The same from `sacct -X -P -n -o JobID,State,ExitCode` lines ("12_3|CANCELLED by 0|0:15";
// "12_[4-6]|PENDING|0:0").
std::map<int64_t, SlurmTaskStatus> parse_sacct(const std::string& text, int64_t job_id);

// The job id sbatch --parsable printed ("12" or "12;cluster").
std::optional<int64_t> parse_sbatch_job_id(const std::string& text);

}  // namespace kprof::exec
