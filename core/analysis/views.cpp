#include "core/analysis/views.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/analysis/brief.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/store/user_query.hpp"

namespace kprof::analysis {
namespace {

// One pass numbering everywhere: the ordinal (0 = trace, 1.. = counter passes in plan order), as
// `kprof plan`, `status` and the progress lines print it; never the database's row id.
int64_t ordinal_in(const Capture& cap, int64_t pass_id) {
  for (const auto& p : cap.passes)
    if (p.id == pass_id) return p.ordinal;
  return pass_id;  // a test's hand-made capture without pass records
}

// "2" or "2+3 (mixed)": the counter passes a row's FLOPs and bytes came from.
std::string passes_in(const Capture& cap, const GroupMetrics& g) {
  std::set<int64_t> all;
  for (auto id : g.flop_passes) all.insert(ordinal_in(cap, id));
  for (auto id : g.byte_passes) all.insert(ordinal_in(cap, id));
  std::string s;
  for (auto p : all) s += (s.empty() ? "" : "+") + std::to_string(p);
  if (all.size() > 1) s += " (mixed)";
  return s;
}

std::string dims(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

Cell reg(int64_t v) { return v < 0 ? Cell() : Cell(v); }

void apply_limit(Table& t, size_t limit) {
  if (limit && t.rows.size() > limit) {
    t.rows_omitted = t.rows.size() - limit;
    t.rows.resize(limit);
    for (auto& [column, texts] : t.brief)
      if (texts.size() > limit) texts.resize(limit);
  }
}

// One kernel name's line of `top`.
struct TopRow {
  std::string name, family;
  DurationStats stats;
};

// `top` from its per-name sums, whichever way they were computed: by summed duration, then name.
Table top_table(Table t, std::vector<TopRow> rows) {
  t.columns = {"kernel", "family", "launches", "total_ns", "mean_ns", "share_pct"};
  int64_t total = 0;
  for (const auto& r : rows) total += r.stats.total_ns;
  std::sort(rows.begin(), rows.end(), [](const TopRow& a, const TopRow& b) {
    return a.stats.total_ns != b.stats.total_ns ? a.stats.total_ns > b.stats.total_ns
                                                : a.name < b.name;
  });
  std::vector<std::string> full, family;
  for (auto& r : rows) {
    t.rows.push_back({r.name, r.family, r.stats.count, r.stats.total_ns, r.stats.mean_ns(),
                      total ? 100.0 * r.stats.total_ns / total : 0.0});
    full.push_back(std::move(r.name));
    family.push_back(std::move(r.family));
  }
  t.brief["kernel"] = brief_kernel_names(full, family);
  t.notes.push_back("share_pct: of summed kernel duration in the trace pass (not of wall time)");
  return t;
}

}  // namespace

const std::vector<std::string>& view_names() {
  static const std::vector<std::string> names = {"top",     "families", "variants", "phases",
                                                 "explain", "counters", "metrics",  "roofline",
                                                 "passes",  "samples"};
  return names;
}

QueryContext::QueryContext(store::CaptureDb& db, std::optional<int64_t> run_id, FamilyRules rules)
    : QueryContext(db, load_capture(db, run_id), std::move(rules)) {}

QueryContext::QueryContext(store::CaptureDb& db, Capture capture, FamilyRules rules)
    : m_db(db), m_cap(std::move(capture)), m_rules(std::move(rules)) {
  m_model = build_trace_model(m_cap.trace, m_cap.names, m_rules, m_cap.wave_size);
}

const JoinedCounters& QueryContext::joined() {
  if (!m_joined)
    m_joined = m_computed ? load_joined_counters(m_db, m_cap, *m_computed, m_use_unreliable)
                          : load_joined_counters(m_db, m_cap, m_use_unreliable);
  return *m_joined;
}

std::vector<JoinSummary> QueryContext::join_summaries() {
  return m_computed ? m_computed->summaries : read_joins(m_db, m_cap);
}

// Views built on joined counters say which joins failed their self-check and whether their
// counters were used.
void QueryContext::add_join_notes(Table& t) {
  for (const auto& j : join_summaries()) {
    if (j.reliable) continue;
    t.notes.push_back("pass " + std::to_string(j.ordinal) + ": " + join_check_text(j) +
                      (m_use_unreliable ? " [used anyway: --force-join]" : ""));
  }
}

const hw::Target* QueryContext::target() {
  if (!m_target_tried) {
    m_target_tried = true;
    if (!m_cap.arch.empty()) {
      try {
        m_target = hw::Target::load_arch(m_cap.arch);
      } catch (const Error&) {
        // No hardware file for this arch: counters still print, derived metrics do not.
      }
    }
  }
  return m_target ? &*m_target : nullptr;
}

Table QueryContext::base_table(const std::string& title) const {
  Table t;
  t.title = title;
  // The run's flag alone: `kprof run` records it from the backend, `kprof ingest` from the loaded
  // agents (store::PassLoader::commit), and schema 4 filled it in for databases made before.
  t.simulated = m_cap.run.simulated;
  t.run_id = m_cap.run.id;
  return t;
}

bool QueryContext::keep(size_t k, const ViewOptions& o) const {
  if (!o.family.empty() && m_model.variants[m_model.variant_of[k]].family != o.family) return false;
  if (!o.phase.empty() && to_string(m_model.phase_of[k]) != o.phase) return false;
  return true;
}

Table QueryContext::view(const std::string& name, const ViewOptions& o) {
  if (!o.family.empty()) {
    bool found = false;
    std::vector<std::string> fams;
    for (const auto& v : m_model.variants) {
      found |= v.family == o.family;
      if (std::find(fams.begin(), fams.end(), v.family) == fams.end()) fams.push_back(v.family);
    }
    if (!found) {
      throw Error::input("no family '" + o.family + "' in run " + std::to_string(m_cap.run.id),
                         did_you_mean(nearest_names(o.family, fams, 3, true)));
    }
  }
  if (!o.phase.empty() && !parse_phase(o.phase)) {
    throw Error::input("unknown phase '" + o.phase + "'", "choose " + phase_choices());
  }
  Table t;
  if (name == "top")
    t = top(o);
  else if (name == "families")
    t = families(o);
  else if (name == "variants")
    t = variants(o);
  else if (name == "phases")
    t = phases(o);
  else if (name == "explain")
    t = explain_view(o);
  else if (name == "counters")
    t = counters(o);
  else if (name == "metrics")
    t = metrics(o, false);
  else if (name == "roofline")
    t = metrics(o, true);
  else if (name == "passes")
    t = passes(o);
  else if (name == "samples")
    t = samples(o);
  else {
    throw Error::input("unknown view '" + name + "'",
                       did_you_mean(nearest_names(name, view_names(), 1, true)) +
                           " (views: " + join(view_names(), ", ") + ")");
  }
  apply_limit(t, o.limit);
  return t;
}

Table QueryContext::top(const ViewOptions& o) {
  std::map<uint32_t, DurationStats> by_name;
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const auto& d = m_cap.trace.dispatches[k];
    by_name[d.name].add(d.duration_ns());
  }
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name)
    rows.push_back({m_cap.names.name(name), m_model.family_of_name[name], s});
  return top_table(base_table("kernels by summed trace duration"), std::move(rows));
}

Table streamed_top(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                   size_t limit) {
  // One pass over the trace's narrow rows, summed per variant (a few hundred), then per name:
  // memory independent of the trace's length, no sort of the rows. Durations as
  // Dispatch::duration_ns() takes them (end before start counts 0; the schema forbids it).
  std::unordered_map<int64_t, DurationStats> by_variant;
  {
    SQLite::Statement q(db.sql(),
                        "SELECT variant_id, max(end_ns - start_ns, 0) FROM dispatch_rows "
                        "WHERE pass_id = ?");
    q.bind(1, rt.trace.id);
    while (q.executeStep()) by_variant[q.getColumn(0).getInt64()].add(q.getColumn(1).getInt64());
  }
  if (by_variant.empty()) no_dispatches(db, rt.run, rt.trace.id);
  std::map<std::string, DurationStats> by_name;
  SQLite::Statement name_of(db.sql(),
                            "SELECT s.value FROM kernel_variants v JOIN strings s "
                            "ON s.id = v.kernel_name_id WHERE v.id = ?");
  for (const auto& [variant, s] : by_variant) {
    name_of.bind(1, variant);
    const std::string name = name_of.executeStep() ? name_of.getColumn(0).getString() : "";
    name_of.reset();
    DurationStats& n = by_name[name];
    n.count += s.count;
    n.total_ns += s.total_ns;
  }
  std::vector<TopRow> rows;
  for (const auto& [name, s] : by_name) rows.push_back({name, rules.family_of(name), s});
  Table t;
  t.title = "kernels by summed trace duration";
  t.simulated = rt.run.simulated;
  t.run_id = rt.run.id;
  t = top_table(std::move(t), std::move(rows));
  apply_limit(t, limit);
  return t;
}

Table QueryContext::families(const ViewOptions& o) {
  Table t = base_table("kernel families");
  t.columns = {"family",   "launches", "variants", "kernel_names",
               "total_ns", "mean_ns",  "share_pct"};
  struct Acc {
    DurationStats s;
    std::set<int> variants;
    std::set<uint32_t> names;
  };
  std::map<std::string, Acc> acc;
  int64_t total = 0;
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const auto& d = m_cap.trace.dispatches[k];
    auto& a = acc[m_model.variants[m_model.variant_of[k]].family];
    a.s.add(d.duration_ns());
    a.variants.insert(m_model.variant_of[k]);
    a.names.insert(d.name);
    total += d.duration_ns();
  }
  std::vector<std::pair<std::string, Acc>> v(acc.begin(), acc.end());
  std::sort(v.begin(), v.end(),
            [](auto& a, auto& b) { return a.second.s.total_ns > b.second.s.total_ns; });
  for (const auto& [f, a] : v) {
    t.rows.push_back({f, a.s.count, static_cast<int64_t>(a.variants.size()),
                      static_cast<int64_t>(a.names.size()), a.s.total_ns, a.s.mean_ns(),
                      total ? 100.0 * a.s.total_ns / total : 0.0});
  }
  return t;
}

Table QueryContext::variants(const ViewOptions& o) {
  Table t =
      base_table("variants: distinct (Kernel_Id, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR)");
  t.columns = {"variant",      "family",   "kernel_id", "grid",    "workgroup",
               "waves_per_wg", "lds",      "scratch",   "vgpr",    "agpr",
               "sgpr",         "launches", "by_phase",  "mean_ns", "total_ns"};
  std::vector<int64_t> launches(m_model.variants.size(), 0);
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k)
    if (keep(k, o)) ++launches[m_model.variant_of[k]];
  std::vector<const Variant*> v;
  for (const auto& x : m_model.variants)
    if (launches[x.index - 1]) v.push_back(&x);
  std::sort(v.begin(), v.end(), [](const Variant* a, const Variant* b) {
    return a->duration.total_ns != b->duration.total_ns
               ? a->duration.total_ns > b->duration.total_ns
               : a->index < b->index;
  });
  for (const auto* x : v) {
    std::string by;
    for (const auto& [p, c] : x->launches_by_phase)
      by += (by.empty() ? "" : " ") + std::string(to_string(p)) + ":" + std::to_string(c);
    t.rows.push_back({static_cast<int64_t>(x->index), x->family, x->kernel_id, dims(x->grid),
                      dims(x->wg), static_cast<int64_t>(x->waves_per_workgroup), x->lds, x->scratch,
                      reg(x->vgpr), reg(x->agpr), reg(x->sgpr), launches[x->index - 1], by,
                      x->duration.mean_ns(), x->duration.total_ns});
  }
  t.notes.push_back("waves_per_wg = ceil(workgroup threads / wavefront size " +
                    std::to_string(m_model.wave_size) + ")");
  return t;
}

Table QueryContext::phases(const ViewOptions& o) {
  Table t = base_table("phases found from the dispatch sequence");
  t.columns = {"phase",      "steps",
               "dispatches", "dispatches_per_step",
               "layers",     "dispatches_per_layer",
               "total_ns",   "mean_step_ns"};
  const auto& pm = m_model.phases;
  std::map<Phase, std::tuple<int64_t, int64_t, int64_t>> acc;  // segments, dispatches, ns
  for (const auto& s : pm.steps) {
    auto& [steps, n, ns] = acc[s.phase];
    ++steps;
    n += static_cast<int64_t>(s.end - s.begin);
    for (size_t i = s.begin; i < s.end; ++i) ns += pm.order[i]->duration_ns();
  }
  for (const auto& [p, a] : acc) {
    if (!o.phase.empty() && o.phase != to_string(p)) continue;
    auto [steps, n, ns] = a;
    // Only steps are counted as steps; partial and unknown stretches are counted as dispatches.
    const bool is_step =
        p == Phase::prefill || p == Phase::decode || p == Phase::step || p == Phase::irregular;
    const bool regular = p == Phase::decode || p == Phase::step;
    t.rows.push_back(
        {std::string(to_string(p)), is_step ? Cell(steps) : Cell(), n,
         is_step ? Cell(static_cast<double>(n) / steps) : Cell(),
         regular && pm.layers ? Cell(static_cast<int64_t>(pm.layers)) : Cell(),
         regular && pm.layer_period ? Cell(static_cast<int64_t>(pm.layer_period)) : Cell(), ns,
         is_step ? Cell(static_cast<double>(ns) / steps) : Cell()});
  }
  if (pm.other_dispatches > 0 && (o.phase.empty() || o.phase == "other"))
    t.rows.push_back({std::string("other"), Cell(), static_cast<int64_t>(pm.other_dispatches),
                      Cell(), Cell(), Cell(), Cell(), Cell()});
  for (const auto& line : structure_lines(pm)) t.notes.push_back(line);
  for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
  return t;
}

// The finding a phase's steps rest on (prefill, decode; the repeated steps otherwise).
static const Finding* finding_for(const PhaseModel& pm, Phase p) {
  const char* topic = p == Phase::prefill                                                ? "prefill"
                      : p == Phase::decode                                               ? "decode"
                      : p == Phase::step || p == Phase::irregular || p == Phase::partial ? "steps"
                                                                                         : nullptr;
  if (!topic) return nullptr;
  for (const auto& f : pm.findings)
    if (f.topic == topic) return &f;
  return nullptr;
}

Table QueryContext::explain_view(const ViewOptions& o) {
  Table t = base_table("launches explained by steps × layers × variants");
  if (o.structured) {
    t.columns = {"family",   "family_launches",  "phase",      "steps",
                 "layers",   "per_layer",        "per_step",   "variants",
                 "launches", "role_established", "confidence", "evidence"};
    for (const auto& fe : explain(m_model, o.family)) {
      for (const auto& g : fe.groups) {
        if (!o.phase.empty() && to_string(g.phase) != o.phase) continue;
        int64_t launches = 0;
        for (auto c : g.counts) launches += c;
        const Finding* f = finding_for(m_model.phases, g.phase);
        const bool stepped = g.steps > 0;
        std::string evidence;
        if (f)
          evidence = f->claim + ": " + f->evidence;
        else if (g.phase == Phase::unknown)
          evidence = "in no step: set-up, warm-up or work outside the repeated steps";
        else if (g.phase == Phase::other)
          evidence = "outside the main stream (another process or agent)";
        t.rows.push_back(
            {fe.family, fe.launches, std::string(to_string(g.phase)),
             stepped ? Cell(static_cast<int64_t>(g.steps)) : Cell(),
             g.layers ? Cell(static_cast<int64_t>(g.layers)) : Cell(),
             g.per_layer ? Cell(g.per_layer) : Cell(), g.per_step ? Cell(g.per_step) : Cell(),
             static_cast<int64_t>(g.counts.size()), launches,
             std::string(g.phase == Phase::prefill || g.phase == Phase::decode ? "yes" : "no"),
             f ? Cell(std::string(to_string(f->confidence))) : Cell(), evidence});
      }
    }
    for (const auto& line : structure_lines(m_model.phases)) t.notes.push_back(line);
    for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
    return t;
  }
  t.columns = {"family", "launches", "explanation"};
  for (const auto& fe : explain(m_model, o.family)) {
    if (!o.phase.empty()) {
      bool has = false;
      for (const auto& g : fe.groups) has |= to_string(g.phase) == o.phase;
      if (!has) continue;
    }
    t.rows.push_back({fe.family, fe.launches, fe.text});
  }
  for (const auto& line : structure_lines(m_model.phases)) t.notes.push_back(line);
  for (const auto& line : check_hints(m_model, o.hints)) t.notes.push_back(line);
  return t;
}

Table QueryContext::counters(const ViewOptions& o) {
  Table t = base_table("counter values joined onto trace dispatches");
  t.columns = {"counter", "pass", "dispatches", "mean", "min", "max", "sum"};
  const auto& jc = joined();
  struct Acc {
    int64_t n = 0;
    double sum = 0, min = 0, max = 0;
  };
  std::map<std::pair<std::string, int64_t>, Acc> acc;
  for (size_t k = 0; k < jc.by_dispatch.size(); ++k) {
    if (!keep(k, o)) continue;
    for (const auto& s : jc.by_dispatch[k]) {
      auto& a = acc[{jc.counters.name(s.counter), s.pass_id}];
      if (a.n == 0 || s.value < a.min) a.min = s.value;
      if (a.n == 0 || s.value > a.max) a.max = s.value;
      ++a.n;
      a.sum += s.value;
    }
  }
  for (const auto& [key, a] : acc)
    t.rows.push_back(
        {key.first, ordinal_in(m_cap, key.second), a.n, a.sum / a.n, a.min, a.max, a.sum});
  if (acc.empty())
    t.notes.push_back(
        "no joined counter values: the run has no counter pass, none of its dispatches matched "
        "a trace dispatch, or its join failed the self-check (the passes view says which)");
  add_join_notes(t);
  return t;
}

Table QueryContext::metrics(const ViewOptions& o, bool roofline) {
  Table t = base_table(roofline ? "roofline per family and phase"
                                : "derived metrics per variant and phase");
  const auto* tgt = target();
  const auto& jc = joined();
  std::map<std::pair<std::string, std::string>, GroupMetrics> groups;  // (key, phase)
  std::map<std::pair<std::string, std::string>, int64_t> launches;
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const auto& v = m_model.variants[m_model.variant_of[k]];
    const std::string key = roofline ? v.family : std::to_string(v.index);
    const auto gk = std::make_pair(key, std::string(to_string(m_model.phase_of[k])));
    ++launches[gk];
    if (!tgt || jc.by_dispatch[k].empty()) continue;
    groups[gk].add(dispatch_metrics(*tgt, jc, k), m_cap.trace.dispatches[k].duration_ns());
  }
  if (jc.repeated_launches)
    t.notes.push_back(
        "rotated counters: each launch was counted with one counter group, so a dispatch's "
        "figures combine counters read on different launches of its variant (a statistical "
        "join, not one launch's numbers); `kprof query DB samples` gives n, mean and sd");
  if (!tgt) {
    t.notes.push_back("no hardware description for arch '" + m_cap.arch +
                      "': derived metrics need configs/hw/<arch>.yaml");
  }
  if (roofline) {
    t.columns = {"family",
                 "phase",
                 "launches",
                 "with_counters",
                 "flops_per_launch",
                 "bytes_per_launch",
                 "flop_per_byte",
                 "tflops",
                 "peak_tflops",
                 "pct_peak_flops",
                 "tbps",
                 "pct_peak_hbm",
                 "ridge_flop_per_byte",
                 "bound",
                 "passes",
                 "suspect"};
  } else {
    t.columns = {"variant",       "family",     "phase",      "launches",   "with_counters",
                 "mean_trace_ns", "mfma_flops", "valu_flops", "bytes_read", "bytes_written",
                 "flop_per_byte", "tflops",     "tbps",       "passes",     "suspect"};
  }
  std::vector<std::pair<std::pair<std::string, std::string>, int64_t>> order(launches.begin(),
                                                                             launches.end());
  std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
  bool any_mixed = false;
  std::set<std::string> suspect_reasons;
  for (const auto& [gk, n] : order) {
    auto it = groups.find(gk);
    const GroupMetrics g = it == groups.end() ? GroupMetrics{} : it->second;
    any_mixed |= g.mixed_passes();
    const auto tflops =
        g.flops_per_s() ? std::optional<double>(*g.flops_per_s() / 1e12) : std::nullopt;
    const auto tbps =
        g.bytes_per_s() ? std::optional<double>(*g.bytes_per_s() / 1e12) : std::nullopt;
    const std::string passes = passes_in(m_cap, g);
    // A figure above a physical peak is never printed plain: the row says what and why.
    Cell suspect;
    if (tgt) {
      const auto bad = impossible_figures(g, tgt->peaks());
      if (!bad.empty()) {
        suspect = join(bad, "; ");
        suspect_reasons.insert(suspect_reason(g));
      }
    }
    if (roofline) {
      Cell peak, pct_f, pct_b, ridge, bound;
      if (tgt && g.with_flops) {
        const auto& pk = tgt->peaks();
        const double pf = peak_flops_for(pk, g.dominant_type());
        peak = pf / 1e12;
        if (tflops && pf > 0) pct_f = 100.0 * *tflops * 1e12 / pf;
        if (tbps && pk.hbm_bytes_per_s > 0) pct_b = 100.0 * *tbps * 1e12 / pk.hbm_bytes_per_s;
        if (pk.hbm_bytes_per_s > 0) {
          const double r = pf / pk.hbm_bytes_per_s;
          ridge = r;
          if (auto ai = g.intensity())
            bound = std::string(*ai < r ? "memory" : "compute") +
                    (g.mixed_passes() ? " (mixed passes)" : "");
        }
      }
      t.rows.push_back({gk.first, gk.second, n, g.with_flops, opt(g.mean_flops()),
                        opt(g.mean_bytes()), opt(g.intensity()), opt(tflops), peak, pct_f,
                        opt(tbps), pct_b, ridge, bound, passes, suspect});
    } else {
      const auto& v = m_model.variants[std::stoi(gk.first) - 1];
      const double mean_ns = v.duration.mean_ns();
      auto mean = [&](double sum, int64_t cnt) { return cnt ? Cell(sum / cnt) : Cell(); };
      t.rows.push_back({static_cast<int64_t>(v.index), v.family, gk.second, n,
                        std::max(g.with_flops, g.with_bytes), mean_ns, Cell(), Cell(),
                        mean(g.bytes_read, g.with_bytes), mean(g.bytes_written, g.with_bytes),
                        opt(g.intensity()), opt(tflops), opt(tbps), passes, suspect});
      // MFMA and VALU separately need the per-dispatch split; recompute it for this group.
      double mfma = 0, valu = 0;
      int64_t nm = 0;
      if (tgt) {
        for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
          if (m_model.variant_of[k] != v.index - 1 || to_string(m_model.phase_of[k]) != gk.second)
            continue;
          if (jc.by_dispatch[k].empty() || !keep(k, o)) continue;
          auto dm = dispatch_metrics(*tgt, jc, k);
          if (!dm.has_flops()) continue;
          mfma += dm.mfma_flops.value_or(0);
          valu += dm.valu_flops.value_or(0);
          ++nm;
        }
      }
      if (nm) {
        t.rows.back()[6] = mfma / nm;
        t.rows.back()[7] = valu / nm;
      }
    }
  }
  t.notes.push_back(
      "rates use trace-pass durations (counter passes serialize kernels and stretch them)");
  add_join_notes(t);
  for (const auto& why : suspect_reasons) {
    t.notes.push_back("suspect: figures above a physical peak of " + m_cap.product +
                      " (configs/hw/" + m_cap.arch +
                      ".yaml peaks) cannot be measurements; likely cause: " + why);
  }
  if (any_mixed) {
    t.notes.push_back(
        "(mixed): FLOPs and bytes of these rows come from different counter passes, i.e. "
        "different runs of the application; their ratio compares two runs");
  }
  return t;
}

Table QueryContext::passes(const ViewOptions&) {
  Table t = base_table("passes and the cross-pass join");
  t.columns = {"pass",
               "kind",
               "state",
               "counters",
               "dispatches",
               "matched",
               "matched_pct",
               "unmatched_counter",
               "unmatched_trace",
               "filtered",
               "join"};
  const auto joins = join_summaries();
  for (const auto& p : m_cap.passes) {
    int64_t n = 0;
    if (p.id == m_cap.trace.pass_id) n = static_cast<int64_t>(m_cap.trace.dispatches.size());
    for (const auto& c : m_cap.counters)
      if (c.pass_id == p.id) n = static_cast<int64_t>(c.dispatches.size());
    std::vector<Cell> row = {p.ordinal, std::string(store::to_string(p.kind)),
                             std::string(store::to_string(p.state)), join(p.counters, " "), n};
    const JoinSummary* js = nullptr;
    for (const auto& j : joins)
      if (j.counter_pass_id == p.id) js = &j;
    if (js) {
      row.insert(row.end(), {js->matched, 100.0 * js->matched_share, js->unmatched_counter,
                             js->unmatched_trace, std::string(js->filtered ? "yes" : "no"),
                             join_check_text(*js)});
    } else {
      row.insert(row.end(), {Cell(), Cell(), Cell(), Cell(), Cell(), Cell()});
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

namespace {

// Sample statistics of one (variant, counter): n, sum and sum of squares, shifted by the first
// value so that large counts do not lose the variance to rounding.
struct Moments {
  int64_t n = 0;
  double shift = 0, sum = 0, sum2 = 0;
  std::set<int64_t> passes;
  void add(double x, int64_t pass) {
    if (n == 0) shift = x;
    ++n;
    sum += x - shift;
    sum2 += (x - shift) * (x - shift);
    passes.insert(pass);
  }
  double mean() const { return shift + sum / double(n); }
  std::optional<double> sd() const {
    if (n < 2) return std::nullopt;
    const double var = (sum2 - sum * sum / double(n)) / double(n - 1);
    return std::sqrt(std::max(0.0, var));
  }
};

}  // namespace

// Every launch of a rotated run carries one group's counters, and an application-replay pass one
// pass's: what a variant's launches share is the distribution of each counter, so that is what
// this view reports. A derived figure (FLOPs, bytes) is taken per launch only when that launch
// carried every counter the variant has (all inputs from one group, counted on the same launch);
// otherwise it is evaluated on the variant's counter means (the formulas are sums of counters
// times constants, so the mean of the figure is the figure of the means) and flagged: no launch
// was measured with all its inputs.
Table QueryContext::samples(const ViewOptions& o) {
  Table t = base_table("counter samples per variant: n, mean, standard deviation");
  t.columns = {"variant", "family", "counter", "passes", "n", "mean", "sd", "se", "how"};
  const auto& jc = joined();
  const auto* tgt = target();
  std::map<std::pair<int, std::string>, Moments> acc;  // (variant index, counter)
  std::map<int, std::set<uint32_t>> names;             // counters each variant has
  for (size_t k = 0; k < jc.by_dispatch.size(); ++k) {
    if (!keep(k, o) || jc.by_dispatch[k].empty()) continue;
    const int v = m_model.variants[m_model.variant_of[k]].index;
    for (const auto& s : jc.by_dispatch[k]) {
      acc[{v, jc.counters.name(s.counter)}].add(s.value, s.pass_id);
      names[v].insert(s.counter);
    }
  }
  // Per launch, when the launch alone holds every counter of its variant.
  std::map<int, std::pair<Moments, Moments>> derived;  // FLOPs, bytes
  if (tgt) {
    JoinedCounters one;
    one.counters = jc.counters;
    one.by_dispatch.resize(1);
    for (size_t k = 0; k < jc.by_dispatch.size(); ++k) {
      if (!keep(k, o) || jc.by_dispatch[k].empty()) continue;
      const int v = m_model.variants[m_model.variant_of[k]].index;
      std::map<std::pair<int64_t, int64_t>, std::vector<CounterSample>> launches;
      for (const auto& s : jc.by_dispatch[k]) launches[{s.pass_id, s.launch}].push_back(s);
      for (auto& [key, ss] : launches) {
        if (ss.size() < names[v].size()) continue;
        one.by_dispatch[0] = std::move(ss);
        const DispatchMetrics m = dispatch_metrics(*tgt, one, 0);
        if (m.has_flops()) derived[v].first.add(m.flops(), key.first);
        if (m.has_bytes()) derived[v].second.add(m.bytes(), key.first);
      }
    }
  }
  const auto passes_of = [&](const std::set<int64_t>& ids) {
    std::set<int64_t> ord;
    for (auto id : ids) ord.insert(ordinal_in(m_cap, id));
    std::string out;
    for (auto x : ord) out += (out.empty() ? "" : "+") + std::to_string(x);
    return out;
  };
  const auto family = [&](int v) { return m_model.variants[size_t(v - 1)].family; };
  const auto row = [&](int v, const std::string& what, const Moments& m, const std::string& how) {
    const auto sd = m.sd();
    t.rows.push_back({static_cast<int64_t>(v), family(v), what, passes_of(m.passes), m.n, m.mean(),
                      opt(sd), sd ? Cell(*sd / std::sqrt(double(m.n))) : Cell(), how});
  };
  const auto derived_rows = [&](int v) {
    if (v == 0 || !tgt) return;
    // The variant's means as one pseudo-launch, for figures no single launch had all inputs of.
    JoinedCounters means;
    means.by_dispatch.resize(1);
    std::map<std::string, const Moments*> of;
    for (auto it = acc.lower_bound({v, ""}); it != acc.end() && it->first.first == v; ++it) {
      means.by_dispatch[0].push_back(
          {means.counters.intern(it->first.second), it->second.mean(), *it->second.passes.begin()});
      of[it->first.second] = &it->second;
    }
    const DispatchMetrics mm = dispatch_metrics(*tgt, means, 0);
    const auto d = derived.find(v);
    for (int which = 0; which < 2; ++which) {
      const std::string what = which == 0 ? "flops" : "bytes";
      const Moments* one = d == derived.end() ? nullptr
                           : which == 0       ? &d->second.first
                                              : &d->second.second;
      if (one && one->n > 0) {
        row(v, what, *one, "per launch (all inputs on the launch)");
        continue;
      }
      if (which == 0 ? !mm.has_flops() : !mm.has_bytes()) continue;
      int64_t least = std::numeric_limits<int64_t>::max();
      std::set<int64_t> ids;
      for (const auto& [name, m] : of) {
        least = std::min(least, m->n);
        ids.insert(m->passes.begin(), m->passes.end());
      }
      t.rows.push_back({static_cast<int64_t>(v), family(v), what, passes_of(ids), least,
                        which == 0 ? mm.flops() : mm.bytes(), Cell(), Cell(),
                        std::string("from variant means: no launch had all inputs (groups)")});
    }
  };
  int last = 0;
  for (const auto& [key, m] : acc) {
    if (key.first != last) derived_rows(last);
    last = key.first;
    row(key.first, key.second, m, m.passes.size() == 1 ? "per launch" : "per launch, mixed passes");
  }
  derived_rows(last);
  if (acc.empty())
    t.notes.push_back(
        "no joined counter values: the run has no counter pass, none of its dispatches matched "
        "a trace dispatch, or its join failed the self-check (the passes view says which)");
  t.notes.push_back(
      "n: counted launches; sd: sample standard deviation over them; se = sd / sqrt(n); two "
      "means agree within the noise when they differ by less than a few se of each");
  add_join_notes(t);
  return t;
}

Table sql_table(store::CaptureDb& db, const std::string& select, bool simulated, int64_t run_id,
                std::chrono::milliseconds timeout) {
  Table t;
  t.title = "sql";
  t.simulated = simulated;
  t.run_id = run_id;
  // One statement, reads only, stopped after `timeout` (core/store/user_query.hpp).
  store::UserQuery uq(db, select, timeout);
  SQLite::Statement& q = uq.statement();
  for (int i = 0; i < q.getColumnCount(); ++i) t.columns.push_back(q.getColumnName(i));
  while (uq.step()) {
    std::vector<Cell> row;
    for (int i = 0; i < q.getColumnCount(); ++i) {
      const auto c = q.getColumn(i);
      if (c.isNull())
        row.emplace_back();
      else if (c.isInteger())
        row.emplace_back(c.getInt64());
      else if (c.isFloat())
        row.emplace_back(c.getDouble());
      else
        row.emplace_back(c.getString());
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace kprof::analysis
