// The bounded QueryContext (views.hpp QueryContext::bounded): the trace model of a run built from
// one read of the trace pass's rows in (pid, Dispatch_Id) order (through the index
// dispatches_by_key, core/store/schema/0005_kernel_variants.sql: no sort), holding per dispatch
// only what phase detection spills. The read sums the variants and keeps the main stream, on which
// the phases are detected as compute_outline_bounded detects them for the export; the main
// stream's launches are then counted in their steps' phases. Views that need the dispatches again
// (the joined counters' views; variants and families with --family or --phase) read them again.
#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/analysis/join/joined_stream.hpp"
#include "core/analysis/outline/run_outline.hpp"
#include "core/analysis/views/views.hpp"

namespace kprof::analysis {

// The phase of each dispatch of the trace in (pid, Dispatch_Id) order: a main-stream dispatch's
// is its step's (the main stream was read in that order, so its k-th dispatch is order[k]); any
// other dispatch's is `other`, as build_trace_model sets them.
class QueryContext::PhaseCursor {
 public:
  PhaseCursor(const PhaseModel& pm, const PassData& trace) : m_pm(pm), m_trace(trace) {}
  Phase next(const Dispatch& d) {
    if (d.pid != m_pm.main_pid || m_trace.agent(d) != m_pm.main_agent || m_pm.steps.empty())
      return Phase::other;
    while (m_step + 1 < m_pm.steps.size() && m_pm.steps[m_step].end <= m_position) ++m_step;
    ++m_position;
    return m_pm.steps[m_step].phase;
  }

 private:
  const PhaseModel& m_pm;
  const PassData& m_trace;
  size_t m_position = 0, m_step = 0;
};

QueryContext::MainStreamOf QueryContext::main_stream_of(const RunTrace& rt) {
  // The stored outline names the main stream when it is current (every query after `kprof run` or
  // `kprof ingest` stored it): no scan of the trace's rows to count its streams.
  MainStreamOf out;
  out.dispatches = counts().trace.dispatches;
  if (const auto o = read_outline(m_db, counts())) {
    out.pid = o->main_pid;
    out.agent = o->main_agent;
    return out;
  }
  // Else as detect_phases(const PassData&) chooses it: the (pid, agent) with the most dispatches,
  // the first in (pid, agent) order on a tie.
  int64_t size = -1;
  for (const auto& r : store::dispatch_streams(m_db, rt.trace.id))
    if (r.dispatches > size) out.pid = r.pid, out.agent = r.agent, size = r.dispatches;
  return out;
}

QueryContext::QueryContext(store::CaptureDb& db, FamilyRules rules)
    : m_db(db), m_rules(std::move(rules)) {}

std::unique_ptr<QueryContext> QueryContext::bounded(store::CaptureDb& db, const RunTrace& rt,
                                                    FamilyRules rules, size_t memory_bytes) {
  std::unique_ptr<QueryContext> q(new QueryContext(db, std::move(rules)));
  q->load_bounded(rt, memory_bytes);
  return q;
}

void QueryContext::load_bounded(const RunTrace& rt, size_t memory_bytes) {
  m_bounded = true;
  m_cap.run = rt.run;
  m_cap.passes = rt.passes;
  m_cap.counter_rows = false;
  PassData& trace = m_cap.trace;
  trace.pass_id = rt.trace.id;
  trace.ordinal = static_cast<int>(rt.trace.ordinal);
  trace.kind = rt.trace.kind;
  m_shape_of = read_stored_shapes(m_db, trace, m_cap.names);
  if (counts().trace.dispatches == 0) no_dispatches(m_db, m_cap.run, trace.pass_id);

  const MainStreamOf main = main_stream_of(rt);

  // One read: the variants (numbered by first launch in this order, as build_trace_model numbers
  // them), the main stream and, when its process ran on other agents too, its ids on every agent
  // (they are not missing from the stream: phase detection needs them), the
  // (pid, agent) streams, the first row's agent for the GPU agent, as load_capture takes it. A
  // dispatch off the main stream is in phase `other`; the main stream's phases are counted once
  // detected.
  m_model = trace_model_base(trace, m_cap.names, m_rules, m_cap.wave_size);
  VariantSums sums(m_model);
  MainStream order(SpillVector<Dispatch>{memory_bytes});
  SpillVector<int64_t> process_ids(memory_bytes);
  bool other_agents = false;
  std::set<std::pair<int32_t, int64_t>> streams;
  std::pair<int32_t, int64_t> last{0, -1};
  std::optional<int64_t> first_agent;
  {
    StoredDispatchReader rows(m_db, trace, m_shape_of);
    for (Dispatch d; rows.next(d);) {
      const int64_t agent = trace.agent(d);
      if (!first_agent) first_agent = agent;
      if (std::make_pair(d.pid, agent) != last) streams.insert(last = {d.pid, agent});
      const int variant = sums.add(d);
      if (d.pid == main.pid && agent != main.agent && !other_agents) {
        // The process's rows come in Dispatch_Id order, so its ids so far are the stream's.
        other_agents = true;
        for (size_t i = 0; i < order.size(); ++i) process_ids.push_back(order[i].dispatch_id);
      }
      if (d.pid == main.pid && other_agents) process_ids.push_back(d.dispatch_id);
      if (d.pid == main.pid && agent == main.agent)
        order.push_back(d);
      else
        sums.count(variant, Phase::other);
    }
  }
  if (!other_agents) process_ids = SpillVector<int64_t>{};  // phase detection's "none"
  const detail::GpuAgent gpu = detail::gpu_agent(m_db, trace.pass_id, first_agent.value_or(0));
  m_cap.arch = gpu.arch;
  m_cap.product = gpu.product;
  if (gpu.wave_size > 0) m_cap.wave_size = static_cast<int>(gpu.wave_size);
  m_model.wave_size = m_cap.wave_size;

  m_model.phases =
      detect_phases(trace, std::move(order), std::move(process_ids), &m_cap.names, memory_bytes);
  note_other_streams(m_model.phases, static_cast<size_t>(main.dispatches), streams.size());
  // The main stream's launches in their steps' phases (in none: `other`, as build_trace_model).
  const PhaseModel& pm = m_model.phases;
  const auto& variant_of_shape = sums.variant_of_shape();
  if (pm.steps.empty())
    for (size_t i = 0; i < pm.order.size(); ++i)
      sums.count(variant_of_shape[pm.order[i].shape], Phase::other);
  for (const Step& s : pm.steps)
    for (size_t i = s.begin; i < s.end; ++i)
      sums.count(variant_of_shape[pm.order[i].shape], s.phase);
  sums.finish();
  m_variant_of_shape = sums.variant_of_shape();
}

void QueryContext::for_each_kept(const ViewOptions& o,
                                 const std::function<void(const Dispatch&, int)>& f) {
  if (!m_bounded) {
    for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k)
      if (keep(k, o)) f(m_cap.trace.dispatches[k], m_model.variant_of[k]);
    return;
  }
  PhaseCursor phase(m_model.phases, m_cap.trace);
  StoredDispatchReader rows(m_db, m_cap.trace, m_shape_of);
  for (Dispatch d; rows.next(d);) {
    const Phase p = phase.next(d);
    const int vi = m_variant_of_shape[d.shape];
    if (!o.family.empty() && m_model.variants[static_cast<size_t>(vi)].family != o.family) continue;
    if (o.phase && p != *o.phase) continue;
    f(d, vi);
  }
}

bool QueryContext::for_each_joined_bounded(const std::function<bool(size_t)>& keep,
                                           const JoinedVisit& f) {
  JoinedCounterStream stream(m_db, counts(), m_use_unreliable);
  m_one.by_dispatch.resize(1);
  bool repeated = false;
  PhaseCursor phase(m_model.phases, m_cap.trace);
  StoredDispatchReader rows(m_db, m_cap.trace, m_shape_of);
  size_t k = 0;
  for (Dispatch d; rows.next(d); ++k) {
    m_current = {d, m_variant_of_shape[d.shape], phase.next(d)};
    if (keep(k)) visit_streamed(stream, k, d, f, repeated);
  }
  m_one.by_dispatch[0].clear();
  return repeated;
}

bool bounded_view(const std::string& name) {
  static const char* const names[] = {"top",       "explain", "phases",   "variants", "families",
                                      "structure", "windows", "roofline", "metrics",  "metric_sets",
                                      "counters",  "samples", "claims",   "passes",   "ranks"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace kprof::analysis
