// The local pass launcher: each attempt is a child process group on this host (run_process), waited
// for on a thread of its own. The attempt id is "<pgid>:<start time>": the process group with the
// start time of its leader (/proc/<pid>/stat field 22), which names one process for good, so a
// resume never kills a process that merely reused the pid.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/exec/launch/pass_launcher.hpp"

namespace kprof::exec {

class LocalLauncher final : public PassLauncher {
 public:
  LocalLauncher() = default;
  // Stops (as cancel(SIGTERM)) and waits for every attempt still running: an executor that threw
  // leaves no profiler behind.
  ~LocalLauncher() override;
  LocalLauncher(const LocalLauncher&) = delete;
  LocalLauncher& operator=(const LocalLauncher&) = delete;

  std::string_view name() const override { return "local"; }
  std::string start(const LaunchSpec& spec) override;
  std::vector<AttemptEnd> wait(std::chrono::milliseconds max_wait) override;
  void cancel(const std::string& id, int sig) override;
  void reap_orphan(const std::string& id) override;
  bool ids_are_host_local() const override { return true; }

 private:
  struct Attempt {
    std::thread thread;
    std::unique_ptr<std::atomic<int>> cancel;  // read by run_process's waiting loop
  };
  std::mutex m_mu;
  std::condition_variable m_cv;
  std::map<std::string, Attempt> m_running;  // by id; only the calling thread changes it
  std::deque<AttemptEnd> m_ended;            // guarded by m_mu
};

// The owner record a kprof before schema 6 kept for a running pass: the file "<pass log>.pgid"
// holding "<pgid> <start time>", written when the profiler started and removed when it ended.
// Returns the LocalLauncher id it names, or nullopt when there is no such file (that kprof died
// before the profiler started or after it ended) or it is unreadable.
std::optional<std::string> legacy_local_launch_id(const std::filesystem::path& pass_log);

}  // namespace kprof::exec
