#include "core/sim/tool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/hw/target.hpp"
#include "core/sim/avail.hpp"
#include "core/sim/capture.hpp"
#include "core/sim/counters.hpp"
#include "core/sim/devices.hpp"
#include "core/sim/events.hpp"
#include "core/sim/format.hpp"
#include "core/sim/options.hpp"
#include "core/sim/version.hpp"

extern char** environ;

namespace kprof::sim {

namespace {

volatile sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

// Like rocprofv3's handler for SIGINT/SIGQUIT/SIGTERM: remember the signal and pass it on to the
// application, whose exit the main flow then waits for before finalizing the output.
void on_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

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

std::string env(const char* name, const std::string& fallback = {}) {
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

struct PassContext {
  const Model* model;  // as the application sees it (its visible GPUs); nullptr: HIP sees none
  const hw::Target* target;
  JobOptions job;
  std::string pass_dir;  // "" or "pass_N"
  uint64_t seed;
  bool counter_pass;
  int layout;
  SimVersion version;
  Visibility visibility;
  CsvQuoting quoting = CsvQuoting::rocprofv3;
};

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

struct Faults {
  std::optional<long long> crash_after, hang_after, exit_code;
  int crash_signal = SIGSEGV;
  bool truncate = false, write_nothing = false;
};

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

pid_t spawn_app(const std::vector<std::string>& app) {
  std::vector<char*> argv;
  for (const auto& a : app) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error::runtime(std::string("fork failed: ") + std::strerror(errno), "retry");
  if (pid == 0) {
    execvp(argv[0], argv.data());
    // Only the forked child gets here; it must not return into the parent's code.
    std::fprintf(stderr, "rocprofv3-sim: cannot execute '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

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

class PassRunner {
 public:
  explicit PassRunner(PassContext ctx) : m_ctx(std::move(ctx)) {}

  Outcome run(const std::vector<std::string>& app) {
    const JobOptions& job = m_ctx.job;
    const Faults faults = read_faults();
    CounterRequest req;
    std::vector<CounterRequest> group_reqs;
    if (m_ctx.counter_pass && !job.pmc_groups.empty()) {
      // One profile per group, all built together at the first counted dispatch
      // (tool.cpp, generate_agent_profiles): one group over the hardware limit is error 38.
      std::vector<std::string> all;
      for (const auto& g : job.pmc_groups) {
        group_reqs.push_back(resolve_counters(*m_ctx.target, g));
        all.insert(all.end(), g.begin(), g.end());
      }
      req = resolve_counters(*m_ctx.target, split_counters(all));
      // Each group is a profile of its own: the job fits when every group does, whatever the
      // union of the groups needs (exceeding one pass is what rotation is for).
      req.occupancy = group_reqs.front().occupancy;
      for (const auto& g : group_reqs)
        if (!g.occupancy.fits()) {
          req.occupancy = g.occupancy;
          break;
        }
    } else if (m_ctx.counter_pass) {
      req = resolve_counters(*m_ctx.target, job.pmc);
    }
    m_groups = group_reqs;
    std::filesystem::path dir =
        job.output_directory ? *job.output_directory : std::filesystem::current_path().string();
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir))
      throw CliFailure(1, "Fatal error: ROCPROFILER_OUTPUT_PATH (" + dir.string() +
                              ") already exists and is not a directory\n");

    const uint64_t t0 = monotonic_ns();
    install_handlers();
    std::cerr << timer_line(getpid(), "tool initialization", double(monotonic_ns() - t0) * 1e-9);
    m_events = make_events_file();
    prepare_app_environment(m_events, m_ctx.visibility);
    const pid_t pid = spawn_app(app);
    g_child = pid;
    if (g_signal) kill(pid, g_signal);  // arrived before the child existed
    const uint64_t clock_base = env("ROCPROF_SIM_CLOCK_BASE_NS").empty()
                                    ? t0
                                    : static_cast<uint64_t>(*env_int("ROCPROF_SIM_CLOCK_BASE_NS"));

    // The profiled process(es), known once the application ended (captures()).
    const auto captures = [&] { return this->captures(pid, app, clock_base, req); };

    if (!req.missing.empty() && m_ctx.model) {
      const Agent& g = m_ctx.model->agents[m_ctx.model->gpu];
      std::cerr << glog_prefix('W', uint64_t(pid), "tool.cpp:1042")
                << "Unable to find all counters for agent " << g.node_id << " (gpu-" << g.type_index
                << ", " << m_ctx.model->arch << ") in [" << join(job.pmc, ", ") << "]. Found: ["
                << join(req.found, ", ") << "]. Missing: [" << join(req.missing, ", ") << "]\n";
    }

    // Error 38: the profile is built lazily at the first dispatch that is to be counted.
    if (m_ctx.model && m_ctx.counter_pass && !req.found.empty() && !req.occupancy.fits()) {
      kill(pid, SIGKILL);
      wait_child(pid);
      g_child = 0;
      auto caps = captures();
      for (auto& c : caps) cut_before_first_collected(c);
      std::cerr << glog_prefix('F', uint64_t(pid), "tool.cpp:1146") << " :: [tool.cpp:1006]\n"
                << "\trocprofiler_create_counter_config( agent_id, counters_v.data(), "
                   "counters_v.size(), &profile_v)\n\n"
                << "Could not construct profile cfg failed with error code 38: Request exceeds the "
                   "capabilities of the hardware to collect\n"
                << "*** Check failure stack trace: ***\n";
      handler_lines(pid, SIGABRT, 0);
      finalize(caps, faults, /*counters=*/false);
      return {0, SIGABRT};
    }

    if (faults.crash_after) {
      kill(pid, SIGKILL);  // the app "crashes": it is gone, whatever the signal reported
      wait_child(pid);
      g_child = 0;
      auto caps = captures();
      for (auto& c : caps) keep_first(c, static_cast<uint64_t>(*faults.crash_after));
      if (handled_signal(faults.crash_signal)) {
        handler_lines(pid, faults.crash_signal, 0);
        finalize(caps, faults, true);
      }
      return {0, faults.crash_signal};
    }

    int status = wait_child(pid);
    g_child = 0;
    auto caps = captures();
    if (!m_ctx.model && !m_app_reported && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      // A HIP application with no device fails at its first HIP call; the modelled one does too.
      std::cerr << "rocprofv3-sim: the modelled application found no GPU: hipErrorNoDevice (no "
                   "ROCm-capable device is detected; "
                << m_ctx.visibility.why << ")\n";
      return {1, 0};
    }
    if (faults.hang_after) {
      // The workload hangs at dispatch N+1: nothing more completes; wait to be told to stop.
      for (auto& c : caps) keep_first(c, static_cast<uint64_t>(*faults.hang_after));
      while (!g_signal) sleep_ms(50);
      handler_lines(pid, g_signal, 0);
      finalize(caps, faults, true);
      return {0, g_signal};
    }
    const uint64_t t1 = monotonic_ns();
    std::cerr << timer_line(pid, "'" + join(app, " ") + "'", double(t1 - t0) * 1e-9);
    if (g_signal) {
      // Interrupted: only dispatches that completed before the signal are in the output.
      const uint64_t elapsed = t1 - t0;
      for (auto& c : caps) keep_until(c, elapsed);
      handler_lines(pid, g_signal, 0);
      finalize(caps, faults, true);
      return {0, g_signal};
    }
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      if (handled_signal(sig)) {
        handler_lines(pid, sig, 0);
        finalize(caps, faults, true);
      }
      return {0, sig};
    }
    finalize(caps, faults, true);
    std::cerr << timer_line(pid, "tool finalization", double(monotonic_ns() - t1) * 1e-9);
    if (faults.exit_code) return {static_cast<int>(*faults.exit_code), 0};
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 1, 0};
  }

 private:
  // Who ran the model's dispatches, and whether each part of them fell inside a selected region.
  //  - The application reported through the stand-ins (events.hpp): the process that ran the
  //    vLLM work makes the model's dispatches; its warm-up (the model's `region: outside` part)
  //    maps to its first work, the measured part to its last; each part is inside the region only
  //    if that process had called roctxProfilerResume itself.
  //  - It did not (a plain program such as `true`): it is taken to bracket the model's region
  //    itself, in its own process (or, with ROCPROF_SIM_PROCESSES=2, in a second one).
  std::vector<ProcessCapture> captures(pid_t pid, const std::vector<std::string>& app,
                                       uint64_t clock_base, const CounterRequest& req) {
    std::vector<ProcessCapture> caps;
    const AppEvents ev = read_app_events(m_events);
    std::error_code ec;
    std::filesystem::remove(m_events, ec);
    m_app_reported = ev.any;
    if (!m_ctx.model) return caps;
    if (ev.any) {
      if (ev.work.empty()) return caps;  // no model work ran (it failed before, or never asked)
      const WorkEvent& measured = ev.work.back();
      const bool outside = ev.work.size() > 1 ? ev.work.front().region_active : false;
      // The first request is the warm-up; every later one of the same process inside the region
      // repeats the measured request (the workload script's --repeat).
      m_region_repeats = 1;
      if (ev.work.size() > 2) {
        int n = 0;
        for (size_t i = 1; i < ev.work.size(); ++i)
          if (ev.work[i].pid == measured.pid && ev.work[i].region_active) ++n;
        m_region_repeats = std::max(1, n);
      }
      // In-process (VLLM_ENABLE_V1_MULTIPROCESSING=0) the work ran in the application itself,
      // whose parent is the double; otherwise in a child of the application (EngineCore).
      const pid_t parent = measured.pid == pid ? getpid() : pid;
      // The requests' lengths as the application asked for them: the warm-up's (the first
      // request, when there are more) and the measured one's decode steps follow them.
      const int warmup_tokens = ev.work.size() > 1 ? ev.work.front().tokens : 0;
      // The records point into the plan: it lives as long as the tool.
      m_token_plans.push_back(
          with_output_tokens(m_ctx.model->dispatches, warmup_tokens, measured.tokens));
      caps.push_back(capture(measured.pid, parent, app, clock_base, m_token_plans.back(), req, 0,
                             outside, measured.region_active));
      return caps;
    }
    const bool multi = env("ROCPROF_SIM_PROCESSES") == "2";
    caps.push_back(capture(pid, getpid(), app, clock_base,
                           multi ? m_ctx.model->parent_dispatches : m_ctx.model->dispatches, req, 0,
                           false, true));
    if (multi) {
      const pid_t worker = spare_pid();
      caps.push_back(capture(worker, pid, app, clock_base + 1500000000ULL, m_ctx.model->dispatches,
                             req, 1, false, true));
    }
    return caps;
  }

  ProcessCapture capture(pid_t pid, pid_t ppid, const std::vector<std::string>& app,
                         uint64_t clock_base, const std::vector<PlannedDispatch>& plan,
                         const CounterRequest& req, int process_index, bool active_outside,
                         bool active_inside) {
    ProcessCapture c;
    c.pid = pid;
    c.ppid = ppid;
    c.tid = uint64_t(pid);
    c.command = app;
    c.model = m_ctx.model;
    c.start_ns = clock_base;
    StreamSettings st;
    st.seed = m_ctx.seed ^ (0x51ed27ULL * uint64_t(process_index + 1));
    st.clock_base_ns = clock_base;
    st.counter_pass = m_ctx.counter_pass && !req.found.empty();
    st.selected_regions = m_ctx.job.selected_regions;
    st.region_active_outside = active_outside;
    st.region_active_inside = active_inside;
    if (st.selected_regions && !m_ctx.version.regions_pause_all_contexts()) {
      // ROCm 7.0's tool (version.hpp): counter collection is never paused, and the tracing
      // context only follows the markers when --marker-trace registered the callback.
      if (m_ctx.counter_pass) {
        st.selected_regions = false;
      } else if (!m_ctx.job.marker_trace) {
        st.region_active_outside = st.region_active_inside = false;
      }
    }
    const std::string perturb = env("ROCPROF_SIM_PERTURB", "counters");
    st.perturb = perturb == "all" || (perturb == "counters" && m_ctx.counter_pass);
    st.include_regex = m_ctx.job.include_regex;
    st.exclude_regex = m_ctx.job.exclude_regex;
    st.iteration_range = m_ctx.job.iteration_range;
    st.region_repeats = m_region_repeats;
    if (m_groups.size() > 1) {
      st.groups = m_groups.size();
      st.group_interval = m_ctx.job.pmc_group_interval;
    }
    if (!plan.empty()) c.stream = make_stream(*m_ctx.model, plan, st);
    c.end_ns = c.stream.records.empty() ? clock_base : c.stream.records.back().end + 1000;
    for (const auto& r : c.stream.records) c.end_ns = std::max(c.end_ns, r.end + 1000);
    c.counters = req.occupancy.fits() ? req.found : std::vector<std::string>{};
    if (m_groups.size() > 1 && !c.counters.empty())
      for (const auto& g : m_groups) c.groups.push_back(g.found);
    return c;
  }

  static void keep_first(ProcessCapture& c, uint64_t n) {
    std::erase_if(c.stream.records, [&](const DispatchRecord& r) { return r.dispatch_id > n; });
  }
  static void keep_until(ProcessCapture& c, uint64_t elapsed_ns) {
    const uint64_t limit = c.start_ns + elapsed_ns;
    std::erase_if(c.stream.records, [&](const DispatchRecord& r) { return r.end > limit; });
  }
  static void cut_before_first_collected(ProcessCapture& c) {
    uint64_t first = UINT64_MAX;
    for (const auto& r : c.stream.records)
      if (r.collect) first = std::min(first, r.dispatch_id);
    keep_first(c, first == UINT64_MAX ? UINT64_MAX : first - 1);
  }

  void finalize(std::vector<ProcessCapture>& caps, const Faults& faults, bool counters) {
    if (faults.write_nothing) return;
    const uint64_t t = monotonic_ns();
    std::optional<CounterModel> cm;
    if (counters && m_ctx.counter_pass && m_ctx.model)
      cm.emplace(*m_ctx.target, *m_ctx.model, m_ctx.seed);
    for (auto& c : caps) {
      if (!counters) c.counters.clear();
      c.counter_model = cm ? &*cm : nullptr;
      OutputSettings out;
      std::filesystem::path dir =
          m_ctx.job.output_directory
              ? expand_placeholders(*m_ctx.job.output_directory, c.pid, c.ppid)
              : std::filesystem::current_path().string();
      if (!m_ctx.pass_dir.empty()) dir /= m_ctx.pass_dir;
      out.prefix = dir / expand_placeholders(m_ctx.job.output_file.value_or("%hostname%/%pid%"),
                                             c.pid, c.ppid);
      out.kernel_trace = m_ctx.job.kernel_trace;
      out.stats = m_ctx.job.stats;
      out.truncate_names = m_ctx.job.truncate_kernels;
      out.agent_index = m_ctx.job.agent_index;
      out.layout = m_ctx.layout;
      const auto has = [&](const char* f) {
        return std::find(m_ctx.job.output_format.begin(), m_ctx.job.output_format.end(), f) !=
               m_ctx.job.output_format.end();
      };
      for (const char* f : {"json", "pftrace", "otf2"})
        if (has(f) && &c == &caps.front())
          std::cerr << "rocprofv3-sim: output format '" << f
                    << "' is not simulated; nothing is written for it\n";
      out.csv = has("csv") || m_ctx.layout == 6;
      out.rocpd = has("rocpd") && m_ctx.layout != 6;
      std::vector<std::filesystem::path> files;
      if (out.csv) {
        files = write_csv(c, out);
        for (const auto& f : files) requote_csv(f, m_ctx.quoting);
      }
      if (out.rocpd) {
        const auto db = write_rocpd(c, out);
        files.insert(files.end(), db.begin(), db.end());
      }
      if (faults.truncate) {
        for (const char* name : {"_kernel_trace.csv", "_counter_collection.csv"}) {
          std::filesystem::path p = out.prefix;
          p += name;
          if (std::filesystem::exists(p)) {
            truncate_mid_row(p);
            break;
          }
        }
      }
    }
    std::cerr << timer_line(caps.empty() ? getpid() : caps.front().pid, "output generation",
                            double(monotonic_ns() - t) * 1e-9);
  }

  PassContext m_ctx;
  std::vector<CounterRequest> m_groups;  // pmc_groups, resolved (empty: one counter set)
  std::deque<std::vector<PlannedDispatch>> m_token_plans;  // the requests' lengths applied
  int m_region_repeats = 1;     // measured requests the application repeated
  std::string m_events;         // the events file the stand-ins append to
  bool m_app_reported = false;  // the application reported through the stand-ins
};

std::string version_text(const SimVersion& v) {
  const std::pair<const char*, std::string> rows[] = {
      {"version", v.sdk_text()},
      {"git_revision", "rocprofv3-sim (simulated, not ROCm)"},
      {"library_arch", "x86_64-linux-gnu"},
      {"system_name", "Linux"},
      {"system_processor", "x86_64"},
      {"system_version", "simulated"},
      {"compiler_id", "GNU"},
      {"compiler_version", "12"},
      {"rocm_version", v.rocm},
  };
  std::string out;
  for (const auto& [k, value] : rows) {
    std::string key(k);
    out += "    " + std::string(16 - std::min<size_t>(16, key.size()), ' ') + key + ": " + value +
           "\n";
  }
  return out;
}

uint64_t pass_seed(uint64_t seed, const JobOptions& job, size_t index) {
  std::string groups;
  for (const auto& g : job.pmc_groups) groups += "|" + join(g, ",");
  return seed * 0x9e3779b97f4a7c15ULL ^
         std::hash<std::string>{}(join(job.pmc, ",") + groups + "#" + std::to_string(index));
}

}  // namespace

Outcome run_tool(const std::vector<std::string>& args) {
  try {
    const Options o = parse_options(args);
    if (o.help) {
      std::cout << help_text();
      return {0, 0};
    }
    const SimVersion version = sim_version_from_env();
    if (o.version) {
      if (!version.has_version_option())
        throw CliFailure(2,
                         usage_line() + "\nrocprofv3: error: unrecognized arguments: --version\n");
      std::cout << version_text(version);
      return {0, 0};
    }
    const Model model = load_model_named(env("ROCPROF_SIM_MODEL", "qwen3-30b-a3b-mi300x"));
    const hw::Target target = hw::Target::load_arch(model.arch);
    if (o.list_avail) {
      std::cerr << "Warning: No tracing options were enabled.\n";
      std::cout << list_avail_text(model, target);
      return {0, 0};
    }
    if (o.app.empty()) throw CliFailure(1, "Fatal error: No application provided\n");
    const int layout = env("ROCPROF_SIM_LAYOUT", "7") == "6" ? 6 : 7;
    const uint64_t seed = static_cast<uint64_t>(env_int("ROCPROF_SIM_SEED").value_or(0));

    std::vector<JobOptions> jobs;
    if (o.input_file) {
      // CLI settings apply to every job; a key set differently in both is a conflict (load_jobs).
      jobs = load_jobs(*o.input_file, o.cli);
    } else {
      jobs.push_back(o.cli);
    }
    const auto pass_dir = [&](size_t i) -> std::string {
      const bool has_pmc = jobs[i].pmc_given;
      if (o.input_file && (has_pmc || jobs.size() >= 2)) return "pass_" + std::to_string(i + 1);
      return "";
    };
    const auto check_tracing = [](const JobOptions& j) {
      if (!j.kernel_trace && j.pmc.empty() && j.pmc_groups.empty()) {
        if (j.stats)
          throw CliFailure(1, "Fatal error: No tracing options were enabled for --stats option.\n");
        std::cerr << "Warning: No tracing options were enabled.\n";
      }
    };
    for (auto& j : jobs) {
      const bool given = std::find(j.explicit_keys.begin(), j.explicit_keys.end(),
                                   "output_format") != j.explicit_keys.end();
      if (!version.has_rocpd()) {
        // Before ROCm 7.0: csv is the default, and rocpd is not a choice.
        if (!given) j.output_format = {"csv"};
        for (const auto& f : j.output_format)
          if (f == "rocpd")
            throw CliFailure(2, usage_line() +
                                    "\nrocprofv3: error: argument -f/--output-format: invalid "
                                    "choice: 'rocpd' (choose from 'csv', 'json', 'pftrace', "
                                    "'otf2')\n");
      }
    }
    // The GPUs the application sees (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES).
    std::map<std::string, std::string> app_env;
    for (char** e = environ; e && *e; ++e) {
      const std::string kv(*e);
      const auto eq = kv.find('=');
      if (eq != std::string::npos) app_env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    int gpu_count = 0;
    std::vector<std::string> uuids;
    for (const auto& a : model.agents) {
      if (!a.gpu) continue;
      ++gpu_count;
      auto it = a.fields.find("Uuid");
      uuids.push_back(it == a.fields.end() ? std::string() : it->second);
    }
    const Visibility visibility = visible_gpus(app_env, gpu_count, uuids);
    const std::optional<Model> seen = model_for_visibility(model, visibility, app_env);

    const auto run_job = [&](size_t i) {
      JobOptions j = jobs[i];
      // Before ROCm 7.0 the launcher merges unknown job keys silently: no rotation, no counters.
      if (!version.has_pmc_groups()) j.pmc_groups.clear();
      check_tracing(j);
      PassContext ctx{seen ? &*seen : nullptr,
                      &target,
                      j,
                      pass_dir(i),
                      pass_seed(seed, j, i),
                      j.pmc_given || !j.pmc_groups.empty(),
                      layout,
                      version,
                      visibility,
                      csv_quoting_from_env()};
      return PassRunner(ctx).run(o.app);
    };

    if (const auto internal = env_int("ROCPROF_SIM_INTERNAL_JOB")) {
      const size_t i = static_cast<size_t>(*internal);
      if (i >= jobs.size()) throw CliFailure(1, "rocprofv3-sim: internal job index out of range\n");
      return run_job(i);
    }
    if (jobs.size() == 1) return run_job(0);

    // Application replay: each job is a full run of the application in its own process, run one
    // after the other; the first failing pass stops the run (rocprofv3.py, subprocess.check_call).
    install_handlers();
    for (size_t i = 0; i < jobs.size(); ++i) {
      const pid_t pid = fork();
      if (pid < 0) throw Error::runtime("fork failed", "retry");
      if (pid == 0) {
        // Re-run this executable for one job, as the launcher re-runs the app per pass.
        setenv("ROCPROF_SIM_INTERNAL_JOB", std::to_string(i).c_str(), 1);
        std::vector<char*> argv;
        const std::string self = "/proc/self/exe";
        argv.push_back(const_cast<char*>("rocprofv3"));
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(self.c_str(), argv.data());
        _exit(127);
      }
      g_child = pid;
      const int status = wait_child(pid);
      g_child = 0;
      if (WIFSIGNALED(status)) {
        std::cerr << "Fatal error: Command '" << python_list(o.app) << "' died with "
                  << python_signal(WTERMSIG(status)) << ".\n";
        return {1, 0};
      }
      if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        std::cerr << "Fatal error: Command '" << python_list(o.app)
                  << "' returned non-zero exit status " << WEXITSTATUS(status) << ".\n";
        return {1, 0};
      }
      if (g_signal) return {0, g_signal};
    }
    return {0, 0};
  } catch (const CliFailure& f) {
    std::cerr << f.text();
    return {f.exit_code(), 0};
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "rocprofv3-sim: " << d.line() << "\n";
    return {1, 0};
  }
}

}  // namespace kprof::sim
