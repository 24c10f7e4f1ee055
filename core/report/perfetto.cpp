#include "core/report/perfetto.hpp"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/analysis/joined_stream.hpp"
#include "core/analysis/metrics.hpp"
#include "core/base/text.hpp"
#include "core/report/start_order.hpp"

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

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

class Writer {
 public:
  explicit Writer(std::ostream& os) : m_os(os) {}
  // One event object; `args` is a JSON object's text, or empty for none.
  void event(const std::string& name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
             int64_t dur_ns, const std::string& cat, const std::string& args) {
    m_os << (m_first ? "\n" : ",\n") << "{\"name\":" << json_quote(name) << ",\"ph\":\"" << ph
         << "\",\"pid\":" << pid << ",\"tid\":" << tid;
    if (!cat.empty()) m_os << ",\"cat\":" << json_quote(cat);
    if (ph[0] == 'X') m_os << ",\"ts\":" << us(ts_ns) << ",\"dur\":" << us(dur_ns);
    if (!args.empty()) m_os << ",\"args\":" << args;
    m_os << "}";
    m_first = false;
  }
  void name_process(int64_t pid, const std::string& name, int sort) {
    event("process_name", "M", pid, 0, 0, 0, "", dump(json{{"name", name}}));
    event("process_sort_index", "M", pid, 0, 0, 0, "", dump(json{{"sort_index", sort}}));
  }
  void name_thread(int64_t pid, int64_t tid, const std::string& name, int sort) {
    event("thread_name", "M", pid, tid, 0, 0, "", dump(json{{"name", name}}));
    event("thread_sort_index", "M", pid, tid, 0, 0, "", dump(json{{"sort_index", sort}}));
  }

 private:
  std::ostream& m_os;
  bool m_first = true;
};

// Threads of one process: (agent, queue, lane) -> tid, with the lane's last end time.
class Tracks {
 public:
  // The thread for a dispatch on (agent, queue) that starts at `start` and ends at `end`: the first
  // lane of that queue whose last dispatch has ended. In start order the fewest lanes; in any
  // order the slices of a lane never overlap.
  int64_t place(Writer& w, int64_t pid, int64_t agent, int64_t queue, int64_t start, int64_t end,
                int64_t& new_lanes) {
    auto& lanes = m_lanes[{pid, agent, queue}];
    size_t lane = 0;
    while (lane < lanes.size() && lanes[lane].second > start) ++lane;
    if (lane == lanes.size()) {
      const int64_t tid = ++m_next_tid;
      lanes.push_back({tid, end});
      if (lane > 0) ++new_lanes;
      std::string name = "agent " + std::to_string(agent) + " queue " + std::to_string(queue) +
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

// Kernel names met in the stream, each once, with its family.
class Kernels {
 public:
  explicit Kernels(const an::FamilyRules& rules) : m_rules(rules) {}
  uint32_t id(const std::string& name) {
    auto [it, added] = m_ids.try_emplace(name, static_cast<uint32_t>(m_names.size()));
    if (added) {
      m_names.push_back(name);
      m_families.push_back(m_rules.family_of(name));
    }
    return it->second;
  }
  const std::string& name(uint32_t id) const { return m_names[id]; }
  const std::string& family(uint32_t id) const { return m_families[id]; }

 private:
  const an::FamilyRules& m_rules;
  std::unordered_map<std::string, uint32_t> m_ids;
  std::vector<std::string> m_names, m_families;
};

// A variant as the trace model numbers them (analysis::build_trace_model): a distinct (Kernel_Id,
// name, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR), 1-based in order of first launch in
// (pid, Dispatch_Id) order, which is the order the store streams the rows in.
struct VariantInfo {
  int index = 0;
  uint32_t name = 0;
  int64_t grid[3] = {0, 1, 1}, wg[3] = {0, 1, 1};
};
class Variants {
 public:
  uint32_t of(const store::DispatchRow& r, uint32_t name) {
    const Key key{r.kernel_id,
                  name,
                  r.grid_x,
                  r.grid_y,
                  r.grid_z,
                  r.wg_x,
                  r.wg_y,
                  r.wg_z,
                  r.lds,
                  r.scratch,
                  r.vgpr.value_or(-1),
                  r.agpr.value_or(-1),
                  r.sgpr.value_or(-1)};
    auto [it, added] = m_index.try_emplace(key, static_cast<uint32_t>(m_list.size()));
    if (added)
      m_list.push_back({static_cast<int>(m_list.size()) + 1,
                        name,
                        {r.grid_x, r.grid_y, r.grid_z},
                        {r.wg_x, r.wg_y, r.wg_z}});
    return it->second;
  }
  const VariantInfo& operator[](uint32_t i) const { return m_list[i]; }

 private:
  using Key = std::tuple<int64_t, uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, uint32_t> m_index;
  std::vector<VariantInfo> m_list;
};

// A dispatch read from the store, waiting for its place in start order.
struct Pending {
  int64_t start = 0, end = 0, dispatch_id = 0, pid = 0, agent = 0, queue = 0;
  int64_t step = 0;                        // 1-based step number, 0: none
  int64_t joined = -1;                     // PerfettoOutline::joined index
  std::vector<an::CounterSample> samples;  // streamed joined counters (PerfettoOutline::counts)
  uint32_t what = 0;                       // trace: a Variants index; counter pass: a Kernels id
  an::Phase phase = an::Phase::other;
  int64_t duration() const { return end > start ? end - start : 0; }
};

Pending pending(const store::DispatchRow& r) {
  Pending p;
  p.start = r.start_ns;
  p.end = r.end_ns;
  p.dispatch_id = r.dispatch_id;
  p.pid = r.pid;
  p.agent = r.agent;
  p.queue = r.queue_id;
  return p;
}

// Streams a pass's rows into `order`, one process at a time.
void stream_pass(store::CaptureDb& db, int64_t pass_id, StartOrder<Pending>& order,
                 const std::function<Pending(const store::DispatchRow&)>& make) {
  bool any = false;
  int64_t pid = 0;
  db.for_each_dispatch(pass_id, [&](const store::DispatchRow& r) {
    if (any && r.pid != pid) order.flush();
    any = true;
    pid = r.pid;
    order.push(r.start_ns, make(r));
  });
  order.flush();
}

}  // namespace

PerfettoExport PerfettoExport::open(const std::filesystem::path& db, std::optional<int64_t> run_id,
                                    bool use_stored) {
  PerfettoExport e;
  e.m_db = std::make_unique<store::CaptureDb>(db, store::OpenMode::read_only);
  e.m_outline = outline_run(*e.m_db, run_id, use_stored);
  return e;
}

PerfettoSummary PerfettoExport::write(std::ostream& os) {
  const PerfettoOutline& o = m_outline;
  PerfettoSummary sum;
  sum.simulated = o.simulated;
  const std::string sim = sum.simulated ? " (SIMULATED)" : "";
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
     << dump(json{{"kprof_run", o.run.id},
                  {"run_name", o.run.name},
                  {"simulated", sum.simulated},
                  {"figures", sum.simulated ? "SIMULATED: rocprofv3 test double, not measured"
                                            : "measured with rocprofv3"},
                  {"time_base_ns", o.base_ns},
                  {"agent", o.arch + (o.product.empty() ? "" : " (" + o.product + ")")}})
     << ",\"traceEvents\":[";
  Writer w(os);
  Tracks tracks;
  std::set<int64_t> named{o.main_pid};
  w.name_process(o.main_pid, "process " + std::to_string(o.main_pid) + " trace pass" + sim, 0);
  w.name_thread(o.main_pid, 1, "phases and steps", 0);
  for_each_enclosing(o, [&](const EnclosingSlice& s) {
    w.event(s.name, "X", o.main_pid, 1, s.start_ns, s.dur_ns, s.cat, s.args);
    ++sum.step_slices;
  });

  Kernels kernels(o.rules);
  Variants variants;
  std::optional<an::JoinedCounterStream> stream;
  if (o.stream_joined) stream.emplace(*m_db, o.counts);
  an::JoinedCounters streamed;  // one dispatch's streamed samples at a time
  streamed.by_dispatch.resize(1);
  StartOrder<Pending> trace_order(o.trace_window, [&](Pending& p) {
    if (named.insert(p.pid).second)
      w.name_process(p.pid, "process " + std::to_string(p.pid) + " trace pass" + sim, 1);
    const int64_t tid = tracks.place(w, p.pid, p.agent, p.queue, p.start, p.end, sum.overlap_lanes);
    const VariantInfo& v = variants[p.what];
    json args{{"kernel", kernels.name(v.name)},
              {"family", kernels.family(v.name)},
              {"variant", v.index},
              {"phase", an::to_string(p.phase)},
              {"dispatch_id", p.dispatch_id},
              {"grid", dims(v.grid)},
              {"workgroup", dims(v.wg)}};
    if (p.step > 0) args["step"] = p.step;
    // The joined counters: held in the outline, or streamed alongside the rows into `streamed`.
    const an::JoinedCounters* jc = nullptr;
    size_t k = 0;
    if (p.joined >= 0) {
      jc = &o.joined;
      k = static_cast<size_t>(p.joined);
    } else if (!p.samples.empty()) {
      streamed.by_dispatch[0] = std::move(p.samples);
      jc = &streamed;
    }
    if (jc) {
      json counters = json::object();
      for (const auto& s : jc->by_dispatch[k]) counters[jc->counters.name(s.counter)] = s.value;
      args["counters"] = std::move(counters);
      if (o.target) {
        const auto dm = an::dispatch_metrics(*o.target, *jc, k);
        if (dm.has_flops()) args["flops"] = dm.flops();
        if (dm.has_bytes()) args["hbm_bytes"] = dm.bytes();
        if (dm.has_flops() && dm.has_bytes() && dm.bytes() > 0)
          args["flop_per_byte"] = dm.flops() / dm.bytes();
        if (!dm.dominant_type.empty()) args["dominant_type"] = dm.dominant_type;
      }
    }
    if (sum.simulated) args["simulated"] = true;
    w.event(kernels.name(v.name), "X", p.pid, tid, p.start - o.base_ns, p.duration(), "dispatch",
            dump(args));
    ++sum.dispatch_slices;
  });
  stream_pass(*m_db, o.trace_pass_id, trace_order, [&](const store::DispatchRow& r) {
    Pending p = pending(r);
    p.what = variants.of(r, kernels.id(r.kernel_name));
    if (const auto* seg = o.segment_of(r.pid, r.agent, r.dispatch_id)) {
      p.phase = seg->phase;
      p.step = seg->step;
    }
    p.joined = o.joined_keys.empty() ? -1 : o.joined_index(r.pid, r.dispatch_id);
    if (stream) p.samples = stream->take(r.pid, r.dispatch_id, streamed.counters);
    return p;
  });

  // Counter passes: each its own process group and clock (a separate run of the application).
  int64_t fake_pid = 1'000'000'000;
  for (const auto& c : o.counter_passes) {
    std::map<int64_t, int64_t> pid_of;  // real pid -> this pass's process id in the JSON
    StartOrder<Pending> order(c.window, [&](Pending& p) {
      auto it = pid_of.find(p.pid);
      if (it == pid_of.end()) {
        it = pid_of.emplace(p.pid, ++fake_pid).first;
        w.name_process(it->second,
                       "counter pass " + std::to_string(c.ordinal) + ", process " +
                           std::to_string(p.pid) + " (its own run and clock)" + sim,
                       static_cast<int>(100 + c.ordinal));
      }
      const int64_t tid =
          tracks.place(w, it->second, p.agent, p.queue, p.start, p.end, sum.overlap_lanes);
      json args{
          {"kernel", kernels.name(p.what)}, {"pass", c.ordinal}, {"dispatch_id", p.dispatch_id}};
      if (sum.simulated) args["simulated"] = true;
      w.event(kernels.name(p.what), "X", it->second, tid, p.start - c.base_ns, p.duration(),
              "counter pass dispatch", dump(args));
      ++sum.counter_pass_slices;
    });
    stream_pass(*m_db, c.pass_id, order, [&](const store::DispatchRow& r) {
      Pending p = pending(r);
      p.what = kernels.id(r.kernel_name);
      return p;
    });
  }
  os << "\n]}\n";
  return sum;
}

}  // namespace kprof::report
