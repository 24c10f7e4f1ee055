// Counter values of the counter passes moved onto the trace dispatches through the join mapping,
// stored or computed in memory.
#include <algorithm>
#include <optional>
#include <set>

#include "core/analysis/join/analysis_db.hpp"
#include "core/store/analysis_results.hpp"

namespace kprof::analysis {
namespace {
using DispatchKey = std::pair<int64_t, int64_t>;  // (pid, dispatch id)

// Trace dispatch index by (pid, dispatch id): a binary search over the dispatches, which the
// loader returns in that order (a hand-made capture in another order gets one sorted index), so
// no per-dispatch node is allocated.
class TraceIndex {
 public:
  explicit TraceIndex(const PassData& trace) : m_d(trace.dispatches) {
    bool sorted = true;
    for (size_t i = 1; i < m_d.size() && sorted; ++i) sorted = !(key(i) < key(i - 1));
    if (sorted) return;
    m_order.resize(m_d.size());
    for (size_t i = 0; i < m_order.size(); ++i) m_order[i] = static_cast<uint32_t>(i);
    std::sort(m_order.begin(), m_order.end(),
              [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  }
  std::optional<size_t> find(const DispatchKey& k) const {
    size_t lo = 0, hi = m_d.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (key(at(mid)) < k)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < m_d.size() && key(at(lo)) == k) return at(lo);
    return std::nullopt;
  }

 private:
  size_t at(size_t pos) const { return m_order.empty() ? pos : m_order[pos]; }
  DispatchKey key(size_t i) const { return {m_d[i].pid, m_d[i].dispatch_id}; }
  const std::vector<Dispatch>& m_d;
  std::vector<uint32_t> m_order;
};

// Counter-pass dispatch -> trace dispatch, sorted by the counter key for binary search; `launch`
// numbers each counter dispatch once it shows up with values.
struct CounterTarget {
  DispatchKey counter;
  size_t trace = 0;
  int64_t launch = -1;
  bool operator<(const CounterTarget& o) const { return counter < o.counter; }
};

// Appends counter pass `pass_id`'s values to the trace dispatches `to_trace` maps them onto. Each
// counter-side dispatch is one launch; a trace dispatch that gets two launches of one pass marks
// repeated_launches (rotated or replayed passes).
void attach_counters(store::CaptureDb& db, int64_t pass_id, std::vector<CounterTarget> to_trace,
                     int64_t& next_launch, JoinedCounters& jc) {
  std::sort(to_trace.begin(), to_trace.end());
  db.for_each_counter(pass_id, [&](const store::CounterRow& r) {
    const CounterTarget probe{{r.pid, r.dispatch_id}};
    auto it = std::lower_bound(to_trace.begin(), to_trace.end(), probe);
    if (it == to_trace.end() || it->counter != probe.counter) return;
    if (it->launch < 0) it->launch = next_launch++;
    auto& samples = jc.by_dispatch[it->trace];
    if (!samples.empty() && samples.back().pass_id == pass_id &&
        samples.back().launch != it->launch)
      jc.repeated_launches = true;
    samples.push_back({jc.counters.intern(r.counter), r.value, pass_id, it->launch});
  });
}

void exclude_unreliable(const std::vector<JoinSummary>& joins, bool use_unreliable,
                        std::set<int64_t>& excluded, JoinedCounters& jc) {
  if (!use_unreliable)
    for (const auto& j : joins)
      if (!j.reliable) excluded.insert(j.counter_pass_id);
  jc.excluded_passes.assign(excluded.begin(), excluded.end());
}
}  // namespace

JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap, bool use_unreliable) {
  JoinedCounters jc;
  jc.by_dispatch.resize(cap.trace.dispatches.size());
  std::set<int64_t> excluded;
  exclude_unreliable(read_joins(db, cap), use_unreliable, excluded, jc);
  int64_t next_launch = 0;
  const TraceIndex trace_index(cap.trace);
  for (const auto& c : cap.counters) {
    if (excluded.count(c.pass_id)) continue;
    std::vector<CounterTarget> to_trace;
    store::for_each_join_pair(db, c.pass_id, cap.trace.pass_id,
                              [&](store::DispatchKey counter, store::DispatchKey trace) {
                                if (auto t = trace_index.find({trace.pid, trace.dispatch_id}))
                                  to_trace.push_back({{counter.pid, counter.dispatch_id}, *t});
                              });
    attach_counters(db, c.pass_id, std::move(to_trace), next_launch, jc);
  }
  return jc;
}

JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap,
                                    const ComputedJoins& joins, bool use_unreliable) {
  JoinedCounters jc;
  jc.by_dispatch.resize(cap.trace.dispatches.size());
  std::set<int64_t> excluded;
  exclude_unreliable(joins.summaries, use_unreliable, excluded, jc);
  int64_t next_launch = 0;
  const TraceIndex trace_index(cap.trace);
  for (const auto& c : cap.counters) {
    auto res = joins.results.find(c.pass_id);
    if (excluded.count(c.pass_id) || res == joins.results.end()) continue;
    std::vector<CounterTarget> to_trace;
    to_trace.reserve(res->second.matches.size());
    for (const auto& m : res->second.matches)
      if (auto t = trace_index.find({m.trace.pid, m.trace.dispatch_id}))
        to_trace.push_back({{m.counter.pid, m.counter.dispatch_id}, *t});
    attach_counters(db, c.pass_id, std::move(to_trace), next_launch, jc);
  }
  return jc;
}

}  // namespace kprof::analysis
