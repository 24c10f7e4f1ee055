#include "core/exec/launch/slurm_client.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

SlurmClient::SlurmClient(fs::path scratch, std::chrono::milliseconds command_timeout)
    : m_scratch(std::move(scratch)), m_timeout(command_timeout) {
  fs::create_directories(m_scratch);
}

bool SlurmClient::installed() {
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "", ':')) {
    if (!dir.empty() && ::access((fs::path(dir) / "sbatch").c_str(), X_OK) == 0) return true;
  }
  return false;
}

SlurmClient::Output SlurmClient::run(const std::vector<std::string>& argv, const fs::path& cwd) {
  static std::atomic<int> counter{0};
  LaunchSpec s;
  s.argv = argv;
  s.cwd = cwd;
  s.log_path = m_scratch / (argv[0] + "-" + std::to_string(::getpid()) + "-" +
                            std::to_string(counter++) + ".out");
  s.timeout = m_timeout;
  s.kill_grace = std::chrono::seconds(1);
  s.log_tail_bytes = 1 << 20;
  std::error_code ec;
  fs::remove(s.log_path, ec);
  RunResult r;
  try {
    r = run_process(s);
  } catch (const Error& e) {
    throw Error::runtime("cannot run Slurm's " + argv[0] + ": " + e.what(),
                         "run kprof --slurm on a Slurm login node (sbatch, squeue, scontrol and "
                         "scancel on PATH)");
  }
  Output o{r.ok() ? 0 : (r.exit_code >= 0 ? r.exit_code : 128 + r.signal), r.log_tail};
  fs::remove(s.log_path, ec);
  if (r.timed_out) {
    throw Error::runtime(
        argv[0] + " did not answer within " + std::to_string(m_timeout.count() / 1000) + " s",
        "is slurmctld up? `scontrol ping` says");
  }
  return o;
}

int64_t SlurmClient::submit(const fs::path& script, const fs::path& work_dir) {
  const auto o = run({"sbatch", "--parsable", script.string()}, work_dir);
  const auto id = o.exit_code == 0 ? parse_sbatch_job_id(o.text) : std::nullopt;
  if (!id) {
    throw Error::runtime("sbatch refused " + script.string() + ": " + std::string(trim(o.text)),
                         "the script's #SBATCH lines come from the runbook's launcher section "
                         "and --partition/--time/--sbatch-arg");
  }
  return *id;
}

std::map<int64_t, SlurmTaskStatus> SlurmClient::tasks(int64_t job_id) {
  const auto o = run({"scontrol", "show", "job", "-o", std::to_string(job_id)});
  if (o.exit_code == 0) return parse_scontrol_jobs(o.text, job_id);
  // The controller forgot the job: accounting, where there is one.
  const auto a =
      run({"sacct", "-X", "-P", "-n", "-j", std::to_string(job_id), "-o", "JobID,State,ExitCode"});
  if (a.exit_code == 0) return parse_sacct(a.text, job_id);
  return {};
}

void SlurmClient::cancel(int64_t job_id, std::optional<int64_t> task) {
  std::string id = std::to_string(job_id);
  if (task) id += "_" + std::to_string(*task);
  run({"scancel", id});
}

}  // namespace kprof::exec
