// The driver loop's state, private to core/exec (driver.hpp is its interface). One class, its
// members defined by concern:
//   driver.cpp          drive(): the order of the passes (trace, kernels of interest, counters)
//   driver_decide.cpp   which passes and commands: the run's plan, replay: auto's decision on the
//                       trace, rotated passes, the kernels of interest, the ETA's earlier run
//   driver_launch.cpp   scheduling: GPU slots, starting attempts on the launcher, the poll loop
//   driver_outcome.cpp  state transitions: how an attempt ended (ingest, retry, fail, interrupt)
//                       and the run's final status
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/progress.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/run/driver.hpp"

namespace kprof::exec::driver_detail {

using Clock = std::chrono::steady_clock;

// One pass to attempt. The pass folder is emptied before every attempt: rocprofv3 names files by
// pid (%pid%), so an earlier attempt's files would otherwise be ingested with the new ones
// (paths: pass_plan.hpp).
struct Job {
  int64_t pass_id = 0;
  int64_t ordinal = 0;
  store::PassKind kind = store::PassKind::trace;
  std::vector<std::string> counters;
  PassRequest request;  // what the backend built the command from (and classifies against)
  std::vector<std::string> argv;
  // A rotated pass (replay: rotate): its counter groups, which ingest tells each dispatch's from.
  std::vector<std::vector<std::string>> groups;
  int tries = 0;             // attempts started by this kprof process
  std::string last_failure;  // why the previous attempt failed, when this one is a retry
  Clock::time_point not_before{};
};

// How an attempt ended, or that the launcher could not start it.
struct Finished {
  Job job;
  size_t slot = 0;
  RunResult result;
  std::optional<std::string> launch_error;
};

// An attempt the launcher runs.
struct Running {
  Job job;
  size_t slot = 0;
};

class Driver {
 public:
  Driver(store::CaptureDb& db, const runbook::Runbook& rb, const ProfilerBackend& backend,
         const RunPlan& plan, PassLauncher& launcher, int64_t run_id, const ExecOptions& options);

  // An attempt a killed kprof left that the launcher took over (resume): drive() waits for it
  // instead of running its pass again.
  void adopt(int64_t pass_id, std::string id) { m_adopted[pass_id] = std::move(id); }

  // Runs every pass that is `planned` (the caller reset the ones to re-run).
  ExecResult drive();

 private:
  // driver.cpp
  int start_progress(const std::vector<store::PassInfo>& passes);
  void run_counter_passes(const std::optional<std::string>& include_regex);
  void block_counter_passes(const std::string& trace_failure);

  // driver_decide.cpp
  void estimate_from_earlier_run();
  const RunPlan& run_plan() const;
  bool rotated(const store::PassInfo& p);
  bool undecided();
  void decide_after_trace(bool trace_ok);
  // The kernels of interest from the ingested trace, stored with the run; the regex that keeps
  // counter passes to them (none: every kernel). Throws Error when the selection fails.
  std::optional<std::string> select_counted_kernels(int64_t trace_pass_id);
  Job job_of(const store::PassInfo& p, const std::optional<std::string>& include_regex);
  std::pair<Job, std::string> adopted_job(const store::PassInfo& p,
                                          const std::optional<std::string>& include_regex);

  // driver_launch.cpp
  // How many attempts run at once: one per GPU slot (at least one), or every ready one for a
  // launcher with its own scheduler. work_width is progress's view of it, slot_count run_jobs'.
  int work_width(int ready) const;
  size_t slot_count(size_t ready) const;
  LaunchSpec spec_of(const Job& j, size_t slot);
  std::vector<Finished> start_batch(std::vector<std::pair<Job, size_t>> batch);
  std::optional<Finished> start(Job j, size_t slot);
  LaunchSpec prepare(Job& j, size_t slot);
  static std::string rerunnable_line(const LaunchSpec& s);
  void run_jobs(std::vector<Job> jobs, size_t slots,
                std::vector<std::pair<Job, std::string>> adopted = {});

  // driver_outcome.cpp
  std::optional<Job> handle(Finished& f);
  void fail_unplannable(const store::PassInfo& p, const std::string& why);
  void ingest(const Job& j);
  // Loads the attempt's files (inside the caller's transaction) and judges what they hold: the
  // capture (judge_capture) and its ranks (judge_ranks); `note` gets what is said but not failed.
  Failure load_and_judge(const Job& j, size_t slot, std::string& note);
  ExecResult finish();

  store::CaptureDb& m_db;
  const runbook::Runbook& m_rb;
  const ProfilerBackend& m_backend;
  const RunPlan& m_plan;  // made once by the executor (executor.cpp)
  PassLauncher& m_launcher;
  int64_t m_run_id;
  std::string m_recorded_sha;  // the runbook's sha256 the run recorded (a resume --force differs)
  const ExecOptions& m_options;
  std::vector<std::vector<int>> m_slots;    // --gpus in slots of workload.ranks GPUs
  std::vector<store::EnvDelta> m_slot_env;  // --gpus: the variables of each GPU slot
  std::string m_host;
  Progress m_progress;
  int m_to_run = 0;  // passes planned when drive() began

  std::map<std::string, Running> m_running;  // by the launcher's attempt id
  std::map<int64_t, std::string> m_adopted;  // pass id → attempt id, taken over by a resume
};

}  // namespace kprof::exec::driver_detail
