#include "core/analysis/join/join.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/structure/align.hpp"

namespace kprof::analysis {

PassJoinInput::PassJoinInput(const PassData& pass) : m_pass(pass), m_order(pass.dispatches.size()) {
  for (size_t i = 0; i < m_order.size(); ++i) m_order[i] = static_cast<uint32_t>(i);
  const auto& d = pass.dispatches;
  std::stable_sort(m_order.begin(), m_order.end(), [&](uint32_t a, uint32_t b) {
    return d[a].pid != d[b].pid ? d[a].pid < d[b].pid : d[a].dispatch_id < d[b].dispatch_id;
  });
}

std::unique_ptr<JoinInput::Cursor> PassJoinInput::rows() const {
  class Rows final : public Cursor {
   public:
    Rows(const PassData& p, const uint32_t* b, const uint32_t* e) : m_p(p), m_i(b), m_e(e) {}
    bool next(JoinRow& r) override {
      if (m_i == m_e) return false;
      r = JoinRow::of(m_p, m_p.dispatches[*m_i++]);
      return true;
    }

   private:
    const PassData& m_p;
    const uint32_t *m_i, *m_e;
  };
  return std::make_unique<Rows>(m_pass, m_order.data(), m_order.data() + m_order.size());
}

namespace {

struct Process {
  int64_t pid = 0;
  int64_t first_start = 0;
  size_t size = 0;
  std::map<int64_t, size_t> agents;  // dispatches per agent
};

// A pass's ranks as 0010_pass_ranks.sql defines them (per agent, its busiest process, ties to the
// lower pid); empty unless each is a process of its own (one driving two GPUs has no one agent).
std::map<int64_t, const Process*> ranks_of(const std::vector<Process>& ps) {
  std::map<int64_t, const Process*> out;
  for (const auto& p : ps)
    for (const auto& [agent, n] : p.agents) {
      const Process*& best = out[agent];
      const size_t most = best ? best->agents.at(agent) : 0;
      if (!best || n > most || (n == most && p.pid < best->pid)) best = &p;
    }
  std::set<const Process*> distinct;
  for (const auto& a : out) distinct.insert(a.second);
  if (distinct.size() != out.size()) out.clear();
  return out;
}

// Pairs processes of the two passes. Tensor-parallel workers start together in any order: when
// both passes have the same agents of two ranks or more, rank processes pair by agent (the worker
// of the same GPU). The others pair by start order when both have as many, otherwise largest with
// largest (a short helper process may exist in one rerun only).
std::vector<std::pair<const Process*, const Process*>> pair_processes(
    const std::vector<Process>& trace, const std::vector<Process>& counters) {
  std::vector<std::pair<const Process*, const Process*>> out;
  const auto tr = ranks_of(trace), cr = ranks_of(counters);
  std::set<const Process*> ranked;  // of both passes
  if (tr.size() >= 2 && tr.size() == cr.size() &&
      std::equal(tr.begin(), tr.end(), cr.begin(),
                 [](const auto& a, const auto& b) { return a.first == b.first; }))
    for (const auto& [agent, c] : cr) {
      out.emplace_back(tr.at(agent), c);
      ranked.insert({tr.at(agent), c});
    }
  std::vector<const Process*> t, c;  // the others, in start order
  for (const auto& p : trace)
    if (!ranked.count(&p)) t.push_back(&p);
  for (const auto& p : counters)
    if (!ranked.count(&p)) c.push_back(&p);
  if (t.size() != c.size()) {
    const auto larger = [](const Process* a, const Process* b) { return a->size > b->size; };
    std::stable_sort(t.begin(), t.end(), larger);
    std::stable_sort(c.begin(), c.end(), larger);
  }
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
// Launch identities (kernel, grid, workgroup) interned to small numbers, shared by both passes.
using Identities =
    std::unordered_map<std::tuple<uint32_t, int64_t, int64_t>, uint32_t, IdentityHash>;

// One agent's dispatches of a process, in program order: their ids and launch identities.
struct Stream {
  explicit Stream(size_t memory_bytes) : ids(memory_bytes), identity(memory_bytes) {}
  SpillVector<int64_t> ids;
  SpillVector<uint32_t> identity;
};

// What one scan of a pass gives the join: its processes (first start and size), the names it
// holds, and each process's streams by agent (only the dispatches of `keep` names when given).
// A stream holds one block in memory while it is appended (about memory_bytes / 7), the rest
// spilled, so the streams of every process fit beside the pair being aligned.
// The runs of consecutive Dispatch_Ids a process's rows hold (every kernel, every agent): the
// windows of its trace. Ids outside them were not traced. At most k_max_runs per process: a trace
// with holes everywhere (a kernel filter) keeps none, and its whole id range counts as traced.
using IdRuns = std::vector<std::pair<int64_t, int64_t>>;
constexpr size_t k_max_runs = 4096;

struct PassScan {
  std::vector<Process> processes;  // in start order
  std::unordered_set<uint32_t> names;
  size_t size = 0;
  std::map<int64_t, std::map<int64_t, Stream>> streams;  // pid -> agent -> stream
  std::map<int64_t, IdRuns> traced;                      // pid -> its id runs (see IdRuns)
};

PassScan scan(const JoinInput& in, const std::unordered_set<uint32_t>* keep, Identities& ids,
              size_t memory_bytes) {
  PassScan out;
  std::map<int64_t, Process> by_pid;
  JoinRow r;
  std::map<int64_t, Stream>* agents = nullptr;
  int64_t agents_pid = 0;
  for (auto c = in.rows(); c->next(r);) {
    auto& p = by_pid[r.pid];
    if (p.size == 0 || r.start_ns < p.first_start) p.first_start = r.start_ns;
    p.pid = r.pid;
    ++p.size;  // process size counts every dispatch, so pairing does not depend on the filter
    ++p.agents[r.agent];
    out.names.insert(r.name);
    ++out.size;
    if (auto& runs = out.traced[r.pid]; runs.size() <= k_max_runs) {
      if (!runs.empty() && r.dispatch_id >= runs.back().first &&
          r.dispatch_id <= runs.back().second + 1)
        runs.back().second = std::max(runs.back().second, r.dispatch_id);
      else
        runs.push_back({r.dispatch_id, r.dispatch_id});
    }
    if (keep && !keep->count(r.name)) continue;
    if (!agents || agents_pid != r.pid) {  // rows come process by process
      agents = &out.streams[r.pid];
      agents_pid = r.pid;
    }
    auto it = agents->try_emplace(r.agent, memory_bytes).first;
    auto [id, _] = ids.try_emplace({r.name, r.grid, r.wg}, static_cast<uint32_t>(ids.size()));
    it->second.ids.push_back(r.dispatch_id);
    it->second.identity.push_back(id->second);
  }
  for (auto& [pid, p] : by_pid) out.processes.push_back(p);
  // Processes start in the same order in every rerun (vLLM's engine first, then its worker).
  std::sort(out.processes.begin(), out.processes.end(), [](const Process& x, const Process& y) {
    return x.first_start != y.first_start ? x.first_start < y.first_start : x.pid < y.pid;
  });
  return out;
}

// The by-id join of a counter pass written by the trace's own invocation: nullopt unless every
// counter dispatch has its trace twin (same id, kernel, grid and workgroup products, and the same
// start and end times; without times, the same non-zero pid). A trace without pids (files named
// `-o NAME`, no Process_Id column) stands for the one process of the counter pass. Both passes
// are read once, side by side in (pid, Dispatch_Id) order.
std::optional<JoinResult> join_by_id(const JoinInput& trace, const JoinInput& counters,
                                     const PassScan& ts, const PassScan& cs, size_t memory_bytes) {
  if (cs.size == 0) return std::nullopt;
  const bool pid_unknown =
      ts.processes.size() == 1 && ts.processes[0].pid == 0 && cs.processes.size() == 1;
  // Another run has other pids: no counter process may be missing from the trace.
  if (!pid_unknown)
    for (const auto& c : cs.processes)
      if (std::none_of(ts.processes.begin(), ts.processes.end(),
                       [&](const Process& t) { return t.pid == c.pid; }))
        return std::nullopt;
  JoinResult r(memory_bytes);
  r.method = store::JoinMethod::by_id;
  r.counter_total = cs.size;
  auto tc = trace.rows();
  JoinRow t;
  bool have_t = tc->next(t), t_used = false;
  // Every trace row is passed once: counted when the counter pass holds its kernel, and unmatched
  // unless a counter row took it.
  auto pass_trace = [&]() {
    if (cs.names.count(t.name)) {
      ++r.trace_considered;
      if (!t_used) r.unmatched_trace.push_back({t.pid, t.dispatch_id});
    }
    t_used = false;
    have_t = tc->next(t);
  };
  std::optional<JoinRow> first;
  JoinRow c;
  for (auto cc = counters.rows(); cc->next(c);) {
    if (!first) first = c;
    const std::pair<int64_t, int64_t> want{pid_unknown ? 0 : c.pid, c.dispatch_id};
    while (have_t && std::pair(t.pid, t.dispatch_id) < want) pass_trace();
    if (!have_t || std::pair(t.pid, t.dispatch_id) != want) return std::nullopt;
    if (t.name != c.name || t.grid != c.grid || t.wg != c.wg) return std::nullopt;
    const bool timed = c.start_ns != 0 || c.end_ns != 0;
    if (timed ? (t.start_ns != c.start_ns || t.end_ns != c.end_ns) : c.pid == 0 || pid_unknown)
      return std::nullopt;
    r.matches.push_back({{c.pid, c.dispatch_id}, {t.pid, t.dispatch_id}});
    t_used = true;
  }
  while (have_t) pass_trace();
  r.filtered = cs.names.size() < ts.names.size();
  StreamPair sp;
  sp.counter_pid = first->pid;
  sp.trace_pid = pid_unknown ? 0 : first->pid;
  sp.agent = first->agent;
  sp.counter_dispatches = cs.size;
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
  size_t restart = 0;  // index into repeat_starts of the next restart
  std::optional<JoinMatch> prev;
  size_t k = 0;
  for (const JoinMatch& b : r.matches) {
    const size_t at = k++;
    const std::optional<JoinMatch> a = prev;
    prev = b;
    // A repeated request starts again at the trace's start (repeat_starts: strictly increasing,
    // each chunk's first match).
    const bool restarts = restart < r.repeat_starts.size() && r.repeat_starts[restart] == at;
    if (restarts) ++restart;
    if (!a || restarts) continue;
    if (a->counter.pid != b.counter.pid || a->trace.pid != b.trace.pid) continue;
    const int64_t dc = b.counter.dispatch_id - a->counter.dispatch_id;
    const int64_t dt = b.trace.dispatch_id - a->trace.dispatch_id;
    if (dc > 0 && dt <= 0) r.monotone = false;
    const int64_t excess = dt - std::max<int64_t>(dc, 1);
    if (jump_bound > 0 && excess > jump_bound) {
      ++r.jumps;
      r.max_jump = std::max(r.max_jump, excess);
    }
  }
}

// Whether every counter dispatch whose id shifted by `d` was traced has a trace dispatch of that id
// with its identity (the trace stream holds only the counter pass's kernels, so a traced id
// missing there ran another kernel: the offset is refused). An id is traced when it lies in one of
// the trace process's runs of consecutive ids (`traced`, its windows; null or empty: between its
// first and last id): an id in a hole between windows ran but was not traced, no proof either
// way. `agree`: the pairs proven. Stops at the first pair that fails.
bool offset_holds(const Stream& ts, const Stream& cs, int64_t d, const IdRuns* traced,
                  size_t& agree) {
  agree = 0;
  const size_t na = ts.ids.size();
  if (na == 0) return false;
  const int64_t lo = ts.ids.front(), hi = ts.ids.back();
  const bool runs = traced && !traced->empty() && traced->size() <= k_max_runs;
  size_t i = 0, run = 0;
  for (size_t j = 0; j < cs.ids.size(); ++j) {
    const int64_t want = cs.ids[j] + d;
    if (want < lo || want > hi) continue;
    if (runs) {
      while (run < traced->size() && (*traced)[run].second < want) ++run;
      if (run == traced->size() || want < (*traced)[run].first) continue;  // not traced
    }
    while (i < na && ts.ids[i] < want) ++i;
    if (i == na || ts.ids[i] != want || ts.identity[i] != cs.identity[j]) return false;
    ++agree;
  }
  return agree > 0;
}

// The constant Dispatch_Id offset that maps the counter stream onto the trace stream exactly, if
// one does: tried are 0 (a rerun numbers as the trace did) and the offsets that pair one of the
// first counter dispatches with one of the first trace dispatches of its identity (a rerun that
// launched some kernels more or fewer before). It must prove at least half of the shorter stream.
// Offset 0 wins whenever it holds: the same program numbers the same launch with the same id, and
// an offset of a whole step that proves a pair more is the next step's launches, not these. Among
// the others the most pairs win, then the smallest offset.
std::optional<int64_t> exact_offset(const Stream& ts, const Stream& cs, const IdRuns* traced) {
  constexpr size_t k_heads = 4, k_occurrences = 16;
  const size_t na = ts.ids.size(), nb = cs.ids.size();
  if (na == 0 || nb == 0) return std::nullopt;
  if (size_t agree = 0; offset_holds(ts, cs, 0, traced, agree) && 2 * agree >= std::min(na, nb))
    return 0;
  std::set<int64_t> candidates{0};
  for (size_t j = 0; j < std::min(nb, k_heads); ++j) {
    size_t found = 0;
    for (size_t i = 0; i < na && found < k_occurrences; ++i)
      if (ts.identity[i] == cs.identity[j]) {
        candidates.insert(ts.ids[i] - cs.ids[j]);
        ++found;
      }
  }
  std::optional<int64_t> best;
  size_t best_agree = 0;
  for (const int64_t d : candidates) {
    size_t agree = 0;
    if (!offset_holds(ts, cs, d, traced, agree) || 2 * agree < std::min(na, nb)) continue;
    const auto closer = [&] { return d < 0 ? -d < std::abs(*best) : d < std::abs(*best); };
    if (!best || agree > best_agree || (agree == best_agree && closer())) {
      best = d;
      best_agree = agree;
    }
  }
  return best;
}

// Records the mapping of counter stream `cs` onto trace stream `ts` under offset `d` (offset_holds
// proved every pair in range).
void match_by_offset(const Stream& ts, const Stream& cs, int64_t d, int64_t trace_pid,
                     int64_t counter_pid, int64_t agent, JoinResult& r) {
  const size_t na = ts.ids.size(), nb = cs.ids.size();
  std::vector<bool> tmatched(na, false);
  size_t i = 0, matched = 0;
  for (size_t j = 0; j < nb; ++j) {
    const int64_t want = cs.ids[j] + d;
    while (i < na && ts.ids[i] < want) ++i;
    if (i < na && ts.ids[i] == want) {
      tmatched[i] = true;
      ++matched;
      r.matches.push_back({{counter_pid, cs.ids[j]}, {trace_pid, want}});
    } else {
      r.unmatched_counter.push_back({counter_pid, cs.ids[j]});
    }
  }
  r.streams.push_back({counter_pid, trace_pid, agent, nb, na, matched});
  r.trace_considered += na;
  for (size_t k = 0; k < na; ++k)
    if (!tmatched[k]) r.unmatched_trace.push_back({trace_pid, ts.ids[k]});
  if (r.offset_streams++ == 0) r.offset = d;
}

// Aligns one agent's stream of a counter process onto the trace process's (empty when the trace
// process never used that agent), by a constant offset when one proves itself.
void align_stream(const Stream& ts, const Stream& cs, const IdRuns* traced, int64_t trace_pid,
                  int64_t counter_pid, int64_t agent, JoinResult& r) {
  const size_t na = ts.identity.size(), nb = cs.identity.size();
  // A stream k times the trace's (a repeated request) is aligned chunk by chunk below.
  if (nb < 2 * na || na == 0)
    if (const auto d = exact_offset(ts, cs, traced)) {
      match_by_offset(ts, cs, *d, trace_pid, counter_pid, agent, r);
      return;
    }
  // Repeats of the request (a rotated run): k consecutive chunks, each onto the trace.
  size_t k = 1;
  if (na > 0 && nb >= 2 * na) {
    const size_t n = (nb + na / 2) / na;
    const size_t off = nb > n * na ? nb - n * na : n * na - nb;
    if (off <= std::max<size_t>(2, na / 100)) k = n;
  }
  r.repeats = std::max(r.repeats, static_cast<int>(k));
  std::vector<bool> tmatched(na, false), cmatched(nb, false);
  size_t matched = 0;
  for (size_t chunk = 0; chunk < k; ++chunk) {
    const size_t from = chunk * nb / k, to = (chunk + 1) * nb / k;
    const size_t before = r.matches.size();
    bool first = true;
    lcs_for_each(ts.identity, 0, na, cs.identity, from, to, [&](size_t i, size_t jj) {
      if (first && chunk > 0) r.repeat_starts.push_back(before);
      first = false;
      const size_t j = from + jj;
      tmatched[i] = cmatched[j] = true;
      r.matches.push_back({{counter_pid, cs.ids[j]}, {trace_pid, ts.ids[i]}});
    });
    matched += r.matches.size() - before;
  }
  r.streams.push_back({counter_pid, trace_pid, agent, nb, na, matched});
  r.trace_considered += na;
  for (size_t j = 0; j < nb; ++j)
    if (!cmatched[j]) r.unmatched_counter.push_back({counter_pid, cs.ids[j]});
  for (size_t i = 0; i < na; ++i)
    if (!tmatched[i]) r.unmatched_trace.push_back({trace_pid, ts.ids[i]});
}

}  // namespace

JoinResult join_pass(const PassData& trace, const PassData& counters, int64_t jump_bound) {
  return join_pass(PassJoinInput(trace), PassJoinInput(counters), jump_bound, 0);
}

JoinResult join_pass(const JoinInput& trace, const JoinInput& counters, int64_t jump_bound,
                     size_t memory_bytes) {
  // One scan of each pass: the counter pass's first (its names are the trace's filter).
  Identities ids;
  const PassScan cs = scan(counters, nullptr, ids, memory_bytes);
  const PassScan ts = scan(trace, &cs.names, ids, memory_bytes);
  if (auto by_id = join_by_id(trace, counters, ts, cs, memory_bytes)) {
    check_join(*by_id, jump_bound);
    return std::move(*by_id);
  }
  JoinResult r(memory_bytes);
  r.counter_total = cs.size;
  r.filtered = cs.names.size() < ts.names.size();

  // Process pair by process pair, agent by agent: the trace process's dispatches of the counter
  // pass's kernels against the counter process's.
  static const std::map<int64_t, Stream> k_none;
  auto streams = [](const PassScan& p, int64_t pid) -> const std::map<int64_t, Stream>& {
    auto it = p.streams.find(pid);
    return it == p.streams.end() ? k_none : it->second;
  };
  std::vector<bool> counter_seen(cs.processes.size(), false);
  const Stream no_stream(0);
  for (auto [t, c] : pair_processes(ts.processes, cs.processes)) {
    counter_seen[static_cast<size_t>(c - cs.processes.data())] = true;
    const auto& tstreams = streams(ts, t->pid);
    const auto& cstreams = streams(cs, c->pid);
    for (const auto& [agent, cseq] : cstreams) {
      auto it = tstreams.find(agent);
      const auto runs = ts.traced.find(t->pid);
      align_stream(it == tstreams.end() ? no_stream : it->second, cseq,
                   runs == ts.traced.end() ? nullptr : &runs->second, t->pid, c->pid, agent, r);
    }
    // Trace agents the counter process never used are unmatched trace work too.
    for (const auto& [agent, tseq] : tstreams) {
      if (cstreams.count(agent)) continue;
      r.trace_considered += tseq.ids.size();
      for (const int64_t id : tseq.ids) r.unmatched_trace.push_back({t->pid, id});
    }
  }
  for (size_t i = 0; i < cs.processes.size(); ++i) {
    if (counter_seen[i]) continue;
    const int64_t pid = cs.processes[i].pid;
    for (const auto& [agent, cseq] : streams(cs, pid))
      for (const int64_t id : cseq.ids) r.unmatched_counter.push_back({pid, id});
  }
  if (r.offset_streams > 0 && r.offset_streams == r.streams.size())
    r.method = store::JoinMethod::offset;
  check_join(r, jump_bound);
  return r;
}

}  // namespace kprof::analysis
