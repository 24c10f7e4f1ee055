#include "core/report/perfetto.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/analysis/metrics.hpp"
#include "core/base/text.hpp"
#include "core/hw/target.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;
using nlohmann::json;

// Microseconds with nanosecond digits, from nanoseconds relative to the trace's first dispatch:
// absolute rocprofv3 timestamps (~1.7e18 ns) do not fit a double's digits in microseconds.
std::string us(int64_t ns) {
  char buf[40];
  const int64_t whole = ns / 1000, frac = ns % 1000;
  if (ns < 0 && frac != 0)
    std::snprintf(buf, sizeof buf, "-%" PRId64 ".%03" PRId64, -(ns / 1000), -frac);
  else
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, whole, frac);
  return buf;
}

class Writer {
 public:
  explicit Writer(std::ostream& os) : m_os(os) {}
  // One event object; `args` may be null.
  void event(const std::string& name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
             int64_t dur_ns, const std::string& cat, const json& args) {
    m_os << (m_first ? "\n" : ",\n") << "{\"name\":" << json_quote(name) << ",\"ph\":\"" << ph
         << "\",\"pid\":" << pid << ",\"tid\":" << tid;
    if (!cat.empty()) m_os << ",\"cat\":" << json_quote(cat);
    if (ph[0] == 'X') m_os << ",\"ts\":" << us(ts_ns) << ",\"dur\":" << us(dur_ns);
    if (!args.is_null())
      m_os << ",\"args\":" << args.dump(-1, ' ', false, json::error_handler_t::replace);
    m_os << "}";
    m_first = false;
  }
  void name_process(int64_t pid, const std::string& name, int sort) {
    event("process_name", "M", pid, 0, 0, 0, "", json{{"name", name}});
    event("process_sort_index", "M", pid, 0, 0, 0, "", json{{"sort_index", sort}});
  }
  void name_thread(int64_t pid, int64_t tid, const std::string& name, int sort) {
    event("thread_name", "M", pid, tid, 0, 0, "", json{{"name", name}});
    event("thread_sort_index", "M", pid, tid, 0, 0, "", json{{"sort_index", sort}});
  }

 private:
  std::ostream& m_os;
  bool m_first = true;
};

// Threads of one process: (agent, queue, lane) -> tid, with the lane's last end time.
class Tracks {
 public:
  // The thread for a dispatch on (agent, queue) that starts at `start` and ends at `end`: the first
  // lane of that queue whose previous dispatch has ended.
  int64_t place(Writer& w, int64_t pid, const std::string& pid_label, int64_t agent, int64_t queue,
                int64_t start, int64_t end, int64_t& new_lanes) {
    auto& lanes = m_lanes[{pid, agent, queue}];
    size_t lane = 0;
    while (lane < lanes.size() && lanes[lane].second > start) ++lane;
    if (lane == lanes.size()) {
      const int64_t tid = ++m_next_tid;
      lanes.push_back({tid, end});
      if (lane > 0) ++new_lanes;
      std::string name = pid_label + "agent " + std::to_string(agent) + " queue " +
                         std::to_string(queue) +
                         (lane ? " (overlap " + std::to_string(lane) + ")" : "");
      w.name_thread(pid, tid, name, static_cast<int>(tid));
    } else {
      lanes[lane].second = end;
    }
    return lanes[lane].first;
  }

 private:
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> m_lanes;
  int64_t m_next_tid = 1;  // tid 1: the phases-and-steps thread
};

std::string dims(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

}  // namespace

PerfettoSummary write_perfetto(std::ostream& os, an::QuerySession& session) {
  PerfettoSummary sum;
  const auto& cap = session.capture();
  const auto& m = session.model();
  const auto& joined = session.joined();
  const hw::Target* target = session.target();
  sum.simulated = cap.run.simulated || cap.product.find("(simulated)") != std::string::npos;
  const std::string sim = sum.simulated ? " (SIMULATED)" : "";
  int64_t base = INT64_MAX;
  for (const auto& d : cap.trace.dispatches) base = std::min(base, d.start_ns);
  if (base == INT64_MAX) base = 0;

  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
     << json{{"kprof_run", cap.run.id},
             {"run_name", cap.run.name},
             {"simulated", sum.simulated},
             {"figures", sum.simulated ? "SIMULATED: rocprofv3 test double, not measured"
                                       : "measured with rocprofv3"},
             {"time_base_ns", base},
             {"agent", cap.arch + (cap.product.empty() ? "" : " (" + cap.product + ")")}}
            .dump(-1, ' ', false, json::error_handler_t::replace)
     << ",\"traceEvents\":[";
  Writer w(os);
  Tracks tracks;
  std::map<int64_t, bool> named;
  const int64_t main_pid = m.phases.main_pid;
  w.name_process(main_pid, "process " + std::to_string(main_pid) + " trace pass" + sim, 0);
  named[main_pid] = true;
  w.name_thread(main_pid, 1, "phases and steps", 0);

  // Phases and steps first: the enclosing slices of the main stream.
  const auto& pm = m.phases;
  auto step_end = [&](size_t i) {
    const auto& s = pm.steps[i];
    int64_t end = 0;
    for (size_t k = s.begin; k < s.end; ++k) end = std::max(end, pm.order[k]->end_ns);
    // Slices of one thread must nest: a step ends where the next begins when kernels overlap.
    if (i + 1 < pm.steps.size()) end = std::min(end, pm.order[pm.steps[i + 1].begin]->start_ns);
    return end;
  };
  size_t step_no = 0;
  for (size_t i = 0; i < pm.steps.size();) {
    size_t j = i;
    while (j < pm.steps.size() && pm.steps[j].phase == pm.steps[i].phase) ++j;
    const std::string phase(an::to_string(pm.steps[i].phase));
    const int64_t start = pm.order[pm.steps[i].begin]->start_ns, end = step_end(j - 1);
    w.event(phase, "X", main_pid, 1, start - base, std::max<int64_t>(end - start, 0), "phase",
            json{{"steps", j - i}, {"simulated", sum.simulated}});
    ++sum.step_slices;
    for (size_t k = i; k < j; ++k) {
      const auto& s = pm.steps[k];
      const bool is_step = s.phase == an::Phase::prefill || s.phase == an::Phase::decode ||
                           s.phase == an::Phase::step || s.phase == an::Phase::irregular;
      if (!is_step) continue;
      ++step_no;
      const int64_t ss = pm.order[s.begin]->start_ns, se = step_end(k);
      w.event(phase + " step " + std::to_string(step_no), "X", main_pid, 1, ss - base,
              std::max<int64_t>(se - ss, 0), "step",
              json{{"step", step_no}, {"dispatches", s.end - s.begin}, {"window", s.window}});
      ++sum.step_slices;
    }
    i = j;
  }

  // Trace dispatches, in start order per queue (placing in lanes needs it).
  std::vector<size_t> order(cap.trace.dispatches.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return cap.trace.dispatches[a].start_ns < cap.trace.dispatches[b].start_ns;
  });
  const std::vector<int> step_of = m.step_of_dispatches();
  std::map<int64_t, int64_t> step_number_of;  // PhaseModel step index -> 1-based step number
  {
    int64_t n = 0;
    for (size_t i = 0; i < pm.steps.size(); ++i) {
      const auto ph = pm.steps[i].phase;
      if (ph == an::Phase::prefill || ph == an::Phase::decode || ph == an::Phase::step ||
          ph == an::Phase::irregular)
        step_number_of[static_cast<int64_t>(i)] = ++n;
    }
  }
  for (const size_t k : order) {
    const auto& d = cap.trace.dispatches[k];
    if (!named[d.pid]) {
      w.name_process(d.pid, "process " + std::to_string(d.pid) + " trace pass" + sim, 1);
      named[d.pid] = true;
    }
    const int64_t tid = tracks.place(w, d.pid, "", cap.trace.agent(d), cap.trace.queue(d),
                                     d.start_ns, d.end_ns, sum.overlap_lanes);
    const auto& v = m.variants[m.variant_of[k]];
    json args{{"kernel", cap.names.name(d.name)},
              {"family", v.family},
              {"variant", v.index},
              {"phase", an::to_string(m.phase_of[k])},
              {"dispatch_id", d.dispatch_id},
              {"grid", dims(cap.trace.shape(d).grid)},
              {"workgroup", dims(cap.trace.shape(d).wg)}};
    if (step_of[k] >= 0) {
      const auto it = step_number_of.find(step_of[k]);
      if (it != step_number_of.end()) args["step"] = it->second;
    }
    if (k < joined.by_dispatch.size() && !joined.by_dispatch[k].empty()) {
      json counters = json::object();
      for (const auto& s : joined.by_dispatch[k])
        counters[joined.counters.name(s.counter)] = s.value;
      args["counters"] = std::move(counters);
      if (target) {
        const auto dm = an::dispatch_metrics(*target, joined, k);
        if (dm.has_flops()) args["flops"] = dm.flops();
        if (dm.has_bytes()) args["hbm_bytes"] = dm.bytes();
        if (dm.has_flops() && dm.has_bytes() && dm.bytes() > 0)
          args["flop_per_byte"] = dm.flops() / dm.bytes();
        if (!dm.dominant_type.empty()) args["dominant_type"] = dm.dominant_type;
      }
    }
    if (sum.simulated) args["simulated"] = true;
    w.event(cap.names.name(d.name), "X", d.pid, tid, d.start_ns - base, d.duration_ns(), "dispatch",
            args);
    ++sum.dispatch_slices;
  }

  // Counter passes: each its own process group and clock (a separate run of the application).
  int64_t fake_pid = 1'000'000'000;
  for (const auto& c : cap.counters) {
    int64_t cbase = INT64_MAX;
    for (const auto& d : c.dispatches) cbase = std::min(cbase, d.start_ns);
    std::map<int64_t, int64_t> pid_of;  // real pid -> this pass's process id in the JSON
    std::vector<size_t> corder(c.dispatches.size());
    for (size_t k = 0; k < corder.size(); ++k) corder[k] = k;
    std::stable_sort(corder.begin(), corder.end(), [&](size_t a, size_t b) {
      return c.dispatches[a].start_ns < c.dispatches[b].start_ns;
    });
    for (const size_t k : corder) {
      const auto& d = c.dispatches[k];
      auto it = pid_of.find(d.pid);
      if (it == pid_of.end()) {
        it = pid_of.emplace(d.pid, ++fake_pid).first;
        w.name_process(it->second,
                       "counter pass " + std::to_string(c.ordinal) + ", process " +
                           std::to_string(d.pid) + " (its own run and clock)" + sim,
                       100 + c.ordinal);
      }
      const int64_t tid = tracks.place(w, it->second, "", c.agent(d), c.queue(d), d.start_ns,
                                       d.end_ns, sum.overlap_lanes);
      json args{
          {"kernel", cap.names.name(d.name)}, {"pass", c.ordinal}, {"dispatch_id", d.dispatch_id}};
      if (sum.simulated) args["simulated"] = true;
      w.event(cap.names.name(d.name), "X", it->second, tid, d.start_ns - cbase, d.duration_ns(),
              "counter pass dispatch", args);
      ++sum.counter_pass_slices;
    }
  }
  os << "\n]}\n";
  return sum;
}

}  // namespace kprof::report
