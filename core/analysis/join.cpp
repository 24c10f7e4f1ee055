#include "core/analysis/join.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/align.hpp"

namespace kprof::analysis {
namespace {

struct Process {
  int64_t pid = 0;
  int64_t first_start = 0;
  std::map<int64_t, std::vector<const Dispatch*>> by_agent;  // in program order
  size_t size = 0;
};

std::vector<Process> processes_of(const PassData& pass,
                                  const std::unordered_set<uint32_t>* keep_names) {
  std::map<int64_t, Process> by_pid;
  for (const auto& d : pass.dispatches) {
    auto& p = by_pid[d.pid];
    if (p.size == 0 || d.start_ns < p.first_start) p.first_start = d.start_ns;
    p.pid = d.pid;
    ++p.size;  // process size counts every dispatch, so pairing does not depend on the filter
    if (keep_names && !keep_names->count(d.name)) continue;
    p.by_agent[pass.agent(d)].push_back(&d);
  }
  std::vector<Process> out;
  for (auto& [pid, p] : by_pid) {
    for (auto& [agent, v] : p.by_agent) {
      std::sort(v.begin(), v.end(), [](const Dispatch* a, const Dispatch* b) {
        return a->dispatch_id < b->dispatch_id;
      });
    }
    out.push_back(std::move(p));
  }
  // Processes start in the same order in every rerun (vLLM's engine first, then its worker).
  std::sort(out.begin(), out.end(), [](const Process& a, const Process& b) {
    return a.first_start != b.first_start ? a.first_start < b.first_start : a.pid < b.pid;
  });
  return out;
}

// Pairs processes of the two passes: by start order when both have the same number of processes,
// otherwise largest with largest (a short helper process may exist in one rerun only).
std::vector<std::pair<const Process*, const Process*>> pair_processes(
    const std::vector<Process>& trace, const std::vector<Process>& counters) {
  std::vector<std::pair<const Process*, const Process*>> out;
  if (trace.size() == counters.size()) {
    for (size_t i = 0; i < trace.size(); ++i) out.emplace_back(&trace[i], &counters[i]);
    return out;
  }
  auto by_size = [](const std::vector<Process>& v) {
    std::vector<const Process*> p;
    for (const auto& x : v) p.push_back(&x);
    std::stable_sort(p.begin(), p.end(),
                     [](const Process* a, const Process* b) { return a->size > b->size; });
    return p;
  };
  auto t = by_size(trace), c = by_size(counters);
  for (size_t i = 0; i < std::min(t.size(), c.size()); ++i) out.emplace_back(t[i], c[i]);
  return out;
}

struct IdentityHash {
  size_t operator()(const std::tuple<uint32_t, int64_t, int64_t>& k) const {
    size_t h = std::get<0>(k);
    h = h * 1000003u ^ static_cast<size_t>(std::get<1>(k));
    h = h * 1000003u ^ static_cast<size_t>(std::get<2>(k));
    return h;
  }
};

// The by-id join of a counter pass written by the trace's own invocation: nullopt unless every
// counter dispatch has its trace twin (same id, kernel, grid and workgroup products, and the same
// start and end times; without times, the same non-zero pid). A trace without pids (files named
// `-o NAME`, no Process_Id column) stands for the one process of the counter pass.
std::optional<JoinResult> join_by_id(const PassData& trace, const PassData& counters) {
  if (counters.dispatches.empty()) return std::nullopt;
  std::set<int64_t> trace_pids, counter_pids;
  for (const auto& d : trace.dispatches) trace_pids.insert(d.pid);
  for (const auto& d : counters.dispatches) counter_pids.insert(d.pid);
  const bool pid_unknown =
      trace_pids.size() == 1 && *trace_pids.begin() == 0 && counter_pids.size() == 1;
  std::map<std::pair<int64_t, int64_t>, const Dispatch*> by_key;
  for (const auto& d : trace.dispatches) by_key[{d.pid, d.dispatch_id}] = &d;
  JoinResult r;
  r.method = "by_id";
  r.counter_total = counters.dispatches.size();
  std::vector<const Dispatch*> ordered;
  for (const auto& c : counters.dispatches) ordered.push_back(&c);
  std::sort(ordered.begin(), ordered.end(), [](const Dispatch* a, const Dispatch* b) {
    return a->pid != b->pid ? a->pid < b->pid : a->dispatch_id < b->dispatch_id;
  });
  std::set<std::pair<int64_t, int64_t>> used;
  for (const Dispatch* c : ordered) {
    auto it = by_key.find({pid_unknown ? 0 : c->pid, c->dispatch_id});
    if (it == by_key.end()) return std::nullopt;
    const Dispatch& t = *it->second;
    const KernelShape &ts = trace.shape(t), &cs = counters.shape(*c);
    if (t.name != c->name || ts.grid_product() != cs.grid_product() ||
        ts.wg_product() != cs.wg_product())
      return std::nullopt;
    const bool timed = c->start_ns != 0 || c->end_ns != 0;
    if (timed ? (t.start_ns != c->start_ns || t.end_ns != c->end_ns) : c->pid == 0 || pid_unknown)
      return std::nullopt;
    r.matches.push_back({{c->pid, c->dispatch_id}, {t.pid, t.dispatch_id}});
    used.insert({t.pid, t.dispatch_id});
  }
  std::set<uint32_t> names;
  for (const auto& c : counters.dispatches) names.insert(c.name);
  std::set<uint32_t> all_names;
  for (const auto& t : trace.dispatches) {
    all_names.insert(t.name);
    if (!names.count(t.name)) continue;
    ++r.trace_considered;
    if (!used.count({t.pid, t.dispatch_id})) r.unmatched_trace.push_back({t.pid, t.dispatch_id});
  }
  r.filtered = names.size() < all_names.size();
  StreamPair sp;
  sp.counter_pid = ordered.front()->pid;
  sp.trace_pid = pid_unknown ? 0 : ordered.front()->pid;
  sp.agent = counters.agent(*ordered.front());
  sp.counter_dispatches = counters.dispatches.size();
  sp.trace_considered = r.trace_considered;
  sp.matched = r.matches.size();
  r.streams.push_back(sp);
  return r;
}

// Monotone mapping and bounded jumps, over the matches of each (counter pid, trace pid) stream in
// counter program order. Distances are in Dispatch_Ids, which rocprofv3 assigns per process in
// enqueue order to every dispatch, traced or filtered out.
void check_join(JoinResult& r, int64_t jump_bound) {
  r.jump_bound = jump_bound;
  const std::set<size_t> restarts(r.repeat_starts.begin(), r.repeat_starts.end());
  for (size_t k = 1; k < r.matches.size(); ++k) {
    if (restarts.count(k)) continue;  // a repeated request starts again at the trace's start
    const auto& a = r.matches[k - 1];
    const auto& b = r.matches[k];
    if (a.counter.pid != b.counter.pid || a.trace.pid != b.trace.pid) continue;
    const int64_t dc = b.counter.dispatch_id - a.counter.dispatch_id;
    const int64_t dt = b.trace.dispatch_id - a.trace.dispatch_id;
    if (dc > 0 && dt <= 0) r.monotone = false;
    const int64_t excess = dt - std::max<int64_t>(dc, 1);
    if (jump_bound > 0 && excess > jump_bound) {
      ++r.jumps;
      r.max_jump = std::max(r.max_jump, excess);
    }
  }
}

}  // namespace

JoinResult join_pass(const PassData& trace, const PassData& counters, int64_t jump_bound) {
  if (auto by_id = join_by_id(trace, counters)) {
    check_join(*by_id, jump_bound);
    return *by_id;
  }
  JoinResult r;
  r.counter_total = counters.dispatches.size();

  std::unordered_set<uint32_t> counter_names, trace_names;
  for (const auto& d : counters.dispatches) counter_names.insert(d.name);
  for (const auto& d : trace.dispatches) trace_names.insert(d.name);
  r.filtered = counter_names.size() < trace_names.size();

  const auto tp = processes_of(trace, &counter_names);
  const auto cp = processes_of(counters, nullptr);
  std::vector<bool> counter_seen(cp.size(), false);

  std::unordered_map<std::tuple<uint32_t, int64_t, int64_t>, uint32_t, IdentityHash> ids;
  auto identity = [&](const PassData& pass, const Dispatch* d) {
    const KernelShape& s = pass.shape(*d);
    auto [it, _] = ids.try_emplace({d->name, s.grid_product(), s.wg_product()},
                                   static_cast<uint32_t>(ids.size()));
    return it->second;
  };

  std::vector<uint32_t> a, b;
  for (auto [t, c] : pair_processes(tp, cp)) {
    counter_seen[c - cp.data()] = true;
    for (const auto& [agent, cseq] : c->by_agent) {
      static const std::vector<const Dispatch*> k_empty;
      auto it = t->by_agent.find(agent);
      const auto& tseq = it == t->by_agent.end() ? k_empty : it->second;
      a.clear();
      b.clear();
      for (const auto* d : tseq) a.push_back(identity(trace, d));
      for (const auto* d : cseq) b.push_back(identity(counters, d));
      // Repeats of the request (a rotated run): k consecutive chunks, each onto the trace.
      size_t k = 1;
      if (!a.empty() && b.size() >= 2 * a.size()) {
        const size_t n = (b.size() + a.size() / 2) / a.size();
        const size_t off =
            b.size() > n * a.size() ? b.size() - n * a.size() : n * a.size() - b.size();
        if (off <= std::max<size_t>(2, a.size() / 100)) k = n;
      }
      r.repeats = std::max(r.repeats, static_cast<int>(k));
      std::vector<bool> tmatched(tseq.size(), false), cmatched(cseq.size(), false);
      size_t matched = 0;
      for (size_t chunk = 0; chunk < k; ++chunk) {
        const size_t from = chunk * b.size() / k, to = (chunk + 1) * b.size() / k;
        const std::vector<uint32_t> part(b.begin() + static_cast<std::ptrdiff_t>(from),
                                         b.begin() + static_cast<std::ptrdiff_t>(to));
        const auto pairs = lcs_pairs(a, part);
        if (chunk > 0 && !pairs.empty()) r.repeat_starts.push_back(r.matches.size());
        for (auto [i, jj] : pairs) {
          const size_t j = from + jj;
          tmatched[i] = cmatched[j] = true;
          r.matches.push_back({{c->pid, cseq[j]->dispatch_id}, {t->pid, tseq[i]->dispatch_id}});
        }
        matched += pairs.size();
      }
      StreamPair sp{c->pid, t->pid, agent, cseq.size(), tseq.size(), matched};
      r.streams.push_back(sp);
      r.trace_considered += tseq.size();
      for (size_t j = 0; j < cseq.size(); ++j)
        if (!cmatched[j]) r.unmatched_counter.push_back({c->pid, cseq[j]->dispatch_id});
      for (size_t i = 0; i < tseq.size(); ++i)
        if (!tmatched[i]) r.unmatched_trace.push_back({t->pid, tseq[i]->dispatch_id});
    }
    // Trace agents the counter process never used are unmatched trace work too.
    for (const auto& [agent, tseq] : t->by_agent) {
      if (c->by_agent.count(agent)) continue;
      r.trace_considered += tseq.size();
      for (const auto* d : tseq) r.unmatched_trace.push_back({t->pid, d->dispatch_id});
    }
  }
  for (size_t i = 0; i < cp.size(); ++i) {
    if (counter_seen[i]) continue;
    for (const auto& [agent, cseq] : cp[i].by_agent)
      for (const auto* d : cseq) r.unmatched_counter.push_back({cp[i].pid, d->dispatch_id});
  }
  check_join(r, jump_bound);
  return r;
}

}  // namespace kprof::analysis
