// `metric_sets`: per kernel variant and phase (prefill, decode, step, ... as the trace model
// assigns each launch), the metrics the metric sets define (l2_hit_percent of the memory set, ...).
// The formulas are the sets' own (configs/metrics/<set>.yaml), evaluated per dispatch by core/hw's
// expression engine (evaluate_formula), never written here; a row's value is the mean over its
// launches that have every input. Counters of a join that failed its
// self-check are not used (unless --force-join, and then the row says so); a value whose inputs
// came from more than one counter pass (different runs of the application) is marked mixed; a
// value no hardware can produce (a percentage outside 0..100, a negative count, bytes or FLOPs per
// second above the target's peak) is named in the `suspect` column with the reason.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/analysis/brief.hpp"
#include "core/analysis/view_helpers.hpp"
#include "core/analysis/views.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/hw/metric_set.hpp"

namespace kprof::analysis {
namespace {

std::string fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// One column: a metric of one set (a metric defined alike by several sets is shown once).
struct Column {
  std::string name;  // the metric's name, or "<set>.<metric>" when sets define it differently
  std::string set;
  const hw::MetricFormula* formula = nullptr;
};

// Per variant and column: the sum over launches with a value, their trace durations, passes.
struct Acc {
  int64_t n = 0;
  double sum = 0, duration_ns = 0;
  bool mixed = false;
  std::set<int64_t> passes;
};

}  // namespace

Table QueryContext::metric_sets(const ViewOptions& o) {
  Table t =
      base_table("metrics of the metric sets per variant and phase (configs/metrics formulas)");
  const hw::Target* tgt = target();
  const auto& jc = joined();
  const bool named = !o.metric_sets.empty();
  const std::vector<std::string> names = named ? o.metric_sets : hw::metric_set_names();
  std::vector<hw::MetricSet> sets;
  sets.reserve(names.size());
  if (tgt)
    for (const auto& n : names) sets.push_back(hw::load_metric_set_named(n, *tgt));
  else
    t.notes.push_back("no hardware description for arch '" + m_cap.arch +
                      "' (configs/hw/<arch>.yaml): the metric sets' formulas and counters are "
                      "defined for the targets kprof has files for, so no metric is evaluated");

  std::vector<Column> columns;
  for (const auto& set : sets) {
    for (const auto& m : set.metrics) {
      auto same = std::find_if(columns.begin(), columns.end(),
                               [&](const Column& c) { return c.formula->name == m.name; });
      if (same != columns.end() && same->formula->expression == m.expression) continue;
      columns.push_back({same == columns.end() ? m.name : set.name + "." + m.name, set.name, &m});
    }
  }

  // Per (variant index in m_model.variants, phase), per column.
  using Key = std::pair<int, Phase>;
  std::map<Key, std::vector<Acc>> acc;
  std::map<Key, int64_t> launches, with_counters;
  for (size_t k = 0; k < m_cap.trace.dispatches.size(); ++k) {
    if (!keep(k, o)) continue;
    const Key v{m_model.variant_of[k], m_model.phase_of[k]};
    ++launches[v];
    if (k >= jc.by_dispatch.size() || jc.by_dispatch[k].empty()) continue;
    ++with_counters[v];
    auto& row = acc[v];
    row.resize(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      const FormulaValue fv = evaluate_formula(*tgt, jc, k, *columns[c].formula);
      if (!fv.value) continue;
      Acc& a = row[c];
      ++a.n;
      a.sum += *fv.value;
      a.duration_ns += static_cast<double>(m_cap.trace.dispatches[k].duration_ns());
      a.mixed |= fv.passes.size() > 1;
      a.passes.insert(fv.passes.begin(), fv.passes.end());
    }
  }
  // Only the columns some variant has a value of; say which metrics have none, and why.
  std::vector<bool> shown(columns.size(), false);
  for (const auto& [v, row] : acc)
    for (size_t c = 0; c < row.size(); ++c) shown[c] = shown[c] || row[c].n > 0;
  std::vector<std::string> missing;
  std::set<std::string> sets_shown;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (shown[c])
      sets_shown.insert(columns[c].set);
    else if (named)
      missing.push_back(columns[c].set + "." + columns[c].formula->name + " (" +
                        join(columns[c].formula->counters, ", ") + ")");
  }

  std::set<int64_t> unreliable;
  for (const auto& j : join_summaries())
    if (!j.reliable) unreliable.insert(j.counter_pass_id);

  t.columns = {"variant", "family", "kernel", "phase", "launches", "with_counters"};
  for (size_t c = 0; c < columns.size(); ++c)
    if (shown[c]) t.columns.push_back(columns[c].name);
  t.columns.insert(t.columns.end(), {"passes", "suspect"});
  // Machine formats: the marks of `passes` and the prose of `suspect` as fields.
  if (o.structured)
    t.columns.insert(t.columns.end(), {"mixed", "unreliable_join", "suspect_flags"});

  // Every phase of the variants with joined counters (a kernel-filtered run counts a few of
  // them; a phase whose launches were not counted shows with_counters 0); the variants with none
  // are counted in a note. Longest variants first, each variant's phases in the order of the Phase
  // enum (prefill, decode, step, ...).
  std::set<int> counted, all;
  for (const auto& [v, n] : with_counters) counted.insert(v.first);
  std::vector<Key> order;
  for (const auto& [v, n] : launches) {
    all.insert(v.first);
    if (counted.count(v.first)) order.push_back(v);
  }
  const auto without = static_cast<int64_t>(all.size() - counted.size());
  std::sort(order.begin(), order.end(), [&](const Key& a, const Key& b) {
    const auto& va = m_model.variants[static_cast<size_t>(a.first)];
    const auto& vb = m_model.variants[static_cast<size_t>(b.first)];
    if (va.duration.total_ns != vb.duration.total_ns)
      return va.duration.total_ns > vb.duration.total_ns;
    return a < b;
  });
  const hw::Peaks pk = tgt ? tgt->peaks() : hw::Peaks{};
  std::vector<std::string> full, family;
  std::set<std::string> mixed_metrics;
  bool any_suspect = false, any_unreliable = false;
  for (const Key& v : order) {
    const Variant& var = m_model.variants[static_cast<size_t>(v.first)];
    std::vector<Cell> row = {static_cast<int64_t>(var.index),
                             var.family,
                             m_cap.names.name(var.name),
                             std::string(to_string(v.second)),
                             launches[v],
                             with_counters.count(v) ? with_counters[v] : 0};
    std::set<int64_t> passes;
    bool mixed = false;
    std::vector<SuspectFigure> suspect;
    const auto it = acc.find(v);
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!shown[c]) continue;
      if (it == acc.end() || it->second[c].n == 0) {
        row.emplace_back();
        continue;
      }
      const Acc& a = it->second[c];
      const hw::MetricFormula& f = *columns[c].formula;
      const double mean = a.sum / static_cast<double>(a.n);
      row.emplace_back(mean);
      passes.insert(a.passes.begin(), a.passes.end());
      if (a.mixed) {
        mixed = true;
        mixed_metrics.insert(columns[c].name);
      }
      // What no hardware can produce.
      const std::string& name = columns[c].name;
      if (f.unit == "percent" && (mean > 100.0 || mean < 0.0))
        suspect.push_back({name, "outside_0_100", name + " " + fixed(mean) + " outside 0..100"});
      else if (mean < 0.0)
        suspect.push_back({name, "negative", name + " negative"});
      const double per_s = a.duration_ns > 0 ? a.sum / (a.duration_ns * 1e-9) : 0;
      if (f.measures.quantity == hw::Quantity::bytes && f.measures.level == "HBM" &&
          pk.hbm_bytes_per_s > 0 && per_s > pk.hbm_bytes_per_s)
        suspect.push_back({name, "above_hbm_peak",
                           name + " at " + fixed(per_s / 1e12) + " TB/s > HBM peak " +
                               fixed(pk.hbm_bytes_per_s / 1e12)});
      if (f.measures.quantity == hw::Quantity::flops) {
        const double peak = peak_flops_for(pk, f.measures.flop_type);
        if (peak > 0 && per_s > peak)
          suspect.push_back({name, "above_peak",
                             name + " at " + fixed(per_s / 1e12) + " TFLOP/s > " +
                                 f.measures.flop_type + " peak " + fixed(peak / 1e12)});
      }
    }
    std::string p;
    bool forced = false;
    for (auto id : passes) {
      p += (p.empty() ? "" : "+") + std::to_string(ordinal_in(m_cap, id));
      forced |= unreliable.count(id) > 0;
    }
    if (mixed) p += " (mixed)";
    if (forced) {
      p += " (unreliable join)";
      any_unreliable = true;
    }
    row.push_back(passes.empty() ? Cell() : Cell(p));
    row.push_back(suspect.empty() ? Cell() : Cell(suspect_text(suspect)));
    if (o.structured) {
      const auto yes_no = [](bool b) { return Cell(std::string(b ? "yes" : "no")); };
      row.insert(row.end(),
                 {passes.empty() ? Cell() : yes_no(mixed), passes.empty() ? Cell() : yes_no(forced),
                  suspect.empty() ? Cell() : Cell(suspect_codes(suspect))});
    }
    any_suspect |= !suspect.empty();
    t.rows.push_back(std::move(row));
    full.push_back(m_cap.names.name(var.name));
    family.push_back(var.family);
  }
  t.brief["kernel"] = brief_kernel_names(full, family);

  std::string used;
  for (const auto& s : sets)
    if (sets_shown.count(s.name))
      used += (used.empty() ? "configs/metrics/" : ", ") +
              std::filesystem::path(s.source_path).filename().string();
  if (tgt)
    t.notes.push_back(
        used.empty()
            ? std::string("no metric of ") +
                  (named ? "the sets " + join(names, ", ") : "any set in configs/metrics") +
                  " has its counters on a joined dispatch of this run"
            : "formulas of " + used +
                  ", evaluated per launch; a row's value (variant, phase) is the "
                  "mean over its launches with every input");
  if (without > 0)
    t.notes.push_back(std::to_string(without) + " variant" + (without > 1 ? "s" : "") +
                      " without joined counters not shown (not counted by the counter passes' "
                      "kernel filter, not matched, or no counter pass)");
  if (!missing.empty())
    t.notes.push_back("not shown, their counters were not collected or not joined: " +
                      join(missing, "; "));
  if (!mixed_metrics.empty())
    t.notes.push_back(
        "(mixed): the inputs of " +
        join(std::vector<std::string>(mixed_metrics.begin(), mixed_metrics.end()), ", ") +
        " came from different counter passes, i.e. different runs of the application");
  if (jc.repeated_launches)
    t.notes.push_back(
        "rotated counters: a launch's figures combine counters read on different launches of its "
        "variant (a statistical join); `kprof query DB samples` gives n, mean and sd");
  if (any_unreliable)
    t.notes.push_back(
        "(unreliable join): counters of a join that failed its self-check, used because of "
        "--force-join");
  if (any_suspect)
    t.notes.push_back("suspect: values no " + m_cap.product + " can produce (configs/hw/" +
                      m_cap.arch +
                      ".yaml peaks) are not measurements; likely cause: a join that matched "
                      "other launches, inputs from different application runs, or a counter that "
                      "overcounts");
  add_join_notes(t);
  return t;
}

}  // namespace kprof::analysis
