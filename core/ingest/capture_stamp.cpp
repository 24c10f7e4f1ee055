#include "core/ingest/capture_stamp.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/ingest/read_file.hpp"

namespace kprof::ingest {

namespace {

// Keeps what a stamp needs of each row and drops the rest.
class StampSink : public store::RowSink {
 public:
  explicit StampSink(CaptureStamp& out) : m_out(out) {}
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow& r) override { m_agents.push_back(r); }
  void dispatch(const store::DispatchRow& d) override {
    ++m_out.dispatches;
    if (d.pid) m_out.pids.insert(d.pid);
    m_out.threads.insert(d.tid);
    m_out.agents.insert(d.agent);
    // counter_collection.csv has timestamps only since ROCm 6.3: 0 there means none.
    if (d.start_ns > 0 && d.end_ns >= d.start_ns) {
      m_out.first_ns = std::min(m_out.first_ns.value_or(d.start_ns), d.start_ns);
      m_out.last_ns = std::max(m_out.last_ns.value_or(d.end_ns), d.end_ns);
    }
  }
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
  std::vector<store::AgentRow> m_agents;

 private:
  CaptureStamp& m_out;
};

std::string list(const std::set<int64_t>& xs, const std::string& prefix = "") {
  std::string out;
  size_t n = 0;
  for (int64_t x : xs) {
    if (++n > 4) return out + ", ... (" + std::to_string(xs.size()) + ")";
    out += (out.empty() ? "" : ", ") + prefix + std::to_string(x);
  }
  return out;
}

bool disjoint(const std::set<int64_t>& a, const std::set<int64_t>& b) {
  return std::none_of(a.begin(), a.end(), [&](int64_t x) { return b.count(x) > 0; });
}

}  // namespace

CaptureStamp read_stamp(const InputFile& file, const std::vector<InputFile>& agents) {
  CaptureStamp stamp;
  if (file.format != Format::kernel_trace && file.format != Format::counter_collection)
    return stamp;
  try {
    ReadOptions o;
    o.pid = file.pid;
    for (const auto& a : agents) {
      CaptureStamp none;
      StampSink tap(none);
      read_file(a.path, Format::agent_info, tap, o);
      o.agents.insert(o.agents.end(), tap.m_agents.begin(), tap.m_agents.end());
    }
    StampSink sink(stamp);
    read_file(file.path, file.format, sink, o);
  } catch (const Error&) {
    return CaptureStamp{};  // the load reads the file again and says what is wrong with it
  }
  return stamp;
}

std::vector<std::string> separate_capture_reasons(const CaptureStamp& trace,
                                                  const CaptureStamp& counters) {
  std::vector<std::string> out;
  if (!trace.dispatches || !counters.dispatches) return out;
  if (disjoint(trace.threads, counters.threads)) {
    std::string who = "the counted dispatches' thread" +
                      std::string(counters.threads.size() == 1 ? " " : "s ") +
                      list(counters.threads);
    if (!counters.pids.empty())
      who +=
          " (pid" + std::string(counters.pids.size() == 1 ? " " : "s ") + list(counters.pids) + ")";
    out.push_back(who + " launched none of the traced dispatches (thread" +
                  (trace.threads.size() == 1 ? " " : "s ") + list(trace.threads) + ")");
  }
  if (!std::includes(trace.agents.begin(), trace.agents.end(), counters.agents.begin(),
                     counters.agents.end()))
    out.push_back("the counters name agent" +
                  std::string(counters.agents.size() == 1 ? " " : "s ") + list(counters.agents) +
                  ", the trace agent" + (trace.agents.size() == 1 ? " " : "s ") +
                  list(trace.agents));
  if (trace.first_ns && counters.first_ns &&
      (*counters.last_ns < *trace.first_ns || *counters.first_ns > *trace.last_ns))
    out.push_back("the counted dispatches ran from " + std::to_string(*counters.first_ns) + " to " +
                  std::to_string(*counters.last_ns) + " ns, outside the trace's " +
                  std::to_string(*trace.first_ns) + " to " + std::to_string(*trace.last_ns) +
                  " ns");
  return out;
}

}  // namespace kprof::ingest
