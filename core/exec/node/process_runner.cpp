// The one translation unit that includes Boost.Process (ARCHITECTURE.md). Boost.Process does the
// launch (PATH search, environment, cwd, reporting a failed exec back to the parent); waiting,
// timeouts and group kills are plain POSIX, because Boost 1.74's wait_for is unreliable and it
// knows nothing of process groups.
#include "core/exec/node/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/search_path.hpp>
#include <boost/process/start_dir.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace bp = boost::process;

namespace kprof::exec {
namespace {

std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free atomic");

extern "C" void on_interrupt_signal(int sig) {
  // Only a store: everything else happens in the waiting loops that poll the flag.
  int expected = 0;
  g_interrupt.compare_exchange_strong(expected, sig);
}

// Boost.Process creates its exec-error pipe and only then marks it close-on-exec; a fork in another
// thread in between would leak the pipe into that child and stall this launch until it exits.
// Launches are short, so serializing them costs nothing.
std::mutex g_launch_mutex;

// The gate of LaunchSpec::before_exec: the child writes its pid into `pid` and waits for one byte
// on `gate` before it execs; EOF there (kprof died or gave up) makes it exit without running the
// command. Each pipe's other end is close-on-exec in kprof and closed by the child.
struct Gate {
  int pid[2] = {-1, -1};
  int go[2] = {-1, -1};
};

// Runs in the child between fork and exec: only async-signal-safe calls.
struct ChildSetup : bp::extend::handler {
  int log_fd = -1;
  const Gate* gate = nullptr;
  template <class Executor>
  void on_exec_setup(Executor& /*exec*/) const {
    // Own process group, so a timeout or Ctrl-C can stop the whole tree (rocprofv3 → app → workers)
    // and a terminal's SIGINT reaches only kprof, which forwards it.
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (gate) wait_at_gate();
  }
  void wait_at_gate() const {
    ::close(gate->pid[0]);
    ::close(gate->go[1]);  // else our own copy would keep the gate open after kprof died
    const pid_t me = ::getpid();
    if (::write(gate->pid[1], &me, sizeof me) != static_cast<ssize_t>(sizeof me)) ::_exit(127);
    char go = 0;
    ssize_t n = 0;
    do {
      n = ::read(gate->go[0], &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);
  }
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// kprof's side of the gate, on a thread of its own while run_process's thread waits inside
// Boost.Process for the exec: reads the child's pid, calls before_exec, opens the gate. Any
// failure closes it instead; what before_exec threw is kept for run_process to rethrow.
void open_gate(Gate& gate, const std::function<void(pid_t)>& before_exec,
               std::exception_ptr& error) {
  pid_t pid = 0;
  ssize_t n = 0;
  do {
    n = ::read(gate.pid[0], &pid, sizeof pid);
  } while (n < 0 && errno == EINTR);
  close_fd(gate.pid[0]);
  if (n == static_cast<ssize_t>(sizeof pid)) {
    try {
      before_exec(pid);
      const char go = 1;
      if (::write(gate.go[1], &go, 1) != 1)
        error = std::make_exception_ptr(
            Error::runtime("cannot start the command: " + std::string(std::strerror(errno))));
    } catch (...) {
      error = std::current_exception();
    }
  }
  close_fd(gate.go[1]);
}

boost::filesystem::path find_executable(const std::string& name,
                                        const std::map<std::string, std::string>& env) {
  if (name.find('/') != std::string::npos) return boost::filesystem::path(name);
  // The runbook may set PATH for its workload; the lookup then follows it, as execvp would.
  auto it = env.find("PATH");
  if (it == env.end()) return bp::search_path(name);
  std::vector<boost::filesystem::path> dirs;
  for (const auto& d : split(it->second, ':')) dirs.emplace_back(d.empty() ? "." : d);
  return bp::search_path(name, dirs);
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGABRT:
      return "SIGABRT";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGPIPE:
      return "SIGPIPE";
    default:
      return "signal " + std::to_string(sig);
  }
}

std::string RunResult::describe() const {
  if (interrupted) return "interrupted (" + signal_name(interrupt_signal) + ")";
  if (timed_out) return "timed out after " + format_duration(duration);
  if (signal != 0)
    return "killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking call in the main thread should notice
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_interrupt.load(); }
void request_interrupt(int sig) {
  int expected = 0;
  g_interrupt.compare_exchange_strong(expected, sig);
}
void clear_interrupt() { g_interrupt.store(0); }

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) == 0) return true;
  return errno == EPERM;
}

std::string file_tail(const std::filesystem::path& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > static_cast<std::streamoff>(max_bytes) ? size - max_bytes : 0;
  in.seekg(start);
  std::string text(static_cast<size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (start > 0) {
    auto nl = text.find('\n');
    if (nl != std::string::npos) text.erase(0, nl + 1);
  }
  return text;
}

std::optional<unsigned long long> process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  const auto fields = split(trim(std::string_view(stat).substr(close + 1)), ' ');
  // fields[0] is field 3 (state); field 22 is fields[19].
  if (fields.size() < 20) return std::nullopt;
  try {
    return std::stoull(fields[19]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void kill_orphan_group(pid_t pgid, unsigned long long start_time) {
  if (pgid <= 1) return;
  const auto now = process_start_time(pgid);
  if (!now || *now != start_time) return;
  ::kill(-pgid, SIGKILL);
  for (int i = 0; i < 500; ++i) {
    const auto t = process_start_time(pgid);
    if (!t || *t != start_time) return;
    // A zombie whose parent (the dead kprof) is gone gets reaped by init; stop waiting on it.
    std::ifstream in("/proc/" + std::to_string(pgid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

namespace {

using steady = std::chrono::steady_clock;

// The program to start (found on the spec's PATH), refused before anything is opened when it or
// the working directory is missing.
boost::filesystem::path checked_executable(const LaunchSpec& spec,
                                           const std::vector<std::string>& argv) {
  const boost::filesystem::path exe = find_executable(argv[0], spec.env);
  if (exe.empty()) {
    throw Error::runtime("cannot find '" + argv[0] + "' on PATH",
                         "install it, or give its full path in the runbook");
  }
  if (!spec.cwd.empty() && !std::filesystem::is_directory(spec.cwd)) {
    throw Error::runtime("working directory '" + spec.cwd.string() + "' does not exist",
                         "fix workload.cwd in the runbook");
  }
  return exe;
}

// The child's stdout and stderr: the spec's log file, appended to, or /dev/null.
int open_log(const LaunchSpec& spec) {
  if (!spec.log_path.empty() && spec.log_path.has_parent_path()) {
    std::filesystem::create_directories(spec.log_path.parent_path());
  }
  const std::string log = spec.log_path.empty() ? std::string("/dev/null") : spec.log_path.string();
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw Error::runtime("cannot open log file '" + log + "': " + std::strerror(errno),
                         "check that the run directory is writable");
  }
  return log_fd;
}

// Starts the child in its own process group, behind the before_exec gate when the spec has one;
// closes `log_fd`. Returns the child's pid, detached: the caller reaps it.
pid_t launch(const LaunchSpec& spec, const boost::filesystem::path& exe,
             const std::vector<std::string>& argv, int log_fd) {
  bp::environment env = boost::this_process::environment();
  // Not env[k]: Boost 1.74's basic_environment_impl::find (boost/process/environment.hpp) compares
  // "KEY=" against every entry with std::equal without a length check and reads past entries
  // shorter than the key (AddressSanitizer: heap-buffer-overflow). set() checks the length.
  for (const auto& [k, v] : spec.env) env.set(k, v);
  ChildSetup setup;
  setup.log_fd = log_fd;
  const std::vector<std::string> args(argv.begin() + 1, argv.end());

  std::lock_guard<std::mutex> lock(g_launch_mutex);
  Gate gate;
  std::exception_ptr gate_error;
  std::thread gatekeeper;
  if (spec.before_exec) {
    if (::pipe2(gate.pid, O_CLOEXEC) != 0 || ::pipe2(gate.go, O_CLOEXEC) != 0) {
      const std::string why = std::strerror(errno);
      for (int* fd : {&gate.pid[0], &gate.pid[1], &gate.go[0], &gate.go[1]}) close_fd(*fd);
      ::close(log_fd);
      throw Error::runtime("cannot start '" + argv[0] + "': " + why);
    }
    setup.gate = &gate;
    gatekeeper = std::thread([&] { open_gate(gate, spec.before_exec, gate_error); });
  }
  std::error_code ec;
  bp::child child;
  if (spec.cwd.empty()) {
    child = bp::child(bp::exe = exe, bp::args = args, env, bp::std_in < bp::null, setup, ec);
  } else {
    child = bp::child(bp::exe = exe, bp::args = args, env, bp::std_in < bp::null,
                      bp::start_dir = spec.cwd.string(), setup, ec);
  }
  ::close(log_fd);
  // The child holds its own copies (or never forked): the gatekeeper now sees EOF if it died.
  close_fd(gate.pid[1]);
  close_fd(gate.go[0]);
  if (gatekeeper.joinable()) gatekeeper.join();
  if (ec) {
    throw Error::runtime("cannot start '" + argv[0] + "': " + ec.message(),
                         "check that it exists and is executable");
  }
  const pid_t pid = child.id();
  // We reap it ourselves with waitpid (below); the child object must not wait or terminate.
  child.detach();
  if (gate_error) {
    // The gate stayed shut: the child exits without running the command.
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::rethrow_exception(gate_error);
  }
  return pid;
}

// Waits for the child, passing on an interruption or cancellation, or SIGTERM at the timeout,
// then SIGKILL after the grace period. Returns its wait status (0 when someone else reaped it).
int wait_for_child(const LaunchSpec& spec, pid_t pid, steady::time_point started,
                   RunResult& result) {
  bool term_sent = false;
  bool kill_sent = false;
  steady::time_point term_at;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      // ECHILD: someone else reaped it; nothing to report but "gone".
      status = 0;
      break;
    }
    const auto now = steady::now();
    if (!term_sent) {
      int sig = interrupt_signal();
      if (sig == 0 && spec.cancel) sig = spec.cancel->load();
      if (sig != 0) {
        result.interrupted = true;
        result.interrupt_signal = sig;
        ::kill(-pid, sig);  // rocprofv3 handles SIGINT/SIGTERM and writes what it has
        term_sent = true;
        term_at = now;
      } else if (spec.timeout.count() > 0 && now - started >= spec.timeout) {
        result.timed_out = true;
        ::kill(-pid, SIGTERM);
        term_sent = true;
        term_at = now;
      }
    } else if (!kill_sent && now - term_at >= spec.kill_grace) {
      ::kill(-pid, SIGKILL);
      kill_sent = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Grandchildren that ignored SIGTERM or outlived the leader must not keep running after a
  // timeout or an interruption.
  if (term_sent) ::kill(-pid, SIGKILL);
  return status;
}

}  // namespace

RunResult run_process(const LaunchSpec& spec) {
  if (spec.argv.empty())
    throw Error::runtime("empty command", "the runbook's workload.command needs a program");

  std::vector<std::string> argv = spec.argv;
  if (spec.shell) argv = {"/bin/sh", "-c", join(spec.argv, " ")};
  const boost::filesystem::path exe = checked_executable(spec, argv);
  const int log_fd = open_log(spec);

  RunResult result;
  const auto started = steady::now();
  result.pid = launch(spec, exe, argv, log_fd);
  if (spec.on_started) spec.on_started(result.pid);

  const int status = wait_for_child(spec, result.pid, started, result);
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - started);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  if (!spec.log_path.empty()) result.log_tail = file_tail(spec.log_path, spec.log_tail_bytes);
  return result;
}

}  // namespace kprof::exec
