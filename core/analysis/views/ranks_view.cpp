// `ranks`: a tensor-parallel pass rank by rank (structure/ranks.hpp), and the rank structure line
// of `explain`.
#include <algorithm>
#include <sstream>

#include "core/analysis/structure/ranks.hpp"
#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/views.hpp"
#include "core/base/text.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::analysis {

namespace {

double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// "agents 1-4" for consecutive agents, else "agents 1, 3, 6".
std::string agents_text(const std::vector<store::PassRank>& ranks) {
  std::vector<int64_t> a;
  for (const auto& r : ranks) a.push_back(r.agent);
  bool consecutive = true;
  for (size_t i = 1; i < a.size(); ++i) consecutive = consecutive && a[i] == a[i - 1] + 1;
  if (a.size() > 2 && consecutive)
    return "GPU agents " + std::to_string(a.front()) + "-" + std::to_string(a.back());
  std::vector<std::string> parts;
  for (auto v : a) parts.push_back(std::to_string(v));
  return "GPU agents " + join(parts, ", ");
}

std::string matching_claim(const RankAnalysis& ra) {
  std::vector<std::string> counts;
  for (const auto& r : ra.ranks) counts.push_back(std::to_string(r.collectives));
  std::string s =
      "collectives matched by ordinal (the k-th collective of every rank is one "
      "collective under tensor parallelism) ";
  if (ra.counts_equal && ra.ranks.front().collectives == 0)
    return s + "[unknown]: no rank ran a collective";
  if (ra.counts_equal && ra.family_mismatches == 0)
    return s + "[high]: every rank ran " + counts.front() +
           " collectives, the same family at every ordinal";
  if (!ra.counts_equal)
    s += "[low]: the ranks ran " + join(counts, ", ") +
         " collectives (rank order); only the first " + std::to_string(ra.matched) +
         " of each are matched";
  else
    s += "[low]: every rank ran " + counts.front() + " collectives";
  if (ra.family_mismatches > 0)
    s += "; at " + std::to_string(ra.family_mismatches) +
         " matched ordinals the ranks ran different collective families";
  return s;
}

void skew_notes(const RankAnalysis& ra, std::vector<std::string>& notes) {
  if (ra.skew_ns.empty()) {
    notes.push_back("no collective is matched on every rank: no arrival skew");
    return;
  }
  const SkewStats s = skew_stats(ra.skew_ns);
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << "arrival skew (last rank's start - first rank's start) over " << ra.matched
     << " matched collectives: mean " << s.mean_ns << " ns, median " << s.median_ns << " ns, p95 "
     << s.p95_ns << " ns, max " << s.max_ns << " ns";
  notes.push_back(os.str());
  const auto last = std::max_element(ra.ranks.begin(), ra.ranks.end(), [](auto& a, auto& b) {
    return a.last_arrivals < b.last_arrivals;
  });
  int64_t waited = 0;
  for (auto w : ra.wait_ns) waited += w;
  std::ostringstream l;
  l.precision(1);
  l << std::fixed << "rank " << last->rank.rank << " (GPU agent " << last->rank.agent
    << ") arrived last most often: at " << last->last_arrivals << " of " << ra.matched << " ("
    << pct(last->last_arrivals, ra.matched) << "%); the other ranks waited " << last->wait_caused_ns
    << " ns for it there, of " << waited << " ns waited at all matched collectives";
  notes.push_back(l.str());
}

}  // namespace

Table ranks_table(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                  bool structured) {
  Table t;
  t.title = "ranks of the trace pass: compute, collectives, exposed communication, arrival skew";
  t.simulated = rt.run.simulated;
  t.run_id = rt.run.id;
  // One rank: answered from the counts the loader kept, without reading its dispatches.
  if (const auto ranks = store::pass_ranks(db, rt.trace.id); ranks.size() < 2) {
    t.columns = {"answer"};
    t.rows.push_back({ranks.empty()
                          ? std::string("no rank: the trace pass has no dispatch")
                          : "1 rank (pid " + std::to_string(ranks[0].pid) + ", GPU agent " +
                                std::to_string(ranks[0].agent) + "): nothing to compare"});
    return t;
  }
  const RankAnalysis ra = analyze_ranks(db, rt.trace.id, rules, CollectiveRules::load_default());
  // Short names: the text table fits a 120-column terminal with 7-digit pids and times of up to
  // 10 s in ns; the span (equal on every rank of one clock, up to the ranks' ends) is in the
  // last note there, and a column of the machine formats (docs/ranks.md says what each is).
  t.columns = {"rank",    "pid",        "agent",   "kernels", "busy_ns", "compute_ns",
               "coll_ns", "exposed_ns", "exp_pct", "colls",   "last_at", "made_wait_ns"};
  if (structured) t.columns.insert(t.columns.begin() + 9, "span_ns");
  if (structured) t.columns.push_back("exposed_span_pct");
  int64_t min_span = ra.ranks[0].span_ns(), max_span = min_span;
  for (const auto& r : ra.ranks) {
    std::vector<Cell> row{static_cast<int64_t>(r.rank.rank),
                          r.rank.pid,
                          r.rank.agent,
                          r.kernels,
                          r.busy_ns,
                          r.compute_ns,
                          r.collective_ns,
                          r.exposed_ns,
                          pct(r.exposed_ns, r.busy_ns),
                          r.collectives,
                          r.last_arrivals,
                          r.wait_caused_ns};
    if (structured) row.insert(row.begin() + 9, Cell{r.span_ns()});
    if (structured) row.emplace_back(std::in_place_type<double>, pct(r.exposed_ns, r.span_ns()));
    t.rows.push_back(std::move(row));
    min_span = std::min(min_span, r.span_ns());
    max_span = std::max(max_span, r.span_ns());
  }
  std::vector<store::PassRank> ranks;
  for (const auto& r : ra.ranks) ranks.push_back(r.rank);
  t.notes.push_back(std::to_string(ranks.size()) + " ranks (" + agents_text(ranks) +
                    "): a rank is one GPU agent and the process with the most dispatches on it; "
                    "ranks on one node share one clock, so their times are compared as recorded");
  for (const auto& [family, c] : ra.collective_families)
    t.notes.push_back("collective family " + family + " (" + c.kind.library + ", " + c.kind.op +
                      "): " + std::to_string(c.launches) + " launches over all ranks");
  if (ra.collective_families.empty())
    t.notes.push_back("no kernel of the trace is a collective (configs/families/collectives.yaml)");
  t.notes.push_back(matching_claim(ra));
  skew_notes(ra, t.notes);
  t.notes.push_back(
      "exposed_ns: collective time not overlapped by the rank's other kernels on its GPU (any "
      "queue); exp_pct is of busy_ns; last_at: matched collectives the rank started last; "
      "made_wait_ns: the other ranks' wait at those. Steps are found on the main stream only "
      "(phases), so per-rank step time is not established: the span (first start to last end, "
      "span_ns in --format csv|json) stands for it, spread over ranks " +
      std::to_string(max_span - min_span) + " ns (max " + std::to_string(max_span) + ", min " +
      std::to_string(min_span) + ")");
  return t;
}

std::optional<RankLanes> rank_lanes_of(store::CaptureDb& db, const RunTrace& rt,
                                       const FamilyRules& rules) {
  if (store::pass_ranks(db, rt.trace.id).size() < 2) return std::nullopt;
  const CollectiveRules collectives = CollectiveRules::load_default();
  const RankAnalysis ra = analyze_ranks(db, rt.trace.id, rules, collectives);
  if (ra.widest.ordinal < 0) return std::nullopt;
  RankLanes out;
  for (const auto& r : ra.ranks)
    out.lanes.push_back("rank " + std::to_string(r.rank.rank) + " (GPU agent " +
                        std::to_string(r.rank.agent) + ")");
  out.from_ns = ra.widest.from_ns;
  out.to_ns = ra.widest.to_ns;
  out.ordinal = ra.widest.ordinal + 1;
  out.matched = ra.matched;
  out.skew_ns = ra.skew_ns[static_cast<size_t>(ra.widest.ordinal)];
  out.slices = rank_lanes(db, ra, rules, collectives, out.from_ns, out.to_ns);
  return out;
}

std::optional<RankLanes> QueryContext::rank_lanes() {
  return rank_lanes_of(m_db, run_trace_of(m_cap), m_rules);
}

namespace {

// "2 all-reduces", "1 all-reduce".
std::string op_count(int64_t n, const std::string& op) {
  const std::string one = op == "all_reduce"   ? "all-reduce"
                          : op == "all_to_all" ? "all-to-all"
                                               : "collective";
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

// "each decode step = 48 layers × 2 all-reduces (vllm custom all-reduce: <family>, ...)", from
// the collective family's launches in the steps of its phase with the most steps (decode, in an
// LLM run) on the main stream (explain's group), or "" when they do not divide by the steps.
std::string per_step_text(const FamilyExplain& fe, const CollectiveKind& kind) {
  const ExplainGroup* best = nullptr;
  for (const auto& g : fe.groups)
    if (g.steps > 0 && (!best || g.steps > best->steps)) best = &g;
  if (!best) return "";
  int64_t launches = 0;
  for (auto c : best->counts) launches += c;
  if (launches % best->steps != 0) return "";
  const int64_t per_step = launches / best->steps;
  // "each decode step", "each step" (a repeated step whose role is not known).
  std::string s = "each " +
                  (best->phase == Phase::step ? "" : std::string(to_string(best->phase)) + " ") +
                  "step = ";
  if (best->layers > 0 && per_step % best->layers == 0)
    s += std::to_string(best->layers) + " layers × " + op_count(per_step / best->layers, kind.op);
  else
    s += op_count(per_step, kind.op);
  return s + " (" + kind.library + ": " + fe.family + ", " + std::to_string(launches) +
         " launches in " + std::to_string(best->steps) + " steps)";
}

}  // namespace

std::vector<std::string> rank_structure_lines(store::CaptureDb& db, const Capture& cap,
                                              const TraceModel& model) {
  const auto ranks = store::pass_ranks(db, cap.trace.pass_id);
  if (ranks.size() < 2) return {};
  const CollectiveRules collectives = CollectiveRules::load_default();
  // Collective launches per rank, counted on the loaded trace (family per name id, once).
  std::vector<int> kind_of_name(model.family_of_name.size(), -1);
  std::map<std::string, CollectiveKind> collective_families;  // family -> its kind
  for (size_t n = 0; n < model.family_of_name.size(); ++n) {
    const auto kind = collectives.kind_of_kernel(model.names->name(static_cast<uint32_t>(n)),
                                                 model.family_of_name[n]);
    kind_of_name[n] = kind ? 1 : 0;
    if (kind) collective_families.emplace(model.family_of_name[n], *kind);
  }
  std::vector<int64_t> per_rank(ranks.size(), 0);
  const auto count = [&](const Dispatch& d, int64_t agent) {
    if (d.name >= kind_of_name.size() || kind_of_name[d.name] != 1) return;
    for (size_t r = 0; r < ranks.size(); ++r)
      if (ranks[r].pid == d.pid && ranks[r].agent == agent) ++per_rank[r];
  };
  if (!cap.trace.dispatches.empty()) {
    for (const auto& d : cap.trace.dispatches) count(d, cap.trace.agent(d));
  } else {
    // A bounded session holds no trace dispatch (QueryContext::bounded): they are read again.
    // Its names and lanes copied, so that names and lanes are interned to the same ids.
    PassData pass = cap.trace;
    pass.shapes.clear();
    NameTable names = cap.names;
    for_each_stored_dispatch(db, pass, names, [&](const Dispatch& d) { count(d, pass.agent(d)); });
  }
  std::vector<std::string> counts;
  for (auto c : per_rank) counts.push_back(std::to_string(c));
  std::string line = std::to_string(ranks.size()) + " ranks (" + agents_text(ranks) +
                     "), collectives per rank " + join(counts, ", ");
  std::vector<std::string> steps;
  for (const auto& fe : explain(model))
    if (const auto it = collective_families.find(fe.family); it != collective_families.end())
      if (auto s = per_step_text(fe, it->second); !s.empty()) steps.push_back(std::move(s));
  if (!steps.empty()) line += ": " + join(steps, "; ");
  return {line + " (`kprof query DB ranks` compares the ranks)"};
}

Table QueryContext::ranks(const ViewOptions& o) {
  Table t = ranks_table(m_db, run_trace_of(m_cap), m_rules, o.structured);
  if (!o.family.empty() || o.phase)
    t.notes.push_back(
        "--family and --phase do not apply to ranks: every kernel of the trace pass "
        "is counted");
  return t;
}

}  // namespace kprof::analysis
