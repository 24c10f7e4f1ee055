#include "core/sim/tool_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/sim/format.hpp"
#include "core/sim/options.hpp"

namespace kprof::sim::detail {

volatile sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

namespace {

// Like rocprofv3's handler for SIGINT/SIGQUIT/SIGTERM: remember the signal and pass it on to the
// application, whose exit the main flow then waits for before finalizing the output.
void on_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

int signal_by_name(const std::string& n) {
  const std::string u = n.rfind("SIG", 0) == 0 ? n.substr(3) : n;
  if (u == "SEGV") return SIGSEGV;
  if (u == "ABRT") return SIGABRT;
  if (u == "TERM") return SIGTERM;
  if (u == "INT") return SIGINT;
  if (u == "QUIT") return SIGQUIT;
  if (u == "KILL") return SIGKILL;
  if (u == "BUS") return SIGBUS;
  throw CliFailure(1,
                   "rocprofv3-sim: unknown signal name '" + n + "' in ROCPROF_SIM_CRASH_SIGNAL\n");
}

}  // namespace

void install_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid must return EINTR
  for (int s : {SIGINT, SIGTERM, SIGQUIT}) sigaction(s, &sa, nullptr);
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::optional<long long> env_int(const char* name) {
  const std::string v = env(name);
  if (v.empty()) return std::nullopt;
  try {
    return std::stoll(v);
  } catch (const std::exception&) {
    throw CliFailure(1, std::string("rocprofv3-sim: ") + name + "='" + v + "' is not an integer\n");
  }
}

std::string python_signal(int sig) {
  const char* name = sig == SIGABRT   ? "SIGABRT"
                     : sig == SIGSEGV ? "SIGSEGV"
                     : sig == SIGTERM ? "SIGTERM"
                     : sig == SIGINT  ? "SIGINT"
                     : sig == SIGKILL ? "SIGKILL"
                     : sig == SIGQUIT ? "SIGQUIT"
                     : sig == SIGBUS  ? "SIGBUS"
                                      : "SIG?";
  return std::string("<Signals.") + name + ": " + std::to_string(sig) + ">";
}

std::string python_list(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const auto& s : v) q.push_back("'" + s + "'");
  return "[" + join(q, ", ") + "]";
}

// Signals rocprofv3 handles by finalizing its output (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp; ROCm/rocm-systems#1072);
// others (SIGSEGV, SIGKILL) end the process with nothing written.
bool handled_signal(int sig) {
  return sig == SIGINT || sig == SIGQUIT || sig == SIGABRT || sig == SIGTERM;
}

void handler_lines(pid_t pid, int sig, int children) {
  const std::string p = glog_prefix('W', uint64_t(pid), "tool.cpp:3094") +
                        "[PPID=" + std::to_string(getppid()) + "][PID=" + std::to_string(pid) +
                        "][TID=" + std::to_string(pid) + "][rocprofv3_error_signal_handler] ";
  std::cerr << p << "rocprofv3 caught signal " << sig << "...\n"
            << p << "rocprofv3 will wait for " << children << " children to exit\n"
            << p << "rocprofv3 finalizing after signal " << sig << "...\n";
}

std::string timer_line(pid_t pid, const std::string& what, double secs) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " :: %12.6f sec", secs);
  return glog_prefix('W', uint64_t(pid), "simple_timer.cpp:55") + "[rocprofv3] " + what + buf +
         "\n";
}

// Truncates a written CSV in the middle of a row, as a writer killed mid-flush leaves it.
void truncate_mid_row(const std::filesystem::path& p) {
  const auto size = std::filesystem::file_size(p);
  if (size < 4) return;
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return;
  std::string data(size, '\0');
  const size_t got = std::fread(data.data(), 1, size, f);
  std::fclose(f);
  data.resize(got);
  size_t cut = data.size() * 3 / 5;
  // Land inside a row: a few characters past a line start, never right after '\n'.
  const size_t nl = data.rfind('\n', cut);
  cut = (nl == std::string::npos ? 0 : nl) + 12;
  if (cut >= data.size()) cut = data.size() - 2;
  std::filesystem::resize_file(p, cut);
}

// ROCPROF_SIM_CSV_QUOTING: rocprofv3 (default), all, minimal (capture.hpp).
CsvQuoting csv_quoting_from_env() {
  const char* e = std::getenv("ROCPROF_SIM_CSV_QUOTING");
  const std::string v = e ? e : "";
  if (v.empty() || v == "rocprofv3") return CsvQuoting::rocprofv3;
  if (v == "all") return CsvQuoting::all;
  if (v == "minimal") return CsvQuoting::minimal;
  throw CliFailure(
      1, "rocprofv3-sim: ROCPROF_SIM_CSV_QUOTING='" + v + "' is not rocprofv3, all or minimal\n");
}

// The application's environment as the double will hand it over: the simulation stand-ins first
// on its library and module paths (as rocprofv3 puts its tool in LD_PRELOAD), the events file and
// the GPU list the stand-ins report against.
void prepare_app_environment(const std::string& events, const Visibility& v) {
  setenv("ROCPROF_SIM_EVENTS", events.c_str(), 1);
  std::string gpus;
  for (int g : v.gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
  setenv("ROCPROF_SIM_VISIBLE_GPUS", gpus.c_str(), 1);
  if (const auto dir = standins_dir()) {
    const auto prepend = [](const char* var, const std::filesystem::path& p) {
      const char* old = std::getenv(var);
      std::string value = p.string();
      if (old && *old) value += std::string(":") + old;
      setenv(var, value.c_str(), 1);
    };
    prepend("PYTHONPATH", *dir / "python");
    prepend("LD_LIBRARY_PATH", *dir / "lib");
  }
}

std::string make_events_file() {
  std::string path =
      (std::filesystem::temp_directory_path() / "rocprofv3-sim-events-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) throw Error::runtime("cannot create the events file " + path, "check TMPDIR");
  ::close(fd);
  return path;
}

Faults read_faults() {
  Faults f;
  f.crash_after = env_int("ROCPROF_SIM_CRASH_AFTER");
  f.hang_after = env_int("ROCPROF_SIM_HANG_AFTER");
  f.exit_code = env_int("ROCPROF_SIM_EXIT_CODE");
  if (f.crash_after) f.crash_signal = signal_by_name(env("ROCPROF_SIM_CRASH_SIGNAL", "SEGV"));
  f.truncate = env("ROCPROF_SIM_TRUNCATE") == "1";
  f.write_nothing = env("ROCPROF_SIM_WRITE_NOTHING") == "1";
  return f;
}

pid_t fork_exec_child(const std::string& file, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  sigset_t handled, before;
  sigemptyset(&handled);
  for (int s : {SIGINT, SIGTERM, SIGQUIT}) sigaddset(&handled, s);
  sigprocmask(SIG_BLOCK, &handled, &before);
  const pid_t pid = fork();
  if (pid == 0) {
    // Default actions first, then unblock: a signal forwarded meanwhile ends the child as it
    // would end the application (https://man7.org/linux/man-pages/man2/fork.2.html: the child
    // inherits the handlers and the signal mask; execve resets handled signals to default).
    for (int s : {SIGINT, SIGTERM, SIGQUIT}) signal(s, SIG_DFL);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    execvp(file.c_str(), argv.data());
    // Only the forked child gets here; it must not return into the parent's code.
    std::fprintf(stderr, "rocprofv3-sim: cannot execute '%s': %s\n", file.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  const int fork_errno = errno;
  if (pid > 0) g_child = pid;
  sigprocmask(SIG_SETMASK, &before, nullptr);  // a signal held meanwhile now reaches g_child
  if (pid < 0)
    throw Error::runtime(std::string("fork failed: ") + std::strerror(fork_errno), "retry");
  return pid;
}

pid_t spawn_app(const std::vector<std::string>& app) { return fork_exec_child(app.at(0), app); }

// Waits for `pid`, forwarding signals that reach us meanwhile (the handler already sent them).
int wait_child(pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, 0);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;
  }
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

// A real process id for the second profiled process of multi-process mode.
pid_t spare_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace kprof::sim::detail
