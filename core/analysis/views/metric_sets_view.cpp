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
#include <functional>
#include <map>
#include <set>

#include "core/analysis/views/brief.hpp"
#include "core/analysis/views/view_helpers.hpp"
#include "core/analysis/views/views.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/hw/metric_set.hpp"
#include "core/store/pass_ranks.hpp"

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

// Per (variant index in TraceModel::variants, phase).
using Key = std::pair<int, Phase>;

// The columns of the sets: a metric defined alike by several sets once, one defined differently
// as "<set>.<metric>".
std::vector<Column> columns_of(const std::vector<hw::MetricSet>& sets) {
  std::vector<Column> columns;
  for (const auto& set : sets) {
    for (const auto& m : set.metrics) {
      auto same = std::find_if(columns.begin(), columns.end(),
                               [&](const Column& c) { return c.formula->name == m.name; });
      if (same != columns.end() && same->formula->expression == m.expression) continue;
      columns.push_back({same == columns.end() ? m.name : set.name + "." + m.name, set.name, &m});
    }
  }
  return columns;
}

// Launches per (variant, phase), those with joined counters, and per column the values of each
// launch that has every input.
struct Sums {
  std::map<Key, std::vector<Acc>> acc;
  std::map<Key, int64_t> launches, with_counters;
  // Per rank of a trace pass with several (tensor parallelism) and column, over all its launches.
  std::vector<store::PassRank> ranks;
  std::vector<std::vector<Acc>> by_rank;
  size_t rank_of(const Capture& cap, const Dispatch& d) const {
    for (size_t r = 0; r < ranks.size(); ++r)
      if (ranks[r].pid == d.pid && ranks[r].agent == cap.trace.agent(d)) return r;
    return ranks.size();
  }
};
// `scan` runs QueryContext::for_each_joined with the visit it is given, and returns what that
// returns (repeated launches).
Sums sum_columns(const Capture& cap, const QueryContext& q, const hw::Target* tgt,
                 const std::vector<Column>& columns,
                 const std::function<bool(const QueryContext::JoinedVisit&)>& scan,
                 std::vector<store::PassRank> ranks, bool& repeated_launches) {
  Sums sums;
  if (ranks.size() > 1) {
    sums.ranks = std::move(ranks);
    sums.by_rank.assign(sums.ranks.size(), std::vector<Acc>(columns.size()));
  }
  repeated_launches = scan([&](size_t k, const JoinedCounters& jc, size_t i) {
    const Key v{q.variant_of(k), q.phase_of(k)};
    ++sums.launches[v];
    if (jc.by_dispatch[i].empty()) return;
    ++sums.with_counters[v];
    auto& row = sums.acc[v];
    row.resize(columns.size());
    const size_t rank = sums.rank_of(cap, q.dispatch(k));
    for (size_t c = 0; c < columns.size(); ++c) {
      const FormulaValue fv = evaluate_formula(*tgt, jc, i, *columns[c].formula);
      if (!fv.value) continue;
      for (Acc* a : {&row[c], rank < sums.by_rank.size() ? &sums.by_rank[rank][c] : nullptr}) {
        if (!a) continue;
        ++a->n;
        a->sum += *fv.value;
        a->duration_ns += static_cast<double>(q.dispatch(k).duration_ns());
        a->mixed |= fv.passes.size() > 1;
        a->passes.insert(fv.passes.begin(), fv.passes.end());
      }
    }
  });
  return sums;
}

// What no hardware can produce, of one column's mean over a row's launches.
void check_figure(const std::string& name, const hw::MetricFormula& f, const Acc& a, double mean,
                  const hw::Peaks& pk, std::vector<SuspectFigure>& suspect) {
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

// The variants with joined counters, each with every phase it has launches in; longest variants
// first, each variant's phases in the order of the Phase enum (prefill, decode, step, ...).
// `without`: the variants with none.
std::vector<Key> rows_shown(const Sums& sums, const TraceModel& model, int64_t& without) {
  std::set<int> counted, all;
  for (const auto& [v, n] : sums.with_counters) counted.insert(v.first);
  std::vector<Key> order;
  for (const auto& [v, n] : sums.launches) {
    all.insert(v.first);
    if (counted.count(v.first)) order.push_back(v);
  }
  without = static_cast<int64_t>(all.size() - counted.size());
  std::sort(order.begin(), order.end(), [&](const Key& a, const Key& b) {
    const auto& va = model.variants[static_cast<size_t>(a.first)];
    const auto& vb = model.variants[static_cast<size_t>(b.first)];
    if (va.duration.total_ns != vb.duration.total_ns)
      return va.duration.total_ns > vb.duration.total_ns;
    return a < b;
  });
  return order;
}

// What the table's marks and columns mean, and what it leaves out.
struct TableMarks {
  bool named = false, any_suspect = false, any_unreliable = false, repeated_launches = false;
  int64_t without = 0;
  std::vector<std::string> names, missing;
  std::set<std::string> mixed_metrics;
};
void add_notes(Table& t, const std::vector<hw::MetricSet>& sets,
               const std::set<std::string>& sets_shown, const hw::Target* tgt, const TableMarks& m,
               const Capture& cap) {
  std::string used;
  for (const auto& s : sets)
    if (sets_shown.count(s.name))
      used += (used.empty() ? "configs/metrics/" : ", ") +
              std::filesystem::path(s.source_path).filename().string();
  if (tgt)
    t.notes.push_back(
        used.empty()
            ? std::string("no metric of ") +
                  (m.named ? "the sets " + join(m.names, ", ") : "any set in configs/metrics") +
                  " has its counters on a joined dispatch of this run"
            : "formulas of " + used +
                  ", evaluated per launch; a row's value (variant, phase) is the "
                  "mean over its launches with every input");
  if (m.without > 0)
    t.notes.push_back(std::to_string(m.without) + " variant" + (m.without > 1 ? "s" : "") +
                      " without joined counters not shown (not counted by the counter passes' "
                      "kernel filter, not matched, or no counter pass)");
  if (!m.missing.empty())
    t.notes.push_back("not shown, their counters were not collected or not joined: " +
                      join(m.missing, "; "));
  if (!m.mixed_metrics.empty())
    t.notes.push_back(
        "(mixed): the inputs of " +
        join(std::vector<std::string>(m.mixed_metrics.begin(), m.mixed_metrics.end()), ", ") +
        " came from different counter passes, i.e. different runs of the application");
  if (m.repeated_launches)
    t.notes.push_back(
        "rotated counters: a launch's figures combine counters read on different launches of its "
        "variant (a statistical join); `kprof query DB samples` gives n, mean and sd");
  if (m.any_unreliable)
    t.notes.push_back(
        "(unreliable join): counters of a join that failed its self-check, used because of "
        "--force-join");
  if (m.any_suspect)
    t.notes.push_back("suspect: values no " + cap.product + " can produce (configs/hw/" + cap.arch +
                      ".yaml peaks) are not measurements; likely cause: a join that matched "
                      "other launches, inputs from different application runs, or a counter that "
                      "overcounts");
}

// A row's cells after the fixed ones: each shown column's mean over the launches with a value
// (`accs`: null when none has one), then `passes` and `suspect` (and, for machine formats, their
// marks as fields). `marks` gathers what the notes explain.
void append_metric_cells(std::vector<Cell>& row, const std::vector<Acc>* accs,
                         const std::vector<Column>& columns, const std::vector<bool>& shown,
                         const hw::Peaks& pk, const std::set<int64_t>& unreliable,
                         const Capture& cap, bool structured, TableMarks& marks) {
  std::set<int64_t> passes;
  bool mixed = false;
  std::vector<SuspectFigure> suspect;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!shown[c]) continue;
    if (!accs || (*accs)[c].n == 0) {
      row.emplace_back();
      continue;
    }
    const Acc& a = (*accs)[c];
    const double mean = a.sum / static_cast<double>(a.n);
    row.emplace_back(mean);
    passes.insert(a.passes.begin(), a.passes.end());
    if (a.mixed) {
      mixed = true;
      marks.mixed_metrics.insert(columns[c].name);
    }
    check_figure(columns[c].name, *columns[c].formula, a, mean, pk, suspect);
  }
  std::string p;
  bool forced = false;
  for (auto id : passes) {
    p += (p.empty() ? "" : "+") + std::to_string(ordinal_in(cap, id));
    forced |= unreliable.count(id) > 0;
  }
  if (mixed) p += " (mixed)";
  if (forced) {
    p += " (unreliable join)";
    marks.any_unreliable = true;
  }
  row.push_back(passes.empty() ? Cell() : Cell(p));
  row.push_back(suspect.empty() ? Cell() : Cell(suspect_text(suspect)));
  if (structured) {
    const auto yes_no = [](bool b) { return Cell(std::string(b ? "yes" : "no")); };
    row.insert(row.end(),
               {passes.empty() ? Cell() : yes_no(mixed), passes.empty() ? Cell() : yes_no(forced),
                suspect.empty() ? Cell() : Cell(suspect_codes(suspect))});
  }
  marks.any_suspect |= !suspect.empty();
}

// Per metric set, one line of each shown metric's mean per rank over the rank's launches with a
// value, and its spread (max/min): "metric set memory per rank 0, 1 (GPU agents 1, 2):
// l2_hit_percent 71.2 / 70.9 (spread 1.00)". Nothing for a pass with one rank.
std::vector<std::string> rank_lines(const Sums& sums, const std::vector<hw::MetricSet>& sets,
                                    const std::vector<Column>& columns,
                                    const std::vector<bool>& shown) {
  std::vector<std::string> out;
  if (sums.ranks.size() < 2) return out;
  std::vector<std::string> who, agents;
  for (const auto& r : sums.ranks) {
    who.push_back(std::to_string(r.rank));
    agents.push_back(std::to_string(r.agent));
  }
  for (const auto& set : sets) {
    std::vector<std::string> parts;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!shown[c] || columns[c].set != set.name) continue;
      std::vector<std::string> means;
      double lo = 0, hi = 0;
      size_t n = 0;
      for (const auto& rank : sums.by_rank) {
        if (rank[c].n == 0) {
          means.push_back("-");
          continue;
        }
        const double mean = rank[c].sum / static_cast<double>(rank[c].n);
        means.push_back(fixed(mean));
        lo = n ? std::min(lo, mean) : mean;
        hi = n ? std::max(hi, mean) : mean;
        ++n;
      }
      parts.push_back(columns[c].name + " " + join(means, " / ") +
                      (n > 1 && lo > 0 ? " (spread " + fixed(hi / lo) + ")" : ""));
    }
    if (!parts.empty())
      out.push_back("metric set " + set.name + " per rank " + join(who, ", ") + " (GPU agents " +
                    join(agents, ", ") + "), mean over each rank's launches: " + join(parts, "; "));
  }
  return out;
}

}  // namespace

Table QueryContext::metric_sets(const ViewOptions& o) {
  Table t =
      base_table("metrics of the metric sets per variant and phase (configs/metrics formulas)");
  const hw::Target* tgt = target();
  TableMarks marks;
  marks.named = !o.metric_sets.empty();
  marks.names = marks.named ? o.metric_sets : hw::metric_set_names();
  std::vector<hw::MetricSet> sets;
  sets.reserve(marks.names.size());
  if (tgt)
    for (const auto& n : marks.names) sets.push_back(hw::load_metric_set_named(n, *tgt));
  else
    t.notes.push_back("no hardware description for arch '" + m_cap.arch +
                      "' (configs/hw/<arch>.yaml): the metric sets' formulas and counters are "
                      "defined for the targets kprof has files for, so no metric is evaluated");

  const std::vector<Column> columns = columns_of(sets);
  Sums sums = sum_columns(
      m_cap, *this, tgt, columns,
      [&](const JoinedVisit& f) {
        return for_each_joined([&](size_t k) { return keep(k, o); }, f);
      },
      store::pass_ranks(m_db, m_cap.trace.pass_id), marks.repeated_launches);
  // Only the columns some variant has a value of; say which metrics have none, and why.
  std::vector<bool> shown(columns.size(), false);
  for (const auto& [v, row] : sums.acc)
    for (size_t c = 0; c < row.size(); ++c) shown[c] = shown[c] || row[c].n > 0;
  std::set<std::string> sets_shown;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (shown[c])
      sets_shown.insert(columns[c].set);
    else if (marks.named)
      marks.missing.push_back(columns[c].set + "." + columns[c].formula->name + " (" +
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
  // are counted in a note.
  const hw::Peaks pk = tgt ? tgt->peaks() : hw::Peaks{};
  std::vector<std::string> full, family;
  for (const Key& v : rows_shown(sums, m_model, marks.without)) {
    const Variant& var = m_model.variants[static_cast<size_t>(v.first)];
    std::vector<Cell> row = {static_cast<int64_t>(var.index),
                             var.family,
                             m_cap.names.name(var.name),
                             std::string(to_string(v.second)),
                             sums.launches[v],
                             sums.with_counters.count(v) ? sums.with_counters[v] : 0};
    const auto it = sums.acc.find(v);
    append_metric_cells(row, it == sums.acc.end() ? nullptr : &it->second, columns, shown, pk,
                        unreliable, m_cap, o.structured, marks);
    t.rows.push_back(std::move(row));
    full.push_back(m_cap.names.name(var.name));
    family.push_back(var.family);
  }
  t.brief["kernel"] = brief_kernel_names(full, family);
  add_notes(t, sets, sets_shown, tgt, marks, m_cap);
  for (auto& line : rank_lines(sums, sets, columns, shown)) t.notes.push_back(std::move(line));
  add_join_notes(t);
  return t;
}

}  // namespace kprof::analysis
