// The Slurm pass launcher: attempts run as tasks of Slurm job arrays, one task per pass, the task
// id being the pass ordinal (slurm_script.hpp). Attempts started together (start_all) are ONE
// `sbatch --array` job. The attempt id, the owner record stored with the pass, is
// "<array job id>_<task id>", as Slurm names the task (scontrol, squeue, scancel all take it).
//
// States are polled with scontrol (sacct where the controller forgot the job) at most once per
// poll interval and mapped to how an attempt ended:
//   COMPLETED → exit 0; FAILED etc. → Slurm's exit code or signal (exit 124 of the script's
//   timeout(1) → timed out); TIMEOUT → timed out; CANCELLED by kprof → interrupted with kprof's
//   signal, by anyone else → SIGTERM; NODE_FAIL/PREEMPTED → killed (SIGKILL), the log saying so, so
//   the profiler backend classifies it as transient and the executor retries it; a task Slurm no
//   longer knows → a launch error naming it.
// A requeued task (its node went DOWN: PENDING again, Restarts=N) is the same attempt going on;
// Slurm starts it again after its hold.
// adopt() lets a resume wait for a task a killed kprof left pending, running or finished, instead
// of cancelling it and launching the pass again.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/launch/slurm_client.hpp"
#include "core/exec/launch/slurm_script.hpp"

namespace kprof::exec {

class SlurmLauncher final : public PassLauncher {
 public:
  explicit SlurmLauncher(SbatchOptions options,
                         std::chrono::milliseconds poll = std::chrono::seconds(1));
  // Removes the scratch folder of Slurm's command outputs. Tasks still in Slurm are left there:
  // their pass is recorded as running with its task id, and `kprof resume` adopts them.
  ~SlurmLauncher() override;
  SlurmLauncher(const SlurmLauncher&) = delete;
  SlurmLauncher& operator=(const SlurmLauncher&) = delete;

  std::string_view name() const override { return "slurm"; }
  bool schedules_itself() const override { return true; }
  std::string start(const LaunchSpec& spec) override;
  std::vector<std::string> start_all(const std::vector<LaunchSpec>& specs) override;
  std::vector<AttemptEnd> wait(std::chrono::milliseconds max_wait) override;
  void cancel(const std::string& id, int sig) override;
  void reap_orphan(const std::string& id) override;
  bool adopt(const std::string& id, const LaunchSpec& spec) override;

 private:
  struct Task {
    int64_t job = 0;
    int64_t index = 0;
    LaunchSpec spec;
    std::chrono::steady_clock::time_point started;
    int cancel_signal = 0;  // kprof cancelled it with this signal
    int restarts = 0;       // requeues seen
    int missing_polls = 0;  // polls in a row that found no record of it
  };
  void poll(std::vector<AttemptEnd>& ended);
  AttemptEnd end_of(const std::string& id, Task& t, const SlurmTaskStatus& s);
  SlurmClient& client();

  SbatchOptions m_options;
  std::chrono::milliseconds m_poll;
  std::chrono::steady_clock::time_point m_last_poll{};
  std::map<std::string, Task> m_live;  // by id
  std::filesystem::path m_scratch;     // the client's folder for command outputs
  std::unique_ptr<SlurmClient> m_client;
  int m_submissions = 0;
};

// "12_3" → (12, 3); nullopt for anything else.
std::optional<std::pair<int64_t, int64_t>> parse_slurm_attempt_id(const std::string& id);

}  // namespace kprof::exec
