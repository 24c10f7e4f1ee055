// The launcher seam: how one attempt of one pass runs somewhere, with the shape of ninja's
// CommandRunner (src/build.h in ninja-build/ninja: StartCommand, WaitForCommand, Abort): start an
// attempt, wait for attempts to end, cancel one. The executor keeps the durable pass state machine
// (planned → running → done | failed | interrupted) and never learns how an attempt runs.
// Implementations:
//   - LocalLauncher (local_launcher.hpp): a child process group on this host (process_runner);
//   - the fake of the executor's unit tests (tests/exec/fakes.hpp): no process at all;
//   - SlurmLauncher (slurm_launcher.hpp): tasks of `sbatch --array` jobs, id "<job>_<task>".
// The owner record of a running attempt is (launcher name, attempt id), stored with the pass, so a
// later `kprof resume` asks the launcher that started it to stop what a killed kprof left behind.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/exec/node/process_runner.hpp"

namespace kprof::exec {

// How one attempt ended.
struct AttemptEnd {
  std::string id;    // as start() returned it
  RunResult result;  // exit code or signal, timed out, interrupted (cancelled), duration, log tail
  // Set when the launcher accepted the attempt but could not run the command (a batch job that
  // failed to launch); `result` is then meaningless.
  std::optional<std::string> launch_error;
};

class PassLauncher {
 public:
  virtual ~PassLauncher() = default;

  // "local", "slurm": recorded with the attempt (the owner record) and given to
  // make_pass_launcher() by a resume to find the launcher of an orphaned attempt.
  virtual std::string_view name() const = 0;

  // Starts one attempt of spec (argv, env delta, cwd, output_dir, log_path, timeout and
  // kill_grace, gpu, name; spec.on_started and spec.cancel are the launcher's own business).
  // Returns once the command runs, with the attempt's id: text that names it for good (a local
  // process group with its start time, a job id), durable enough to be stored and given to
  // reap_orphan() by another kprof process. Throws Error (runtime) when the command cannot be
  // started (not found, not executable, bad cwd, log not writable).
  // The launcher enforces spec.timeout: past it, the attempt is stopped (SIGTERM, SIGKILL after
  // kill_grace) and ends with result.timed_out.
  virtual std::string start(const LaunchSpec& spec) = 0;

  // Waits until at least one started attempt has ended or `max_wait` passed; returns every attempt
  // that ended since the last call, each exactly once. Returns at once when none is running.
  virtual std::vector<AttemptEnd> wait(std::chrono::milliseconds max_wait) = 0;

  // Asks a running attempt to stop with `sig` (SIGINT or SIGTERM, as kprof got it), SIGKILL after
  // its kill_grace; it ends with result.interrupted and interrupt_signal == sig. Nothing for an
  // attempt that already ended.
  virtual void cancel(const std::string& id, int sig) = 0;

  // Stops an attempt that a kprof killed without cleanup left running, from the id it recorded,
  // and returns once it is gone (bounded). Nothing when it already ended; an id that names
  // something else by now (a reused pid) is left alone.
  virtual void reap_orphan(const std::string& id) = 0;

  // True when an attempt's id names something only on the host that started it (a local process
  // group): kprof on another host (resume --force) can neither adopt nor reap it. False for ids a
  // scheduler knows cluster-wide (Slurm jobs).
  virtual bool ids_are_host_local() const { return false; }

  // True for a launcher with a scheduler of its own (Slurm): the executor hands it every pass that
  // is ready at once, through start_all, instead of one per --gpus slot.
  virtual bool schedules_itself() const { return false; }

  // Starts several attempts together (one batch submission where the launcher has one) and
  // returns their ids in the order of `specs`. Throws like start(); then none was started.
  // The default starts them one by one (for launchers that never schedule themselves).
  virtual std::vector<std::string> start_all(const std::vector<LaunchSpec>& specs) {
    std::vector<std::string> ids;
    for (const auto& s : specs) ids.push_back(start(s));
    return ids;
  }

  // A resume's alternative to reap_orphan: takes over an attempt a killed kprof left, from its
  // recorded id, when the launcher still knows it (pending, running or already ended); wait() then
  // reports how it ended, as for an attempt this process started. False (the default): the
  // executor reaps it and runs the pass again.
  virtual bool adopt(const std::string& id, const LaunchSpec& spec) {
    (void)id;
    (void)spec;
    return false;
  }
};

// The one place that maps a launcher name to its implementation (pass_launchers.cpp, a line per
// launcher in launchers.def): "local", "slurm" (a SlurmLauncher with the cluster's defaults, enough
// to reap or adopt a recorded task). `kprof run --launcher NAME` and a resume's owner records find
// launchers here. Throws Error (input) for a name this kprof does not know (a database recorded by
// a kprof with another launcher).
std::unique_ptr<PassLauncher> make_pass_launcher(std::string_view name);

// The names make_pass_launcher knows, in registration order ("local" first).
std::vector<std::string> pass_launcher_names();

}  // namespace kprof::exec
