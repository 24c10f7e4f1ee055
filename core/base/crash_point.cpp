#include "core/base/crash_point.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kprof {

namespace {

struct Target {
  bool armed = false;
  int log_fd = -1;
  std::string name;
  long hits_to_crash = 1;
  bool tree = false;
};

const Target& target() {
  static const Target t = [] {
    Target out;
    if (const char* log = std::getenv("KPROF_CRASH_LOG"); log && *log)
      out.log_fd = ::open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const char* at = std::getenv("KPROF_CRASH_AT");
    if (!at || !*at) return out;
    out.armed = true;
    out.name = at;
    if (const auto colon = out.name.rfind(':'); colon != std::string::npos) {
      out.hits_to_crash = std::max(1L, std::atol(out.name.c_str() + colon + 1));
      out.name.resize(colon);
    }
    const char* tree = std::getenv("KPROF_CRASH_TREE");
    out.tree = tree && std::strcmp(tree, "1") == 0;
    return out;
  }();
  return t;
}

// Parent pid of every process, from /proc/<pid>/stat ("pid (comm) state ppid ...").
std::map<pid_t, pid_t> parents() {
  std::map<pid_t, pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atol(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');  // comm may hold spaces and parentheses
    if (close == std::string::npos || close + 4 > text.size()) continue;
    out[pid] = static_cast<pid_t>(std::atol(text.c_str() + close + 4));
  }
  ::closedir(d);
  return out;
}

// SIGKILL every descendant of this process. Stopped first (SIGSTOP) so none can fork a new child
// between the scan and the kill; repeated until a scan finds none.
void kill_descendants() {
  const pid_t self = ::getpid();
  for (int round = 0; round < 20; ++round) {
    const auto parent = parents();
    std::vector<pid_t> found;
    std::vector<pid_t> frontier = {self};
    while (!frontier.empty()) {
      const pid_t p = frontier.back();
      frontier.pop_back();
      for (const auto& [child, ppid] : parent) {
        if (ppid == p) {
          found.push_back(child);
          frontier.push_back(child);
        }
      }
    }
    if (found.empty()) return;
    for (pid_t p : found) ::kill(p, SIGSTOP);
    for (pid_t p : found) ::kill(p, SIGKILL);
  }
}

}  // namespace

void crash_point(const char* name) {
  const Target& t = target();
  if (t.log_fd >= 0) {
    // One write(2) per line with O_APPEND: lines from threads never interleave.
    const std::string line = std::string(name) + "\n";
    if (::write(t.log_fd, line.data(), line.size()) < 0) {
    }
  }
  if (!t.armed || t.name != name) return;
  static std::mutex mu;
  static std::map<std::string, long> hits;
  std::lock_guard<std::mutex> lock(mu);
  if (++hits[name] < t.hits_to_crash) return;
  if (t.tree) kill_descendants();
  ::kill(::getpid(), SIGKILL);
  ::pause();
}

}  // namespace kprof
