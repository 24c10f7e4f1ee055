#include "core/analysis/explain.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <unordered_map>

namespace kprof::analysis {
namespace {

std::string plural(int64_t n, const std::string& word) {
  const bool es = word.size() >= 2 && word.substr(word.size() - 2) == "ch";
  return std::to_string(n) + " " + word + (n == 1 ? "" : es ? "es" : "s");
}

const std::vector<std::string> k_phase_order = {"prefill", "decode", "tail", "other"};

const std::string* phase_name(const std::string& p) {
  for (const auto& x : k_phase_order)
    if (x == p) return &x;
  return &k_phase_order.back();
}

int phase_rank(const std::string& p) {
  auto it = std::find(k_phase_order.begin(), k_phase_order.end(), p);
  return static_cast<int>(it - k_phase_order.begin());
}

}  // namespace

void DurationStats::add(int64_t ns) {
  if (count == 0 || ns < min_ns) min_ns = ns;
  if (count == 0 || ns > max_ns) max_ns = ns;
  ++count;
  total_ns += ns;
}

TraceModel build_trace_model(const PassData& trace, const NameTable& names,
                             const FamilyRules& rules, int wave_size) {
  TraceModel m;
  m.trace = &trace;
  m.names = &names;
  m.wave_size = wave_size > 0 ? wave_size : 64;
  m.family_of_name.resize(names.size());
  for (uint32_t i = 0; i < names.size(); ++i) m.family_of_name[i] = rules.family_of(names.name(i));

  m.phases = detect_phases(trace);
  const size_t n = trace.dispatches.size();
  m.phase_of.assign(n, &k_phase_order.back());
  m.step_of.assign(n, -1);
  {
    // Map main-stream order indices back to dispatch indices.
    const Dispatch* base = trace.dispatches.data();
    for (size_t i = 0; i < m.phases.order.size(); ++i) {
      const size_t k = static_cast<size_t>(m.phases.order[i] - base);
      m.phase_of[k] = phase_name(m.phases.phase_of(i));
      m.step_of[k] = m.phases.step_of[i];
    }
  }

  using Key = std::tuple<int64_t, uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, int> index;
  // Variants numbered by first launch in program order (dispatch id), not by row order.
  std::vector<size_t> by_id(n);
  for (size_t i = 0; i < n; ++i) by_id[i] = i;
  std::sort(by_id.begin(), by_id.end(), [&](size_t a, size_t b) {
    const auto &x = trace.dispatches[a], &y = trace.dispatches[b];
    return std::tie(x.pid, x.dispatch_id) < std::tie(y.pid, y.dispatch_id);
  });
  m.variant_of.assign(n, -1);
  std::vector<std::array<int64_t, 4>> by_phase;  // per variant, in k_phase_order
  for (size_t k : by_id) {
    const auto& d = trace.dispatches[k];
    Key key{d.kernel_id, d.name, d.grid[0], d.grid[1], d.grid[2], d.wg[0], d.wg[1],
            d.wg[2],     d.lds,  d.scratch, d.vgpr,    d.agpr,    d.sgpr};
    auto [it, inserted] = index.try_emplace(key, static_cast<int>(m.variants.size()));
    if (inserted) {
      Variant v;
      v.index = static_cast<int>(m.variants.size()) + 1;
      v.family = m.family_of_name[d.name];
      v.name = d.name;
      v.kernel_id = d.kernel_id;
      std::copy(std::begin(d.grid), std::end(d.grid), v.grid);
      std::copy(std::begin(d.wg), std::end(d.wg), v.wg);
      v.lds = d.lds;
      v.scratch = d.scratch;
      v.vgpr = d.vgpr;
      v.agpr = d.agpr;
      v.sgpr = d.sgpr;
      const int64_t threads = d.wg_product();
      v.waves_per_workgroup = static_cast<int>((threads + m.wave_size - 1) / m.wave_size);
      m.variants.push_back(v);
      by_phase.push_back({0, 0, 0, 0});
    }
    auto& v = m.variants[it->second];
    m.variant_of[k] = it->second;
    v.duration.add(d.duration_ns());
    ++by_phase[it->second][m.phase_of[k] - k_phase_order.data()];
    m.total_ns += d.duration_ns();
  }
  for (size_t i = 0; i < m.variants.size(); ++i)
    for (size_t p = 0; p < 4; ++p)
      if (by_phase[i][p]) m.variants[i].launches_by_phase[k_phase_order[p]] = by_phase[i][p];
  return m;
}

std::vector<FamilyExplain> explain(const TraceModel& m, const std::string& family) {
  std::map<std::string, std::vector<const Variant*>> fams;
  for (const auto& v : m.variants)
    if (family.empty() || v.family == family) fams[v.family].push_back(&v);
  std::map<std::string, int> steps_in;
  for (const auto& s : m.phases.steps) ++steps_in[s.phase];

  std::vector<FamilyExplain> out;
  for (const auto& [fam, vars] : fams) {
    FamilyExplain fe;
    fe.family = fam;
    std::vector<std::string> phases;
    for (const auto* v : vars)
      for (const auto& [p, c] : v->launches_by_phase) {
        fe.launches += c;
        if (std::find(phases.begin(), phases.end(), p) == phases.end()) phases.push_back(p);
      }
    std::sort(phases.begin(), phases.end(), [](const std::string& a, const std::string& b) {
      return phase_rank(a) < phase_rank(b);
    });
    std::string text = fam + ": " + std::to_string(fe.launches) + " =";
    bool first_term = true;
    for (const auto& p : phases) {
      // Variants of this phase, grouped by how their count factors (same factors, one group).
      const int steps = (p == "prefill" || p == "decode") ? steps_in[p] : 0;
      const int layers = m.phases.layers;
      std::map<std::tuple<int64_t, int64_t>, ExplainGroup> groups;  // (per_step, per_layer)
      std::vector<std::tuple<int64_t, int64_t>> order;
      for (const auto* v : vars) {
        auto it = v->launches_by_phase.find(p);
        if (it == v->launches_by_phase.end()) continue;
        const int64_t c = it->second;
        int64_t per_step = steps > 0 && c % steps == 0 ? c / steps : 0;
        int64_t per_layer =
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
        std::string why = "(" + p + ", ";
        if (g.per_layer) {
          why += plural(g.steps, "step") + " × " + plural(g.layers, "layer");
          if (g.per_layer > 1) why += " × " + plural(g.per_layer, "launch") + " per layer";
          why += " × " + plural(nv, "variant") + ")";
        } else if (g.per_step) {
          why += plural(g.steps, "step") + " × " + plural(g.per_step, "launch") + " × " +
                 plural(nv, "variant") + ")";
        } else if (g.steps > 0) {
          why += "not a whole number per step over " + plural(g.steps, "step") + ")";
        } else {
          why += p == "tail" ? "after the last full step)" : "outside the main stream)";
        }
        text += " " + why;
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

std::vector<std::string> check_hints(const TraceModel& m, const ExplainHints& hints) {
  std::vector<std::string> out;
  if (hints.layers) {
    out.push_back(*hints.layers == m.phases.layers
                      ? "layers: " + std::to_string(m.phases.layers) + " found, as the runbook says"
                      : "warning: found " + std::to_string(m.phases.layers) +
                            " layers per step, the runbook says " + std::to_string(*hints.layers));
  }
  if (hints.output_tokens) {
    const int steps = m.phases.prefill_steps + m.phases.decode_steps;
    out.push_back(*hints.output_tokens == steps
                      ? "steps: " + std::to_string(steps) + " found (" +
                            std::to_string(m.phases.prefill_steps) + " prefill + " +
                            std::to_string(m.phases.decode_steps) +
                            " decode), as the runbook's output_tokens says"
                      : "warning: found " + std::to_string(steps) +
                            " steps, the runbook's output_tokens says " +
                            std::to_string(*hints.output_tokens));
  }
  return out;
}

}  // namespace kprof::analysis
