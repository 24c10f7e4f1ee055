// Internal to the double (tool.cpp, pass_runner.cpp): the launcher's process plumbing — signal
// forwarding, the application's child process and environment, timer and handler log lines, and
// the fault switches (ROCPROF_SIM_*) read from the environment.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/capture.hpp"
#include "core/sim/devices.hpp"

namespace kprof::sim::detail {

// The signal that reached the double (0: none) and the application it forwards signals to.
extern volatile sig_atomic_t g_signal;
extern volatile pid_t g_child;

void install_handlers();
uint64_t monotonic_ns();
std::string env(const char* name, const std::string& fallback = {});
std::optional<long long> env_int(const char* name);
std::string python_signal(int sig);
std::string python_list(const std::vector<std::string>& v);
bool handled_signal(int sig);
void handler_lines(pid_t pid, int sig, int children);
std::string timer_line(pid_t pid, const std::string& what, double secs);
void truncate_mid_row(const std::filesystem::path& p);
CsvQuoting csv_quoting_from_env();
void prepare_app_environment(const std::string& events, const Visibility& v);
std::string make_events_file();

struct Faults {
  std::optional<long long> crash_after, hang_after, exit_code;
  int crash_signal = SIGSEGV;
  bool truncate = false, write_nothing = false;
};

Faults read_faults();
// Forks a child that execs `argv` (execvp; argv[0] is looked up on PATH) and makes it g_child,
// with no window in which a forwarded signal is lost: the handled signals are blocked across
// fork(), the child restores their default action before it unblocks them and execs, and the
// parent sets g_child before it unblocks them. (Without this, a SIGTERM that reached the double
// between fork and exec was forwarded to a child still running the double's own handler, which
// swallowed it: the application then ran to its end. Seen as a 60 s `sleep 60` under load.)
pid_t fork_exec_child(const std::string& file, const std::vector<std::string>& argv);
pid_t spawn_app(const std::vector<std::string>& app);
int wait_child(pid_t pid);
void sleep_ms(int ms);
pid_t spare_pid();

}  // namespace kprof::sim::detail
