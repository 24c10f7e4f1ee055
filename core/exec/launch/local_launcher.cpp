#include "core/exec/launch/local_launcher.hpp"

#include <signal.h>

#include <fstream>
#include <future>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

LocalLauncher::~LocalLauncher() {
  for (auto& [id, a] : m_running) {
    int expected = 0;
    a.cancel->compare_exchange_strong(expected, SIGTERM);
  }
  for (auto& [id, a] : m_running) {
    if (a.thread.joinable()) a.thread.join();
  }
}

std::string LocalLauncher::start(const LaunchSpec& spec) {
  auto cancel = std::make_unique<std::atomic<int>>(0);
  // The waiting thread hands back either the forked child's id or why it could not start; the
  // child then waits (run_process's before_exec) until the owner record is written here.
  auto started = std::make_shared<std::promise<std::string>>();
  std::future<std::string> id_of = started->get_future();
  auto recorded = std::make_shared<std::promise<bool>>();
  std::shared_future<bool> go = recorded->get_future().share();
  LaunchSpec s = spec;
  s.cancel = cancel.get();
  std::thread thread([this, s = std::move(s), started, go]() mutable {
    std::string id;
    bool announced = false;
    s.before_exec = [&id, &announced, started, go](pid_t pid) {
      const auto t = process_start_time(pid);
      id = std::to_string(pid) + ":" + std::to_string(t ? *t : 0);
      announced = true;
      started->set_value(id);
      if (!go.get()) throw Error::runtime("the attempt was not recorded");
    };
    AttemptEnd end;
    try {
      end.result = run_process(s);
    } catch (const std::exception& e) {
      // Before the child runs (not found, bad cwd, log not writable): start() rethrows it.
      if (!announced) {
        started->set_exception(std::current_exception());
        return;
      }
      if (!go.get()) return;  // start() threw what the owner record threw
      end.launch_error = e.what();
    }
    end.id = id;
    std::lock_guard<std::mutex> lock(m_mu);
    m_ended.push_back(std::move(end));
    m_cv.notify_all();
  });
  std::string id;
  try {
    id = id_of.get();
  } catch (...) {
    thread.join();
    throw;
  }
  try {
    if (spec.on_id) spec.on_id(id);
  } catch (...) {
    recorded->set_value(false);  // the child exits without running the command
    thread.join();
    throw;
  }
  recorded->set_value(true);
  m_running.emplace(id, Attempt{std::move(thread), std::move(cancel)});
  return id;
}

std::vector<AttemptEnd> LocalLauncher::wait(std::chrono::milliseconds max_wait) {
  std::deque<AttemptEnd> ended;
  {
    std::unique_lock<std::mutex> lock(m_mu);
    if (!m_running.empty()) m_cv.wait_for(lock, max_wait, [&] { return !m_ended.empty(); });
    ended.swap(m_ended);
  }
  std::vector<AttemptEnd> out;
  for (auto& e : ended) {
    auto it = m_running.find(e.id);
    if (it != m_running.end()) {
      it->second.thread.join();  // it has pushed its end: only returning is left
      m_running.erase(it);
    }
    out.push_back(std::move(e));
  }
  return out;
}

void LocalLauncher::cancel(const std::string& id, int sig) {
  auto it = m_running.find(id);
  if (it == m_running.end()) return;
  int expected = 0;
  it->second.cancel->compare_exchange_strong(expected, sig);
}

void LocalLauncher::reap_orphan(const std::string& id) {
  const auto parts = split(id, ':');
  if (parts.size() != 2) return;  // not one of ours; nothing to stop safely
  try {
    const long long pgid = std::stoll(parts[0]);
    const unsigned long long start = std::stoull(parts[1]);
    if (start != 0) kill_orphan_group(static_cast<pid_t>(pgid), start);
  } catch (const std::exception&) {
    // Malformed: the id names no process we could stop safely.
  }
}

std::optional<std::string> legacy_local_launch_id(const std::filesystem::path& pass_log) {
  std::ifstream owner(pass_log.string() + ".pgid");
  long long pgid = 0;
  unsigned long long start = 0;
  if (!(owner >> pgid >> start) || pgid <= 1 || start == 0) return std::nullopt;
  return std::to_string(pgid) + ":" + std::to_string(start);
}

// Registered in launchers.def as `local`.
std::unique_ptr<PassLauncher> make_local_launcher() { return std::make_unique<LocalLauncher>(); }

}  // namespace kprof::exec
