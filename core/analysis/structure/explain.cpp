#include "core/analysis/structure/explain.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <tuple>
#include <unordered_map>

namespace kprof::analysis {
namespace {

std::string plural(int64_t n, const std::string& word) {
  const bool es = word.size() >= 2 && word.substr(word.size() - 2) == "ch";
  return std::to_string(n) + " " + word + (n == 1 ? "" : es ? "es" : "s");
}

std::string steps_text(int n, const std::string& word) { return plural(n, word); }

}  // namespace

void DurationStats::add(int64_t ns) {
  if (count == 0 || ns < min_ns) min_ns = ns;
  if (count == 0 || ns > max_ns) max_ns = ns;
  ++count;
  total_ns += ns;
}

TraceModel trace_model_base(const PassData& trace, const NameTable& names, const FamilyRules& rules,
                            int wave_size) {
  TraceModel m;
  m.trace = &trace;
  m.names = &names;
  m.wave_size = wave_size > 0 ? wave_size : 64;
  m.family_of_name.resize(names.size());
  for (uint32_t i = 0; i < names.size(); ++i) m.family_of_name[i] = rules.family_of(names.name(i));
  return m;
}

VariantSums::VariantSums(TraceModel& m)
    : m_model(m), m_variant_of_shape(m.trace->shapes.size(), -1) {}

int VariantSums::add(const Dispatch& d, Phase phase) {
  const int vi = add(d);
  count(vi, phase);
  return vi;
}

void VariantSums::count(int variant, Phase phase) {
  ++m_by_phase[static_cast<size_t>(variant)][static_cast<size_t>(phase)];
}

int VariantSums::add(const Dispatch& d) {
  TraceModel& m = m_model;
  int& vi = m_variant_of_shape[d.shape];
  if (vi < 0) {
    // A variant is a distinct (Kernel_Id, name, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR):
    // the pass's launch configurations, less dims_known, which the store also tells apart. So the
    // key is computed once per shape, not per dispatch.
    const KernelShape& s = m.trace->shape(d);
    Key key{s.kernel_id, s.name, s.grid[0], s.grid[1], s.grid[2], s.wg[0], s.wg[1],
            s.wg[2],     s.lds,  s.scratch, s.vgpr,    s.agpr,    s.sgpr};
    auto [it, inserted] = m_index.try_emplace(key, static_cast<int>(m.variants.size()));
    if (inserted) {
      Variant v;
      v.index = static_cast<int>(m.variants.size()) + 1;
      v.family = m.family_of_name[s.name];
      v.name = s.name;
      v.kernel_id = s.kernel_id;
      std::copy(std::begin(s.grid), std::end(s.grid), v.grid);
      std::copy(std::begin(s.wg), std::end(s.wg), v.wg);
      v.lds = s.lds;
      v.scratch = s.scratch;
      v.vgpr = s.vgpr;
      v.agpr = s.agpr;
      v.sgpr = s.sgpr;
      m.variants.push_back(v);
      m_by_phase.push_back({});
    }
    vi = it->second;
  }
  auto& v = m.variants[static_cast<size_t>(vi)];
  v.duration.add(d.duration_ns());
  m.total_ns += d.duration_ns();
  return vi;
}

void VariantSums::finish() {
  for (auto& v : m_model.variants) {
    const int64_t threads = v.wg[0] * v.wg[1] * v.wg[2];
    v.waves_per_workgroup = static_cast<int>((threads + m_model.wave_size - 1) / m_model.wave_size);
  }
  for (size_t i = 0; i < m_model.variants.size(); ++i)
    for (Phase p : k_all_phases)
      if (m_by_phase[i][static_cast<size_t>(p)])
        m_model.variants[i].launches_by_phase[p] = m_by_phase[i][static_cast<size_t>(p)];
}

TraceModel build_trace_model(const PassData& trace, const NameTable& names,
                             const FamilyRules& rules, int wave_size) {
  TraceModel m = trace_model_base(trace, names, rules, wave_size);
  m.phases = detect_phases(trace, &names);
  const size_t n = trace.dispatches.size();
  m.phase_of.assign(n, Phase::other);
  // Main-stream positions mapped back to dispatch indices, step by step.
  for (const Step& s : m.phases.steps)
    for (size_t i = s.begin; i < s.end; ++i) m.phase_of[m.phases.order.pass_index(i)] = s.phase;

  // Variants numbered by first launch in program order (dispatch id), not by row order. The
  // loader returns rows in that order; only a hand-made capture needs the sort.
  auto before = [&](uint32_t a, uint32_t b) {
    const auto &x = trace.dispatches[a], &y = trace.dispatches[b];
    return std::tie(x.pid, x.dispatch_id) < std::tie(y.pid, y.dispatch_id);
  };
  bool in_order = true;
  for (size_t i = 1; i < n && in_order; ++i)
    in_order = !before(static_cast<uint32_t>(i), static_cast<uint32_t>(i - 1));
  std::vector<uint32_t> by_id;
  if (!in_order) {
    by_id.resize(n);
    for (size_t i = 0; i < n; ++i) by_id[i] = static_cast<uint32_t>(i);
    std::sort(by_id.begin(), by_id.end(), before);
  }
  m.variant_of.assign(n, -1);
  VariantSums sums(m);
  for (size_t j = 0; j < n; ++j) {
    const size_t k = in_order ? j : by_id[j];
    m.variant_of[k] = sums.add(trace.dispatches[k], m.phase_of[k]);
  }
  sums.finish();
  return m;
}

std::vector<int> TraceModel::step_of_dispatches() const {
  std::vector<int> out(trace ? trace->dispatches.size() : 0, -1);
  if (!trace) return out;
  for (size_t si = 0; si < phases.steps.size(); ++si)
    for (size_t i = phases.steps[si].begin; i < phases.steps[si].end; ++i)
      out[phases.order.pass_index(i)] = static_cast<int>(si);
  return out;
}

std::vector<FamilyExplain> explain(const TraceModel& m, const std::string& family) {
  std::map<std::string, std::vector<const Variant*>> fams;
  for (const auto& v : m.variants)
    if (family.empty() || v.family == family) fams[v.family].push_back(&v);
  std::map<Phase, int> steps_in;
  for (const auto& s : m.phases.steps) ++steps_in[s.phase];

  std::vector<FamilyExplain> out;
  for (const auto& [fam, vars] : fams) {
    FamilyExplain fe;
    fe.family = fam;
    std::set<Phase> phases;  // in enum order: prefill, decode, step, irregular, ...
    for (const auto* v : vars)
      for (const auto& [p, c] : v->launches_by_phase) {
        fe.launches += c;
        phases.insert(p);
      }
    std::string text = fam + ": " + std::to_string(fe.launches) + " =";
    bool first_term = true;
    for (Phase p : phases) {
      // Only whole steps factor as steps × layers; the other phases are counted as they are.
      const bool factors = p == Phase::prefill || p == Phase::decode || p == Phase::step;
      const int steps = factors || p == Phase::irregular ? steps_in[p] : 0;
      const int layers = m.phases.layers;
      // Variants of this phase, grouped by how their count factors (same factors, one group).
      std::map<std::tuple<int64_t, int64_t>, ExplainGroup> groups;  // (per_step, per_layer)
      std::vector<std::tuple<int64_t, int64_t>> order;
      for (const auto* v : vars) {
        auto it = v->launches_by_phase.find(p);
        if (it == v->launches_by_phase.end()) continue;
        const int64_t c = it->second;
        const int64_t per_step = factors && steps > 0 && c % steps == 0 ? c / steps : 0;
        const int64_t per_layer =
            per_step && layers > 0 && per_step % layers == 0 ? per_step / layers : 0;
        auto key = std::make_tuple(per_step, per_layer);
        auto [g, inserted] = groups.try_emplace(key);
        if (inserted) {
          order.push_back(key);
          g->second.phase = p;
          g->second.steps = steps;
          g->second.layers = per_layer ? layers : 0;
          g->second.per_step = per_step;
          g->second.per_layer = per_layer;
        }
        g->second.counts.push_back(c);
      }
      for (const auto& key : order) {
        const auto& g = groups[key];
        for (size_t i = 0; i < g.counts.size(); ++i) {
          text += (first_term ? " " : " + ") + std::to_string(g.counts[i]);
          first_term = false;
        }
        const int64_t nv = static_cast<int64_t>(g.counts.size());
        const bool role_unknown = p == Phase::step;
        std::string why = "(";
        const std::string steps_word = role_unknown ? "repeated step" : "step";
        if (!role_unknown) why += std::string(to_string(p)) + ", ";
        if (g.per_layer) {
          why += steps_text(g.steps, steps_word) + " × " + plural(g.layers, "layer");
          if (g.per_layer > 1) why += " × " + plural(g.per_layer, "launch") + " per layer";
          why += " × " + plural(nv, "variant");
        } else if (g.per_step) {
          why += steps_text(g.steps, steps_word) + " × " + plural(g.per_step, "launch") + " × " +
                 plural(nv, "variant");
        } else if (factors && g.steps > 0) {
          why += "not a whole number per step over " + steps_text(g.steps, steps_word);
        } else if (p == Phase::irregular) {
          why += "in " + plural(g.steps, "irregular step") + ", not factored";
        } else if (p == Phase::partial) {
          why += "in steps cut by a window or trace boundary";
        } else if (p == Phase::unknown) {
          why += "in no step";
        } else {
          why += "outside the main stream";
        }
        if (role_unknown) why += ", role not established";
        text += " " + why + ")";
        fe.groups.push_back(g);
      }
    }
    fe.text = text;
    out.push_back(std::move(fe));
  }
  std::sort(out.begin(), out.end(), [](const FamilyExplain& a, const FamilyExplain& b) {
    return a.launches != b.launches ? a.launches > b.launches : a.family < b.family;
  });
  return out;
}

std::string structure_summary(const PhaseModel& pm) {
  std::string out;
  if (pm.windowed()) out += plural(static_cast<int64_t>(pm.windows.size()), "window") + "; ";
  if (pm.step_period == 0) return out + "no steps established";
  if (pm.prefill_steps + pm.decode_steps > 0) {
    out += std::to_string(pm.prefill_steps) + " prefill + " + std::to_string(pm.decode_steps) +
           " decode steps";
  } else {
    out += plural(pm.role_unknown_steps, "repeated step") + " (role not established)";
  }
  if (pm.irregular_steps) out += " + " + plural(pm.irregular_steps, "irregular step");
  out += " of " + std::to_string(pm.step_period) + " dispatches, ";
  out += pm.layers ? std::to_string(pm.layers) + " layers per step" : "layers not established";
  return out;
}

std::vector<std::string> structure_lines(const PhaseModel& pm) {
  std::vector<std::string> out;
  out.push_back("found: " + structure_summary(pm));
  if (!pm.findings.empty()) {
    out.push_back("evidence:");
    for (const auto& f : pm.findings)
      out.push_back("  " + std::string(to_string(f.topic)) + ": " + f.claim + " (confidence " +
                    std::string(to_string(f.confidence)) + "): " + f.evidence);
  }
  for (const NoteKind kind : {NoteKind::not_established, NoteKind::observation}) {
    bool first = true;
    for (const auto& n : pm.notes) {
      if (n.kind != kind) continue;
      if (first)
        out.push_back(kind == NoteKind::not_established ? "not established:" : "observations:");
      first = false;
      out.push_back("  " + n.line());
    }
  }
  return out;
}

std::vector<std::string> check_hints(const TraceModel& m, const ExplainHints& hints) {
  std::vector<std::string> out;
  const auto& pm = m.phases;
  if (hints.layers) {
    if (pm.layers == 0)
      out.push_back("warning: the runbook says " + std::to_string(*hints.layers) +
                    " layers; no layer structure was found to check it against");
    else if (*hints.layers == pm.layers)
      out.push_back("layers: " + std::to_string(pm.layers) + " found, as the runbook says");
    else
      out.push_back("warning: found " + std::to_string(pm.layers) +
                    " layers per step, the runbook says " + std::to_string(*hints.layers));
  }
  if (hints.output_tokens) {
    // One forward pass per output token: the prefill produces the first, each decode step one.
    const int steps = pm.whole_steps();
    const std::string found = pm.prefill_steps + pm.decode_steps > 0
                                  ? std::to_string(steps) + " steps (" +
                                        std::to_string(pm.prefill_steps) + " prefill + " +
                                        std::to_string(pm.decode_steps) + " decode)"
                                  : std::to_string(steps) + " repeated steps of unknown role";
    if (pm.windowed())
      out.push_back("warning: the runbook's output_tokens says " +
                    std::to_string(*hints.output_tokens) + "; the trace is windowed (" +
                    std::to_string(pm.windows.size()) + " windows), so " + found +
                    " are only the traced part");
    else if (*hints.output_tokens == steps && pm.prefill_steps + pm.decode_steps > 0)
      out.push_back("steps: " + found + " found, as the runbook's output_tokens says");
    else if (*hints.output_tokens == steps)
      out.push_back("steps: " + found + ", as many as the runbook's output_tokens (" +
                    std::to_string(*hints.output_tokens) + ")");
    else
      out.push_back("warning: found " + found + ", the runbook's output_tokens says " +
                    std::to_string(*hints.output_tokens));
  }
  return out;
}

}  // namespace kprof::analysis
