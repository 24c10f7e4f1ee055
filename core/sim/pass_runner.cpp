#include "core/sim/pass_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <iostream>
#include <optional>

#include "core/base/text.hpp"
#include "core/sim/counters.hpp"
#include "core/sim/events.hpp"
#include "core/sim/format.hpp"
#include "core/sim/tool_process.hpp"

namespace kprof::sim::detail {

namespace {

// Which tensor-parallel worker a capture is (RankSlot{} for a process that is none).
struct RankSlot {
  int rank = -1;  // -1: not a tensor-parallel worker
  int size = 1;
  int device = 0;  // HIP device index
};

class PassRunner {
 public:
  explicit PassRunner(PassContext ctx) : m_ctx(std::move(ctx)) {}

  Outcome run(const std::vector<std::string>& app) {
    const Faults faults = read_faults();
    const CounterRequest req = resolve_request();
    check_output_directory();

    const uint64_t t0 = monotonic_ns();
    install_handlers();
    std::cerr << timer_line(getpid(), "tool initialization", double(monotonic_ns() - t0) * 1e-9);
    m_events = make_events_file();
    prepare_app_environment(m_events, m_ctx.visibility);
    const pid_t pid = spawn_app(app);   // g_child from here on
    if (g_signal) kill(pid, g_signal);  // arrived before the child existed
    const uint64_t clock_base = env("ROCPROF_SIM_CLOCK_BASE_NS").empty()
                                    ? t0
                                    : static_cast<uint64_t>(*env_int("ROCPROF_SIM_CLOCK_BASE_NS"));

    // The profiled process(es), known once the application ended (captures()).
    const auto captures = [&] { return this->captures(pid, app, clock_base, req); };

    if (!req.missing.empty() && m_ctx.model) warn_missing_counters(pid, req);

    // Error 38: the profile is built lazily at the first dispatch that is to be counted.
    if (m_ctx.model && m_ctx.counter_pass && !req.found.empty() && !req.occupancy.fits()) {
      kill_app(pid);
      return abort_on_error_38(pid, captures(), faults);
    }

    if (faults.crash_after) {
      kill_app(pid);  // the app "crashes": it is gone, whatever the signal reported
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
    return after_app_ended(pid, status, captures(), faults, app, t0);
  }

 private:
  // The counters the pass collects; with pmc_groups, also each group's (m_groups).
  CounterRequest resolve_request() {
    const JobOptions& job = m_ctx.job;
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
    return req;
  }

  void check_output_directory() const {
    const JobOptions& job = m_ctx.job;
    std::filesystem::path dir =
        job.output_directory ? *job.output_directory : std::filesystem::current_path().string();
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir))
      throw CliFailure(1, "Fatal error: ROCPROFILER_OUTPUT_PATH (" + dir.string() +
                              ") already exists and is not a directory\n");
  }

  void warn_missing_counters(pid_t pid, const CounterRequest& req) const {
    const Agent& g = m_ctx.model->agents[m_ctx.model->gpu];
    std::cerr << glog_prefix('W', uint64_t(pid), "tool.cpp:1042")
              << "Unable to find all counters for agent " << g.node_id << " (gpu-" << g.type_index
              << ", " << m_ctx.model->arch << ") in [" << join(m_ctx.job.pmc, ", ") << "]. Found: ["
              << join(req.found, ", ") << "]. Missing: [" << join(req.missing, ", ") << "]\n";
  }

  static void kill_app(pid_t pid) {
    kill(pid, SIGKILL);
    wait_child(pid);
    g_child = 0;
  }

  // A group over the hardware limit: the tool aborts at the first dispatch it was to count.
  Outcome abort_on_error_38(pid_t pid, std::vector<ProcessCapture> caps, const Faults& faults) {
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

  // The application ended with `status` (or hangs by request): the output and the exit status.
  Outcome after_app_ended(pid_t pid, int status, std::vector<ProcessCapture> caps,
                          const Faults& faults, const std::vector<std::string>& app, uint64_t t0) {
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
      if (!ev.ranks.empty() && ev.ranks.front().size > 1)
        return rank_captures(ev, app, clock_base, req);
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
    if (m_ctx.model->ranks.count > 1 && env("ROCPROF_SIM_PROCESSES", "1") != "1")
      return simulated_ranks(pid, app, clock_base, req);
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

  // Tensor parallelism (events.hpp `rank` lines): every worker that ran model work is one
  // profiled process on its own GPU, with its own region state and output files, as rocprofv3's
  // tool runs in each process and writes one output per process (ROCm/rocm-systems
  // projects/rocprofiler-sdk/source/docs/how-to/using-rocprofv3.rst, the %pid% default of -o).
  std::vector<ProcessCapture> rank_captures(const AppEvents& ev,
                                            const std::vector<std::string>& app,
                                            uint64_t clock_base, const CounterRequest& req) {
    std::vector<ProcessCapture> caps;
    std::vector<RankEvent> ranks = ev.ranks;
    std::sort(ranks.begin(), ranks.end(),
              [](const RankEvent& a, const RankEvent& b) { return a.rank < b.rank; });
    for (const RankEvent& r : ranks) {
      std::vector<const WorkEvent*> work;
      for (const auto& w : ev.work)
        if (w.pid == r.pid) work.push_back(&w);
      if (work.empty() || rank_died(r.rank, r.pid)) continue;
      const WorkEvent& measured = *work.back();
      // As for one process: the first request is the warm-up, later ones inside the region
      // repeat the measured one.
      m_region_repeats = 1;
      if (work.size() > 2) {
        int n = 0;
        for (size_t i = 1; i < work.size(); ++i) n += work[i]->region_active ? 1 : 0;
        m_region_repeats = std::max(1, n);
      }
      const bool outside = work.size() > 1 && work.front()->region_active;
      m_token_plans.push_back(with_output_tokens(
          m_ctx.model->dispatches, work.size() > 1 ? work.front()->tokens : 0, measured.tokens));
      caps.push_back(capture(r.pid, r.ppid, app, clock_base, m_token_plans.back(), req, 0, outside,
                             measured.region_active, RankSlot{r.rank, r.size, r.device}));
    }
    return caps;
  }

  // Without the stand-ins, ROCPROF_SIM_PROCESSES=N under a model with `ranks:`: N worker
  // processes, children of the application, each bracketing the region itself.
  std::vector<ProcessCapture> simulated_ranks(pid_t pid, const std::vector<std::string>& app,
                                              uint64_t clock_base, const CounterRequest& req) {
    const int n = static_cast<int>(*env_int("ROCPROF_SIM_PROCESSES"));
    if (n < 1 || static_cast<size_t>(n) > m_ctx.model->hip_devices.size())
      throw CliFailure(1, "rocprofv3-sim: ROCPROF_SIM_PROCESSES=" + std::to_string(n) +
                              " ranks, but HIP shows " +
                              std::to_string(m_ctx.model->hip_devices.size()) + " GPU(s) (" +
                              m_ctx.visibility.why + ")\n");
    std::vector<ProcessCapture> caps;
    for (int r = 0; r < n; ++r) {
      const pid_t worker = spare_pid();
      if (rank_died(r, worker)) continue;
      caps.push_back(capture(worker, pid, app, clock_base, m_ctx.model->dispatches, req, 0, false,
                             true, RankSlot{r, n, r}));
    }
    return caps;
  }

  // ROCPROF_SIM_RANK_DIES=R: rank R's process is killed (SIGKILL) during the pass; the tool in
  // that process never reaches its finalization, so nothing of it is written.
  static bool rank_died(int rank, pid_t pid) {
    const auto dies = env_int("ROCPROF_SIM_RANK_DIES");
    if (!dies || *dies != rank) return false;
    std::cerr << "rocprofv3-sim: rank " << rank << " (pid " << pid
              << ") was killed by SIGKILL during the pass: its tool never finalized, no output\n";
    return true;
  }

  ProcessCapture capture(pid_t pid, pid_t ppid, const std::vector<std::string>& app,
                         uint64_t clock_base, const std::vector<PlannedDispatch>& plan,
                         const CounterRequest& req, int process_index, bool active_outside,
                         bool active_inside, RankSlot rank = {}) {
    ProcessCapture c;
    c.pid = pid;
    c.ppid = ppid;
    c.tid = uint64_t(pid);
    c.command = app;
    c.model = m_ctx.model;
    c.start_ns = clock_base;
    StreamSettings st;
    if (rank.rank >= 0) {
      // Each rank on its own GPU agent; the same seed for all ranks, so their compute takes the
      // same time and the arrival skew at every collective is the injected one (stream.hpp).
      const auto& devices = m_ctx.model->hip_devices;
      if (static_cast<size_t>(rank.device) < devices.size()) {
        Model m = *m_ctx.model;
        m.dispatches.clear();  // the records point into their plan, not into the model's copy
        m.parent_dispatches.clear();
        m.gpu = devices[static_cast<size_t>(rank.device)];
        m_rank_models.push_back(std::move(m));
        c.model = &m_rank_models.back();
      }
      st.rank_delay_ns = m_ctx.model->ranks.delay(rank.rank);
      st.max_rank_delay_ns = m_ctx.model->ranks.max_delay(rank.size);
    }
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
    if (m_groups.size() > 1 && m_ctx.kernel_replay) {
      st.replay_passes = m_groups.size();
    } else if (m_groups.size() > 1) {
      st.groups = m_groups.size();
      st.group_interval = m_ctx.job.pmc_group_interval;
    }
    if (!plan.empty()) c.stream = make_stream(*m_ctx.model, plan, st);
    if (m_ctx.job.marker_trace && !m_ctx.version.has_region_switch() && active_inside) {
      // No region switch before ROCm 7.0: everything is traced, and the markers say where the
      // region was (the first and last of the model's region dispatches).
      std::optional<std::pair<uint64_t, uint64_t>> span;
      for (const auto& r : c.stream.records)
        if (r.plan->in_region)
          span = span
                     ? std::make_pair(std::min(span->first, r.start), std::max(span->second, r.end))
                     : std::make_pair(r.start, r.end);
      if (span) c.region_markers = std::make_pair(span->first - 500, span->second + 500);
    }
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
    write_outputs(m_ctx, caps, faults, counters);
  }

  PassContext m_ctx;
  std::vector<CounterRequest> m_groups;  // pmc_groups, resolved (empty: one counter set)
  std::deque<std::vector<PlannedDispatch>> m_token_plans;  // the requests' lengths applied
  std::deque<Model> m_rank_models;  // each tensor-parallel rank's view: its own GPU agent
  int m_region_repeats = 1;         // measured requests the application repeated
  std::string m_events;             // the events file the stand-ins append to
  bool m_app_reported = false;      // the application reported through the stand-ins
};

}  // namespace

Outcome run_pass(PassContext ctx, const std::vector<std::string>& app) {
  return PassRunner(std::move(ctx)).run(app);
}

}  // namespace kprof::sim::detail
