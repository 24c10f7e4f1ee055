// Launches one pass's command as a child process in its own process group, waits for it with a
// timeout, and reports how it ended. The only place in kprof that touches Boost.Process (a heavy
// header) is process_runner.cpp; this header is plain std.
//
// Interruption: install_interrupt_handlers() makes SIGINT/SIGTERM to kprof only set a flag; every
// waiting loop polls it, forwards the signal to its child's group, and reports `interrupted`.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof::exec {

struct LaunchSpec {
  // argv[0] is looked up on PATH when it has no '/'. With `shell`, the words are joined with
  // spaces and run as `/bin/sh -c "<joined>"` (the runbook's `shell: true`).
  std::vector<std::string> argv;
  bool shell = false;
  // Added to (and overriding) kprof's own environment.
  std::map<std::string, std::string> env;
  std::filesystem::path cwd;  // empty: kprof's cwd
  // stdout and stderr both go here; the file is appended to, so retries keep earlier attempts.
  std::filesystem::path log_path;
  std::chrono::milliseconds timeout{0};  // 0: none
  // After SIGTERM to the group (timeout or interruption), how long before SIGKILL.
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};
  size_t log_tail_bytes = 4096;
  // Called once the child runs (its pid is also its process group id), on the calling thread.
  std::function<void(pid_t)> on_started;
  // When set: called with the child's pid (also its process group id) after the fork and BEFORE
  // the command can run (the child waits for it to return), on a thread of run_process's own, so
  // that the caller records the attempt before it has any effect. If it throws, the child exits
  // without running the command and run_process rethrows it.
  std::function<void(pid_t)> before_exec;
  // When it holds a signal (non-zero), that signal goes to the child's group as if kprof had been
  // interrupted by it (then SIGKILL after kill_grace); the result says `interrupted`. How a
  // PassLauncher cancels one attempt. Not owned; must outlive run_process.
  const std::atomic<int>* cancel = nullptr;

  // For a PassLauncher (pass_launcher.hpp); run_process itself does not use them.
  // The owner record: start() calls it with the attempt's id before the command can run where the
  // launcher can hold it (the local one), else as soon as it has the id; if it throws, start()
  // rethrows and the command does not run (the local launcher) or is cancelled.
  std::function<void(const std::string& id)> on_id;
  std::string name;                  // "run 3 pass 2": a batch job's name
  std::filesystem::path output_dir;  // where the profiler writes (exists, emptied)
  std::vector<int> gpus;             // --gpus: the devices of this attempt's slot; empty: none
  std::optional<int64_t> ordinal;    // the pass's ordinal (a Slurm array task id)
  // The profiler release the command was built for (ProfilerVersion::release_key, and its summary
  // for messages): a launcher that runs it on another node checks that node's release first.
  std::string profiler_release;
  std::string profiler_release_text;
};

struct RunResult {
  pid_t pid = 0;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // 0 when it exited
  bool timed_out = false;
  bool interrupted = false;  // kprof got SIGINT/SIGTERM while this ran
  int interrupt_signal = 0;  // which one
  std::chrono::milliseconds duration{0};
  std::string log_tail;  // the last log_tail_bytes of the log, cut at a line start

  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out && !interrupted; }
  // "exit 2", "signal 6 (SIGABRT)", "timed out after 30s", "interrupted (SIGINT)".
  std::string describe() const;
};

// Runs spec to completion (or timeout/interruption). Throws Error (runtime) when the command
// cannot be started (not found, not executable, bad cwd, log not writable).
RunResult run_process(const LaunchSpec& spec);

// SIGINT/SIGTERM set a process-wide flag instead of killing kprof. Idempotent.
void install_interrupt_handlers();
// The signal that interrupted kprof, 0 if none.
int interrupt_signal();
// For tests and for callers that want to stop work from code (same effect as the signal).
void request_interrupt(int sig);
void clear_interrupt();

// True when a process with this pid exists (kill(pid, 0); EPERM counts as alive).
bool process_alive(pid_t pid);

// Last `max_bytes` of a file, starting at a line boundary when it had to cut.
std::string file_tail(const std::filesystem::path& path, size_t max_bytes);

std::string signal_name(int sig);

// The start time of a process in clock ticks since boot (/proc/<pid>/stat field 22): with the pid
// it names one process for good, so a recorded orphan is never confused with a reused pid.
std::optional<unsigned long long> process_start_time(pid_t pid);

// SIGKILLs the process group `pgid` if its leader is still the process that started at
// `start_time`, and waits (bounded) until the leader is gone. For the workload a kill -9'd kprof
// left behind.
void kill_orphan_group(pid_t pgid, unsigned long long start_time);

}  // namespace kprof::exec
