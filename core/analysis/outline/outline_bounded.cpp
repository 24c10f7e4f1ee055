// A run's outline found from the database in bounded memory (run_outline.hpp
// compute_outline_bounded): what a first `kprof export --perfetto` needs, without the capture.
// Each pass's rows are read once, in (pid, Dispatch_Id) order through the index dispatches_by_key
// (core/store/schema/0005_kernel_variants.sql), so no query sorts.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "core/analysis/outline/run_outline.hpp"

#include "core/analysis/outline/claims.hpp"

namespace kprof::analysis {
namespace {

// A pass's count, clock and reorder window, from its starts in (pid, Dispatch_Id) order.
class PassClock {
 public:
  explicit PassClock(size_t memory_bytes) : m_starts(memory_bytes) {}
  void add(const Dispatch& d) {
    if (m_process_begins.empty() || d.pid != m_pid) m_process_begins.push_back(m_starts.size());
    m_pid = d.pid;
    m_starts.push_back(d.start_ns);
    m_base = std::min(m_base, d.start_ns);
  }
  OutlinePass outline(const PassCount& pc) const {
    return {pc.pass_id, pc.ordinal, static_cast<int64_t>(m_starts.size()),
            m_base == INT64_MAX ? 0 : m_base,
            static_cast<int64_t>(reorder_window(m_starts, m_process_begins))};
  }

 private:
  SpillVector<int64_t> m_starts;
  std::vector<size_t> m_process_begins;
  int64_t m_base = INT64_MAX;
  int32_t m_pid = 0;
};

PassData pass_of(const PassCount& pc, store::PassKind kind) {
  PassData p;
  p.pass_id = pc.pass_id;
  p.ordinal = static_cast<int>(pc.ordinal);
  p.kind = kind;
  return p;
}

}  // namespace

RunOutline compute_outline_bounded(store::CaptureDb& db, const RunTrace& rt,
                                   const RunCounts& counts, size_t memory_bytes,
                                   size_t* step_period, std::vector<Claim>* structure_claims) {
  const int64_t tp = counts.trace.pass_id;
  // The main stream: the (pid, agent) with the most dispatches, the first in (pid, agent) order on
  // a tie, as detect_phases(const PassData&) chooses it.
  struct Stream {
    int64_t pid = 0, agent = 0, size = 0;
  };
  std::optional<Stream> main;
  int64_t main_pid_size = 0;
  {
    std::vector<Stream> all;
    for (const auto& r : store::dispatch_streams(db, tp)) {
      const Stream s{r.pid, r.agent, r.dispatches};
      all.push_back(s);
      if (!main || s.size > main->size) main = s;
    }
    for (const auto& s : all)
      if (main && s.pid == main->pid) main_pid_size += s.size;
  }
  if (!main) no_dispatches(db, rt.run, tp);

  // One pass over the trace's rows in (pid, Dispatch_Id) order: every row for the pass's clock;
  // the main process's rows for the main stream (in Dispatch_Id order) and, when the process ran
  // on other agents too, its ids there (not missing); the first row for the GPU agent.
  NameTable names;
  PassData trace = pass_of(counts.trace, store::PassKind::trace);
  PassClock trace_clock(memory_bytes);
  const bool other_agents = main_pid_size > main->size;
  MainStream order(SpillVector<Dispatch>{memory_bytes});
  SpillVector<int64_t> process_ids(other_agents ? memory_bytes : 0);
  std::optional<int64_t> first_agent;
  for_each_stored_dispatch(db, trace, names, [&](const Dispatch& d) {
    trace_clock.add(d);
    const int64_t agent = trace.agent(d);
    if (!first_agent) first_agent = agent;
    if (d.pid != main->pid) return;
    if (other_agents) process_ids.push_back(d.dispatch_id);
    if (agent == main->agent) order.push_back(d);
  });
  const PhaseModel pm =
      detect_phases(trace, std::move(order), std::move(process_ids), &names, memory_bytes);

  if (step_period) *step_period = pm.step_period;
  if (structure_claims) *structure_claims = claims_of(pm, {});
  RunOutline ro;
  ro.main_pid = pm.main_pid;
  ro.main_agent = pm.main_agent;
  ro.segments = outline_segments(pm);
  ro.trace = trace_clock.outline(counts.trace);
  for (const auto& c : counts.counters) {
    PassData pass = pass_of(c, store::PassKind::counters);
    PassClock clock(memory_bytes);
    for_each_stored_dispatch(db, pass, names, [&](const Dispatch& d) { clock.add(d); });
    ro.counters.push_back(clock.outline(c));
  }
  const detail::GpuAgent gpu = detail::gpu_agent(db, tp, first_agent.value_or(0));
  ro.arch = gpu.arch;
  ro.product = gpu.product;
  return ro;
}

}  // namespace kprof::analysis
