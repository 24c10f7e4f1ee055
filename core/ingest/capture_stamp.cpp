#include "core/ingest/capture_stamp.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/ingest/read_file.hpp"

namespace kprof::ingest {

namespace {

// Thrown by the sink to end a read whose stamp already says all it can.
struct Enough {};

// Keeps what a stamp needs of each row and drops the rest.
class StampSink : public store::RowSink {
 public:
  StampSink(CaptureStamp& out, const std::vector<CaptureStamp>& until)
      : m_out(out), m_until(until) {
    for (const auto& u : until) m_wanted.insert(u.agents.begin(), u.agents.end());
    // A counter file that says nothing (no dispatches) waits for no kernel.
    for (const auto& u : until) {
      m_named.push_back(u.kernels.empty());
      m_named_count += m_named.back();
    }
  }
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const store::AgentRow& r) override { m_agents.push_back(r); }
  void dispatch(const store::DispatchRow& d) override {
    ++m_out.dispatches;
    if (d.pid) m_out.pids.insert(d.pid);
    if (m_out.agents.insert(d.agent).second) m_wanted.erase(d.agent);
    if (m_out.kernels.insert(d.kernel_name).second)
      for (size_t i = 0; i < m_until.size(); ++i)
        if (!m_named[i] && m_until[i].kernels.count(d.kernel_name)) {
          m_named[i] = true;
          ++m_named_count;
        }
    if (!m_until.empty() && m_wanted.empty() && m_named_count == m_until.size()) throw Enough{};
  }
  void counter(const store::CounterRow&) override {}
  void kernel_stat(const store::KernelStatRow&) override {}
  void bad_row(const store::BadRow&) override {}
  void end_file(int64_t) override {}
  std::vector<store::AgentRow> m_agents;

 private:
  CaptureStamp& m_out;
  const std::vector<CaptureStamp>& m_until;
  std::set<int64_t> m_wanted;  // agents of `until` not seen yet
  std::vector<bool> m_named;   // whether one kernel of until[i] was seen
  size_t m_named_count = 0;
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

std::string plural(const char* word, size_t n) { return word + std::string(n == 1 ? " " : "s "); }

}  // namespace

CaptureStamp read_stamp(const InputFile& file, const std::vector<InputFile>& agents,
                        const std::vector<CaptureStamp>& until) {
  CaptureStamp stamp;
  if (file.format != Format::kernel_trace && file.format != Format::counter_collection)
    return stamp;
  try {
    ReadOptions o;
    o.pid = file.pid;
    for (const auto& a : agents) {
      CaptureStamp none;
      StampSink tap(none, {});
      read_file(a.path, Format::agent_info, tap, o);
      o.agents.insert(o.agents.end(), tap.m_agents.begin(), tap.m_agents.end());
    }
    StampSink sink(stamp, until);
    read_file(file.path, file.format, sink, o);
  } catch (const Enough&) {
    stamp.complete = false;
  } catch (const Error&) {
    return CaptureStamp{};  // the load reads the file again and says what is wrong with it
  }
  return stamp;
}

std::vector<std::string> separate_capture_reasons(const CaptureStamp& trace,
                                                  const CaptureStamp& counters) {
  std::vector<std::string> out;
  if (!trace.dispatches || !counters.dispatches) return out;
  const std::string whose = counters.pids.empty() ? ""
                                                  : " (" + plural("pid", counters.pids.size()) +
                                                        list(counters.pids) + ")";
  if (!std::includes(trace.agents.begin(), trace.agents.end(), counters.agents.begin(),
                     counters.agents.end()))
    out.push_back("the counters" + whose + " name " + plural("agent", counters.agents.size()) +
                  list(counters.agents) + ", the trace " + plural("agent", trace.agents.size()) +
                  list(trace.agents));
  if (std::none_of(counters.kernels.begin(), counters.kernels.end(),
                   [&](const std::string& k) { return trace.kernels.count(k) > 0; }))
    out.push_back("none of the counted kernels (" + std::to_string(counters.kernels.size()) +
                  ", e.g. '" + *counters.kernels.begin() + "') is in the trace");
  return out;
}

}  // namespace kprof::ingest
