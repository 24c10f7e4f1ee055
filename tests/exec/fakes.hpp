// The fakes of the executor's two seams: a PassLauncher that runs no process (each attempt does
// what the test scripted, writing the profiler's files itself) and a ProfilerBackend with a command
// line of its own. They let the executor's unit tests drive the pass state machine through success,
// crash, timeout, interrupt and resume without spawning anything.
#pragma once

#include <signal.h>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/profiler/failure.hpp"
#include "core/exec/profiler/profiler_backend.hpp"

namespace kprof::exec::testing {

// What one attempt does.
struct FakeAttempt {
  bool cannot_start = false;  // start() throws, as for a missing executable
  int exit_code = 0;
  int signal = 0;          // ended by this signal (a crash)
  bool timed_out = false;  // the launcher stopped it at spec.timeout
  bool hangs = false;      // runs until cancel()
  std::string log;         // its log tail
  // Writes the profiler's files into spec.output_dir (the capture).
  std::function<void(const LaunchSpec&)> write;
  // Runs inside start(), once it runs (e.g. to interrupt kprof while this attempt runs).
  std::function<void()> on_start;
};

class FakeLauncher final : public PassLauncher {
 public:
  // The test's script: what the n-th attempt (from 0, over the whole run) of `spec` does.
  using Script = std::function<FakeAttempt(const LaunchSpec& spec, int n)>;
  explicit FakeLauncher(Script script) : m_script(std::move(script)) {}

  std::string_view name() const override { return "fake"; }

  std::string start(const LaunchSpec& spec) override {
    const int n = static_cast<int>(started.size());
    started.push_back(spec);
    FakeAttempt a = m_script(spec, n);
    if (a.cannot_start) throw Error::runtime("cannot find '" + spec.argv.at(0) + "' on PATH", "");
    const std::string id = "fake-" + std::to_string(n);
    if (a.write) a.write(spec);
    if (a.hangs) {
      m_hanging[id] = a;
    } else {
      AttemptEnd e;
      e.id = id;
      e.result.exit_code = a.signal ? -1 : a.exit_code;
      e.result.signal = a.signal;
      e.result.timed_out = a.timed_out;
      e.result.duration = a.timed_out ? spec.timeout : std::chrono::milliseconds(5);
      e.result.log_tail = a.log;
      m_ended.push_back(std::move(e));
    }
    if (a.on_start) a.on_start();
    return id;
  }

  std::vector<AttemptEnd> wait(std::chrono::milliseconds) override {
    std::vector<AttemptEnd> out(m_ended.begin(), m_ended.end());
    m_ended.clear();
    return out;
  }

  void cancel(const std::string& id, int sig) override {
    cancels.push_back({id, sig});
    auto it = m_hanging.find(id);
    if (it == m_hanging.end()) return;
    AttemptEnd e;
    e.id = id;
    e.result.exit_code = -1;
    e.result.signal = sig;
    e.result.interrupted = true;
    e.result.interrupt_signal = sig;
    m_hanging.erase(it);
    m_ended.push_back(std::move(e));
  }

  void reap_orphan(const std::string& id) override { reaped.push_back(id); }
  bool ids_are_host_local() const override { return host_local; }

  // As a launcher with a scheduler of its own (Slurm) when `batch` is set: every start_all call
  // is recorded as one submission.
  bool schedules_itself() const override { return batch; }
  std::vector<std::string> start_all(const std::vector<LaunchSpec>& specs) override {
    submissions.push_back(specs);
    return PassLauncher::start_all(specs);
  }

  // Takes over an id listed in `known` (a task its scheduler still has); it ends with exit 0.
  bool adopt(const std::string& id, const LaunchSpec& spec) override {
    if (!known.count(id)) return false;
    adopted.push_back({id, spec});
    AttemptEnd e;
    e.id = id;
    e.result.exit_code = 0;
    m_ended.push_back(std::move(e));
    return true;
  }

  bool batch = false;
  bool host_local = false;  // ids_are_host_local(): as the local launcher's process groups
  std::set<std::string> known;
  std::vector<std::vector<LaunchSpec>> submissions;         // start_all calls
  std::vector<std::pair<std::string, LaunchSpec>> adopted;  // adopt() calls that took over
  std::vector<LaunchSpec> started;                          // every attempt's spec, in order
  std::vector<std::pair<std::string, int>> cancels;         // (id, signal)
  std::vector<std::string> reaped;                          // ids given to reap_orphan

 private:
  Script m_script;
  std::map<std::string, FakeAttempt> m_hanging;
  std::deque<AttemptEnd> m_ended;
};

// A profiler with its own command line: `fakeprof trace` or `fakeprof counters A,B [filter]`.
class FakeBackend final : public ProfilerBackend {
 public:
  FakeBackend() : m_version(unknown_rocprofv3_version("fake profiler")) {}
  std::string_view name() const override { return "fakeprof"; }
  const std::string& executable() const override { return m_exe; }
  bool simulated() const override { return true; }
  std::optional<int64_t> seed() const override { return std::nullopt; }
  const ProfilerVersion& version() const override { return m_version; }
  bool plans_counter_passes() const override { return true; }
  bool counters_count_outside_regions() const override { return false; }
  std::vector<std::string> argv(const PassRequest& pass) const override {
    std::vector<std::string> a{m_exe, pass.mode == PassMode::trace ? "trace" : "counters"};
    std::string joined;
    for (const auto& c : pass.counters) joined += (joined.empty() ? "" : ",") + c;
    if (!joined.empty()) a.push_back(joined);
    if (pass.kernel_include_regex) a.push_back(*pass.kernel_include_regex);
    a.push_back(pass.output_dir.string());
    return a;
  }
  store::EnvDelta env() const override { return {{"FAKEPROF", "1"}}; }
  std::span<const runbook::OwnedOption> owned_options() const override { return {}; }
  Failure classify(const RunResult& r, const PassRequest&) const override {
    return classify_generic(r);
  }

 private:
  std::string m_exe = "fakeprof";
  ProfilerVersion m_version;
};

}  // namespace kprof::exec::testing
