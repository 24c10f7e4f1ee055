#include "core/report/compare.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/analysis/structure/explain.hpp"
#include "core/base/error.hpp"
#include "core/report/report_model.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;

size_t col(const Table& t, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  if (it == t.columns.end())
    throw Error::runtime("view '" + t.title + "' has no column '" + name + "'",
                         "a kprof bug: compare reads a column the view no longer has");
  return static_cast<size_t>(it - t.columns.begin());
}

std::optional<double> num(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return std::nullopt;
}

Cell delta(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return {};
  return *b - *a;
}
// Counts stay integers (launches, summed nanoseconds).
Cell delta(const Cell& a, const Cell& b) {
  const auto* x = std::get_if<int64_t>(&a);
  const auto* y = std::get_if<int64_t>(&b);
  if (x && y) return *y - *x;
  return delta(num(a), num(b));
}
Cell pct(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *a == 0) return {};
  return 100.0 * (*b - *a) / *a;
}
Cell opt(std::optional<double> v) { return v ? Cell(*v) : Cell(); }

// Launches of one family in one phase, and how they factor.
struct PhaseCount {
  int64_t launches = 0;
  int steps = 0;
  int64_t per_step = 0;  // launches per step over all variants (0: does not factor)
  int layers = 0;
};
using FamilyPhases = std::map<an::Phase, PhaseCount>;

std::map<std::string, FamilyPhases> family_phases(const an::TraceModel& m) {
  std::map<std::string, FamilyPhases> out;
  for (const auto& fe : an::explain(m)) {
    auto& fp = out[fe.family];
    std::map<an::Phase, bool> factors;
    for (const auto& g : fe.groups) {
      auto& pc = fp[g.phase];
      int64_t n = 0;
      for (auto c : g.counts) n += c;
      pc.launches += n;
      pc.steps = g.steps;
      pc.layers = std::max(pc.layers, g.layers);
      auto [it, fresh] = factors.try_emplace(g.phase, true);
      it->second = it->second && g.per_step > 0;
      pc.per_step += g.per_step * static_cast<int64_t>(g.counts.size());
    }
    for (auto& [p, pc] : fp)
      if (!factors[p]) pc.per_step = 0;
  }
  return out;
}

std::string signed_text(int64_t v) { return (v > 0 ? "+" : "") + std::to_string(v); }

// "decode: 63 → 31 steps × 96 launches per step (-3072)"; phases whose counts are equal are left
// out; a change that steps do not explain says so.
std::string explain_change(const FamilyPhases& a, const FamilyPhases& b) {
  std::set<an::Phase> phases;
  for (const auto& [p, c] : a) phases.insert(p);
  for (const auto& [p, c] : b) phases.insert(p);
  std::string out;
  for (const auto p : phases) {
    const auto ia = a.find(p), ib = b.find(p);
    const PhaseCount ca = ia == a.end() ? PhaseCount{} : ia->second;
    const PhaseCount cb = ib == b.end() ? PhaseCount{} : ib->second;
    if (ca.launches == cb.launches) continue;
    std::string s = std::string(an::to_string(p)) + ": ";
    const int64_t d = cb.launches - ca.launches;
    if (ia == a.end() || ib == b.end()) {
      s += std::string(ia == a.end() ? "only in B" : "only in A") + " (" + signed_text(d) + ")";
    } else if (ca.per_step && cb.per_step && ca.per_step == cb.per_step && ca.steps != cb.steps) {
      s += std::to_string(ca.steps) + " → " + std::to_string(cb.steps) + " steps × " +
           std::to_string(ca.per_step) + " launches per step";
      if (ca.layers && ca.layers == cb.layers && ca.per_step % ca.layers == 0)
        s += " (" + std::to_string(ca.layers) + " layers × " +
             std::to_string(ca.per_step / ca.layers) + ")";
      s += " = " + signed_text(d);
    } else if (ca.per_step && cb.per_step && ca.steps == cb.steps) {
      s += "same " + std::to_string(ca.steps) + " steps, launches per step " +
           std::to_string(ca.per_step) + " → " + std::to_string(cb.per_step) + " (" +
           signed_text(d) + ")";
    } else {
      s += std::to_string(ca.launches) + " → " + std::to_string(cb.launches) + " (" +
           signed_text(d) + "), not explained by whole steps";
    }
    out += (out.empty() ? "" : "; ") + s;
  }
  return out;
}

struct Workload {
  std::string arch, label;
  bool simulated = false;
  int prefill = 0, decode = 0, role_unknown = 0, layers = 0;
  size_t dispatches = 0;
  std::string runbook_sha, runbook_path;
  std::optional<int64_t> seed;
};

Workload workload(an::QuerySession& s, const std::string& label) {
  const auto& cap = s.trace_capture();
  const auto& pm = s.model().phases;
  Workload w;
  w.arch = cap.arch;
  w.label = label;
  // The run's stored provenance (runs.simulated), set when it was run or ingested.
  w.simulated = cap.run.simulated;
  w.prefill = pm.prefill_steps;
  w.decode = pm.decode_steps;
  w.role_unknown = pm.role_unknown_steps;
  w.layers = pm.layers;
  w.dispatches = static_cast<size_t>(s.trace_dispatches());
  w.runbook_sha = cap.run.runbook_sha256;
  w.runbook_path = cap.run.runbook_path;
  w.seed = cap.run.seed;
  return w;
}

std::string steps_text(const Workload& w) {
  std::string s = std::to_string(w.prefill) + " prefill + " + std::to_string(w.decode) + " decode";
  if (w.role_unknown) s += " + " + std::to_string(w.role_unknown) + " repeated (role unknown)";
  return s + " steps, " + (w.layers ? std::to_string(w.layers) : std::string("no")) + " layers";
}

// The key of a variant across runs: everything that defines it but the per-run Kernel_Id.
// Name, grid, workgroup, LDS, scratch, then the register counts (nullopt where not reported).
using VariantKey =
    std::tuple<std::string, std::string, std::string, int64_t, int64_t, std::optional<int64_t>,
               std::optional<int64_t>, std::optional<int64_t>>;

std::map<std::string, VariantKey> variant_keys(const an::QuerySession& s) {
  std::map<std::string, VariantKey> out;
  const auto& m = s.model();
  auto dims = [](const int64_t v[3]) {
    return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
  };
  for (const auto& v : m.variants)
    out[std::to_string(v.index)] = {
        m.names->name(v.name), dims(v.grid), dims(v.wg), v.lds, v.scratch, v.vgpr, v.agpr, v.sgpr};
  return out;
}

// Refuses runs on different targets unless forced, and says how the two workloads differ.
std::vector<std::string> workload_notes(const Workload& wa, const Workload& wb, bool force) {
  if (wa.arch != wb.arch && !force)
    throw Error::input(
        "A and B ran on different targets (" + (wa.arch.empty() ? "unknown" : wa.arch) + " and " +
            (wb.arch.empty() ? "unknown" : wb.arch) + "): their times and rates are not comparable",
        "add --force to compare them anyway");
  std::vector<std::string> w;
  w.push_back("A: " + wa.label + ": " + (wa.arch.empty() ? "unknown agent" : wa.arch) + ", " +
              (wa.simulated ? "SIMULATED" : "measured") + ", " + std::to_string(wa.dispatches) +
              " dispatches, " + steps_text(wa));
  w.push_back("B: " + wb.label + ": " + (wb.arch.empty() ? "unknown agent" : wb.arch) + ", " +
              (wb.simulated ? "SIMULATED" : "measured") + ", " + std::to_string(wb.dispatches) +
              " dispatches, " + steps_text(wb));
  if (wa.arch != wb.arch) w.push_back("DIFFERENT TARGETS (compared because of --force)");
  if (wa.simulated != wb.simulated)
    w.push_back(
        "one run is SIMULATED and the other measured: their differences say nothing about "
        "the hardware");
  const bool same_steps = wa.prefill == wb.prefill && wa.decode == wb.decode &&
                          wa.role_unknown == wb.role_unknown && wa.layers == wb.layers;
  if (!same_steps)
    w.push_back(
        "the workloads differ in steps or layers: summed times compare different amounts "
        "of work; compare mean_ns (per launch) and the variant rows instead");
  if (!wa.runbook_sha.empty() && !wb.runbook_sha.empty() && wa.runbook_sha != wb.runbook_sha)
    w.push_back("the runs were made from different runbooks (" + wa.runbook_path + " and " +
                wb.runbook_path + ")");
  if (wa.seed != wb.seed && (wa.seed || wb.seed))
    w.push_back("simulator seeds differ: " + (wa.seed ? std::to_string(*wa.seed) : "-") + " and " +
                (wb.seed ? std::to_string(*wb.seed) : "-"));
  const bool no_steps = wa.prefill + wa.decode + wa.role_unknown == 0 &&
                        wb.prefill + wb.decode + wb.role_unknown == 0;
  if (no_steps)
    w.push_back(
        "neither run shows repeated steps: launch-count changes are given as counts, not "
        "explained as steps (`kprof query DB phases` says why for each)");
  else if (same_steps && wa.arch == wb.arch)
    w.push_back("same target, same steps and layers");
  return w;
}

struct FamilyCells {
  Cell launches, total, mean;
};

std::map<std::string, FamilyCells> family_cells(const Table& t) {
  std::map<std::string, FamilyCells> m;
  const size_t f = col(t, "family"), n = col(t, "launches"), ns = col(t, "total_ns"),
               mean = col(t, "mean_ns");
  for (const auto& r : t.rows) m[std::get<std::string>(r[f])] = {r[n], r[ns], r[mean]};
  return m;
}

// Why a family's launch count changed, or in which run alone it appears.
std::string launch_change(const std::string& family, const FamilyCells& x, const FamilyCells& y,
                          const std::map<std::string, FamilyPhases>& pa,
                          const std::map<std::string, FamilyPhases>& pb) {
  const bool in_a = !std::holds_alternative<std::monostate>(x.launches),
             in_b = !std::holds_alternative<std::monostate>(y.launches);
  if (in_a && in_b && x.launches != y.launches) {
    const auto ea = pa.find(family), eb = pb.find(family);
    return explain_change(ea == pa.end() ? FamilyPhases{} : ea->second,
                          eb == pb.end() ? FamilyPhases{} : eb->second);
  }
  if (!in_a) return "only in B";
  if (!in_b) return "only in A";
  return {};
}

// The families of A, then those only in B, with their launches and times side by side.
void fill_families(an::QuerySession& a, an::QuerySession& b, Table& t) {
  const Table fa = a.view("families", {}), fb = b.view("families", {});
  const auto ma = family_cells(fa), mb = family_cells(fb);
  const auto pa = family_phases(a.model()), pb = family_phases(b.model());
  std::vector<std::string> names;
  for (const auto& r : fa.rows) names.push_back(std::get<std::string>(r[0]));
  for (const auto& r : fb.rows)
    if (!ma.count(std::get<std::string>(r[0]))) names.push_back(std::get<std::string>(r[0]));
  t.title = "families: A → B";
  t.columns = {"family",     "launches_a", "launches_b",     "launches_delta", "launches_pct",
               "total_ns_a", "total_ns_b", "total_ns_delta", "total_pct",      "mean_ns_a",
               "mean_ns_b",  "mean_pct",   "launch_change"};
  for (const auto& n : names) {
    const auto ia = ma.find(n), ib = mb.find(n);
    const FamilyCells x = ia == ma.end() ? FamilyCells{} : ia->second,
                      y = ib == mb.end() ? FamilyCells{} : ib->second;
    const std::string why = launch_change(n, x, y, pa, pb);
    t.rows.push_back({n, x.launches, y.launches, delta(x.launches, y.launches),
                      pct(num(x.launches), num(y.launches)), x.total, y.total,
                      delta(x.total, y.total), pct(num(x.total), num(y.total)), x.mean, y.mean,
                      pct(num(x.mean), num(y.mean)), why});
  }
  t.notes.push_back(
      "times are summed trace-pass kernel durations (not wall time); pct = (B - A) / A");
}

// One variant-and-phase row of the comparison; index 0 is A, 1 is B.
struct VariantPair {
  std::string family, variant_a, variant_b;
  Cell launches[2];  // as the metrics view counts them (an integer)
  std::optional<double> mean[2], ai[2], tflops[2], tbps[2];
};

using VariantPhase = std::pair<VariantKey, std::string>;

// Variants of both runs matched by definition and phase, in the order first seen (A's first).
struct VariantPairs {
  std::map<VariantPhase, VariantPair> rows;
  std::vector<VariantPhase> order;

  void add(const Table& v, const std::map<std::string, VariantKey>& keys, int side) {
    const size_t cv = col(v, "variant"), cf = col(v, "family"), cp = col(v, "phase"),
                 cl = col(v, "launches"), cm = col(v, "mean_trace_ns"),
                 ci = col(v, "flop_per_byte"), ct = col(v, "tflops"), cb = col(v, "tbps");
    for (const auto& r : v.rows) {
      const std::string variant = cell_text(r[cv]);
      const auto key = std::make_pair(keys.at(variant), std::get<std::string>(r[cp]));
      auto [it, fresh] = rows.try_emplace(key);
      if (fresh) order.push_back(key);
      VariantPair& row = it->second;
      row.family = std::get<std::string>(r[cf]);
      (side ? row.variant_b : row.variant_a) = variant;
      row.launches[side] = r[cl];
      row.mean[side] = num(r[cm]);
      row.ai[side] = num(r[ci]);
      row.tflops[side] = num(r[ct]);
      row.tbps[side] = num(r[cb]);
    }
  }
};

void fill_variants(an::QuerySession& a, an::QuerySession& b, Table& v) {
  const Table va = a.view("metrics", {}), vb = b.view("metrics", {});
  const auto ka = variant_keys(a), kb = variant_keys(b);
  VariantPairs pairs;
  pairs.add(va, ka, 0);
  pairs.add(vb, kb, 1);
  v.title =
      "variants per phase: A → B (matched by kernel, grid, workgroup, LDS, scratch, registers)";
  v.columns = {"family",          "variant_a", "variant_b", "phase",      "launches_a",
               "launches_b",      "mean_ns_a", "mean_ns_b", "mean_pct",   "flop_per_byte_a",
               "flop_per_byte_b", "tflops_a",  "tflops_b",  "tflops_pct", "tbps_a",
               "tbps_b",          "tbps_pct"};
  for (const auto& key : pairs.order) {
    const VariantPair& r = pairs.rows[key];
    v.rows.push_back({r.family, r.variant_a.empty() ? Cell() : Cell(r.variant_a),
                      r.variant_b.empty() ? Cell() : Cell(r.variant_b), key.second, r.launches[0],
                      r.launches[1], opt(r.mean[0]), opt(r.mean[1]), pct(r.mean[0], r.mean[1]),
                      opt(r.ai[0]), opt(r.ai[1]), opt(r.tflops[0]), opt(r.tflops[1]),
                      pct(r.tflops[0], r.tflops[1]), opt(r.tbps[0]), opt(r.tbps[1]),
                      pct(r.tbps[0], r.tbps[1])});
  }
  v.notes.push_back("'-': the variant or its counters are missing in that run");
}
// Per rank, matched by rank number: compute, collective and exposed time of each run (the ranks
// view's columns), and each run's arrival-skew notes. Nothing when neither run has two ranks.
std::optional<Table> compare_ranks(an::QuerySession& a, an::QuerySession& b) {
  const Table ra = a.view("ranks", {}), rb = b.view("ranks", {});
  const bool many_a = ra.rows.size() > 1, many_b = rb.rows.size() > 1;
  if (!many_a && !many_b) return std::nullopt;
  Table t;
  t.title = "ranks: A → B (matched by rank number)";
  t.columns = {"rank",         "agent_a",     "agent_b",   "compute_ns_a", "compute_ns_b",
               "compute_pct",  "coll_ns_a",   "coll_ns_b", "coll_pct",     "exposed_ns_a",
               "exposed_ns_b", "exposed_pct", "last_at_a", "last_at_b"};
  const size_t n = std::max(many_a ? ra.rows.size() : 0, many_b ? rb.rows.size() : 0);
  const auto cell = [](const Table& v, bool many, size_t r, const char* name) {
    return many && r < v.rows.size() ? v.rows[r][col(v, name)] : Cell();
  };
  for (size_t r = 0; r < n; ++r) {
    std::vector<Cell> row{static_cast<int64_t>(r), cell(ra, many_a, r, "agent"),
                          cell(rb, many_b, r, "agent")};
    for (const char* c : {"compute_ns", "coll_ns", "exposed_ns"}) {
      const Cell x = cell(ra, many_a, r, c), y = cell(rb, many_b, r, c);
      row.insert(row.end(), {x, y, pct(num(x), num(y))});
    }
    row.insert(row.end(), {cell(ra, many_a, r, "last_at"), cell(rb, many_b, r, "last_at")});
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("pct = (B - A) / A; '-': the run has no such rank, or only one rank");
  for (const auto& [side, v] : {std::pair{"A: ", &ra}, std::pair{"B: ", &rb}})
    for (const auto& note : v->notes)
      if (note.rfind("arrival skew", 0) == 0 ||
          note.find("arrived last most often") != std::string::npos)
        t.notes.push_back(side + note);
  return t;
}

}  // namespace

RunRef parse_run_ref(const std::string& text) {
  RunRef r;
  r.db = text;
  const auto colon = text.rfind(':');
  if (colon != std::string::npos && colon + 1 < text.size() &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(colon) + 1, text.end(),
                  [](unsigned char c) { return std::isdigit(c) != 0; })) {
    r.db = text.substr(0, colon);
    const std::string digits = text.substr(colon + 1);
    int64_t run = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), run);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      throw Error::input("'" + text + "': the run id '" + digits + "' is out of range (at most " +
                             std::to_string(std::numeric_limits<int64_t>::max()) + ")",
                         "write DB or DB:RUN with RUN from `kprof status DB`, e.g. out/q.db:2");
    }
    r.run = run;
  } else if (!text.empty() && text.back() == ':') {
    r.db = text.substr(0, text.size() - 1);
  }
  if (r.db.empty())
    throw Error::input("'" + text + "' names no database", "write DB or DB:RUN, e.g. out/q.db:2");
  return r;
}

Comparison compare_runs(an::QuerySession& a, const std::string& label_a, an::QuerySession& b,
                        const std::string& label_b, const CompareOptions& options) {
  Comparison out;
  const Workload wa = workload(a, label_a), wb = workload(b, label_b);
  out.simulated = wa.simulated || wb.simulated;
  out.workload = workload_notes(wa, wb, options.force);
  const std::string runs = "A: " + wa.label + ", B: " + wb.label;
  out.families.simulated = out.simulated;
  out.families.runs = runs;
  fill_families(a, b, out.families);
  out.variants.simulated = out.simulated;
  out.variants.runs = runs;
  fill_variants(a, b, out.variants);
  if ((out.ranks = compare_ranks(a, b))) {
    out.ranks->simulated = out.simulated;
    out.ranks->runs = runs;
  }
  return out;
}

}  // namespace kprof::report
