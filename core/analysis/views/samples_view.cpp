// `samples`: per variant and counter, launches counted, mean, standard deviation, standard error.
#include "core/analysis/views/views.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/analysis/views/view_helpers.hpp"

namespace kprof::analysis {
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

using CounterMoments = std::map<std::pair<int, std::string>, Moments>;  // (variant, counter)
using FigureMoments = std::map<int, std::pair<Moments, Moments>>;       // variant: FLOPs, bytes

// FLOPs and bytes of the launches of joined dispatch `i` of `jc` (variant `v`, which has
// `counters_of_v` counters) that alone hold every counter of their variant. `one` is a scratch
// one-dispatch table that keeps the counter ids of `jc`.
void add_launch_figures(const hw::Target& tgt, const JoinedCounters& jc, size_t i, int v,
                        size_t counters_of_v, JoinedCounters& one, FigureMoments& derived) {
  if (one.counters.size() < jc.counters.size()) one.counters = jc.counters;
  one.by_dispatch.resize(1);
  std::map<std::pair<int64_t, int64_t>, std::vector<CounterSample>> launches;
  for (const auto& s : jc.by_dispatch[i]) launches[{s.pass_id, s.launch}].push_back(s);
  for (auto& [key, ss] : launches) {
    if (ss.size() < counters_of_v) continue;
    one.by_dispatch[0] = std::move(ss);
    const DispatchMetrics m = dispatch_metrics(tgt, one, 0);
    if (m.has_flops()) derived[v].first.add(m.flops(), key.first);
    if (m.has_bytes()) derived[v].second.add(m.bytes(), key.first);
  }
}

// Writes the rows of the `samples` view into `t`: a variant's counters, then its FLOPs and bytes.
class SampleRows {
 public:
  SampleRows(Table& t, const Capture& cap, const TraceModel& model, const hw::Target* tgt,
             bool structured, const CounterMoments& acc, const FigureMoments& derived)
      : m_t(t),
        m_cap(cap),
        m_model(model),
        m_tgt(tgt),
        m_structured(structured),
        m_acc(acc),
        m_derived(derived) {}

  void row(int v, const std::string& what, const Moments& m, const std::string& how) {
    const auto sd = m.sd();
    m_t.rows.push_back({static_cast<int64_t>(v), family(v), what, passes_of(m.passes), m.n,
                        m.mean(), opt(sd), sd ? Cell(*sd / std::sqrt(double(m.n))) : Cell(), how});
    fields(m_t.rows.back(), "per_launch", m.passes.size());
  }

  // The variant's FLOPs and bytes: per launch where launches had all inputs, else from its
  // counter means.
  void derived_rows(int v) {
    if (v == 0 || !m_tgt) return;
    // The variant's means as one pseudo-launch, for figures no single launch had all inputs of.
    JoinedCounters means;
    means.by_dispatch.resize(1);
    std::map<std::string, const Moments*> of;
    for (auto it = m_acc.lower_bound({v, ""}); it != m_acc.end() && it->first.first == v; ++it) {
      means.by_dispatch[0].push_back(
          {means.counters.intern(it->first.second), it->second.mean(), *it->second.passes.begin()});
      of[it->first.second] = &it->second;
    }
    const DispatchMetrics mm = dispatch_metrics(*m_tgt, means, 0);
    const auto d = m_derived.find(v);
    for (int which = 0; which < 2; ++which) {
      const std::string what = which == 0 ? "flops" : "bytes";
      const Moments* one = d == m_derived.end() ? nullptr
                           : which == 0         ? &d->second.first
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
      m_t.rows.push_back({static_cast<int64_t>(v), family(v), what, passes_of(ids), least,
                          which == 0 ? mm.flops() : mm.bytes(), Cell(), Cell(),
                          std::string("from variant means: no launch had all inputs (groups)")});
      fields(m_t.rows.back(), "variant_means", ids.size());
    }
  }

 private:
  std::string passes_of(const std::set<int64_t>& ids) const {
    std::set<int64_t> ord;
    for (auto id : ids) ord.insert(ordinal_in(m_cap, id));
    std::string out;
    for (auto x : ord) out += (out.empty() ? "" : "+") + std::to_string(x);
    return out;
  }
  std::string family(int v) const { return m_model.variants[size_t(v - 1)].family; }
  void fields(std::vector<Cell>& r, const char* basis, size_t passes) const {
    if (m_structured)
      r.insert(r.end(), {std::string(basis), std::string(passes > 1 ? "yes" : "no")});
  }

  Table& m_t;
  const Capture& m_cap;
  const TraceModel& m_model;
  const hw::Target* m_tgt;
  bool m_structured;
  const CounterMoments& m_acc;
  const FigureMoments& m_derived;
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
  if (o.compact) return samples_by_family(o);
  Table t = base_table("counter samples per variant: n, mean, standard deviation");
  t.columns = {"variant", "family", "counter", "passes", "n", "mean", "sd", "se", "how"};
  // Machine formats: `how` as fields. basis: per_launch (each launch's own value) or
  // variant_means (a derived figure computed from the variant's counter means); mixed: the values
  // came from more than one counter pass (different runs of the application).
  if (o.structured) t.columns.insert(t.columns.end(), {"basis", "mixed"});
  const auto* tgt = target();
  const auto kept = [&](size_t k) { return keep(k, o); };
  CounterMoments acc;
  std::map<int, std::set<uint32_t>> names;  // counters each variant has
  for_each_joined(kept, [&](size_t k, const JoinedCounters& jc, size_t i) {
    if (jc.by_dispatch[i].empty()) return;
    const int v = m_model.variants[static_cast<size_t>(variant_of(k))].index;
    for (const auto& s : jc.by_dispatch[i]) {
      acc[{v, jc.counters.name(s.counter)}].add(s.value, s.pass_id);
      names[v].insert(s.counter);
    }
  });
  // Per launch, when the launch alone holds every counter of its variant: a second pass over the
  // joined counters (counter ids are the same in both).
  FigureMoments derived;
  if (tgt && !acc.empty()) {
    JoinedCounters one;
    for_each_joined(kept, [&](size_t k, const JoinedCounters& jc, size_t i) {
      if (jc.by_dispatch[i].empty()) return;
      const int v = m_model.variants[static_cast<size_t>(variant_of(k))].index;
      add_launch_figures(*tgt, jc, i, v, names[v].size(), one, derived);
    });
  }
  SampleRows rows(t, m_cap, m_model, tgt, o.structured, acc, derived);
  int last = 0;
  for (const auto& [key, m] : acc) {
    if (key.first != last) rows.derived_rows(last);
    last = key.first;
    rows.row(key.first, key.second, m,
             m.passes.size() == 1 ? "per launch" : "per launch, mixed passes");
  }
  rows.derived_rows(last);
  if (acc.empty()) t.notes.push_back(k_no_joined_counters);
  t.notes.push_back(
      "n: counted launches; sd: sample standard deviation over them; se = sd / sqrt(n); two "
      "means agree within the noise when they differ by less than a few se of each");
  add_join_notes(t);
  return t;
}

// The terminal's default `samples`: what a reader decides from the samples is how much was
// measured (launches), what one launch does (FLOPs, bytes, their ratio) and whether the counts are
// steady enough to trust (the largest relative standard error among the group's counters), once
// per family and phase. FLOPs and bytes are taken per launch where a launch carried every counter
// of its variant, else from the group's counter means (basis "means"), as the full view does.
Table QueryContext::samples_by_family(const ViewOptions& o) {
  Table t = base_table("counter samples per family and phase");
  t.columns = {"family", "phase",         "launches",    "flops",
               "bytes",  "flop_per_byte", "max_rse_pct", "basis"};
  const auto* tgt = target();
  const auto kept = [&](size_t k) { return keep(k, o); };
  using Key = std::pair<std::string, std::string>;  // (family, phase)
  struct Group {
    std::map<uint32_t, Moments> counters;
    Moments flops, bytes;
    int64_t launches = 0;  // counter-pass launches: (pass, launch) of each trace dispatch
  };
  std::map<Key, Group> groups;
  std::map<int, std::set<uint32_t>> names;  // counters each variant has
  const NameTable* counter_names = nullptr;
  for_each_joined(kept, [&](size_t k, const JoinedCounters& jc, size_t i) {
    counter_names = &jc.counters;
    for (const auto& s : jc.by_dispatch[i]) names[variant_of(k)].insert(s.counter);
  });
  JoinedCounters one;
  one.by_dispatch.resize(1);
  if (!names.empty())
    for_each_joined(kept, [&](size_t k, const JoinedCounters& jc, size_t i) {
      if (jc.by_dispatch[i].empty()) return;
      if (one.counters.size() < jc.counters.size()) one.counters = jc.counters;
      const int v = variant_of(k);
      Group& g = groups[{m_model.variants[size_t(v)].family, std::string(to_string(phase_of(k)))}];
      std::map<std::pair<int64_t, int64_t>, std::vector<CounterSample>> launches;
      for (const auto& s : jc.by_dispatch[i]) {
        g.counters[s.counter].add(s.value, s.pass_id);
        launches[{s.pass_id, s.launch}].push_back(s);
      }
      g.launches += static_cast<int64_t>(launches.size());
      for (auto& [key, ss] : launches) {
        if (!tgt || ss.size() < names[v].size()) continue;
        one.by_dispatch[0] = std::move(ss);
        const DispatchMetrics m = dispatch_metrics(*tgt, one, 0);
        if (m.has_flops()) g.flops.add(m.flops(), key.first);
        if (m.has_bytes()) g.bytes.add(m.bytes(), key.first);
      }
    });
  for (const auto& [key, g] : groups) {
    std::optional<double> flops, bytes;
    std::string basis = "launch";
    if (g.flops.n > 0) flops = g.flops.mean();
    if (g.bytes.n > 0) bytes = g.bytes.mean();
    if (tgt && (!flops || !bytes)) {
      JoinedCounters means;
      means.by_dispatch.resize(1);
      for (const auto& [id, m] : g.counters)
        means.by_dispatch[0].push_back(
            {means.counters.intern(counter_names->name(id)), m.mean(), *m.passes.begin()});
      const DispatchMetrics mm = dispatch_metrics(*tgt, means, 0);
      if (!flops && mm.has_flops()) flops = mm.flops(), basis = "means";
      if (!bytes && mm.has_bytes()) bytes = mm.bytes(), basis = "means";
    }
    if (!flops && !bytes) basis.clear();
    std::optional<double> rse;
    for (const auto& [id, m] : g.counters) {
      const auto sd = m.sd();
      if (!sd || m.mean() == 0) continue;
      const double r = 100.0 * *sd / std::sqrt(double(m.n)) / std::abs(m.mean());
      rse = std::max(rse.value_or(0.0), r);
    }
    std::optional<double> intensity;
    if (flops && bytes && *bytes > 0) intensity = *flops / *bytes;
    t.rows.push_back({key.first, key.second, g.launches, opt(flops), opt(bytes), opt(intensity),
                      opt(rse), basis.empty() ? Cell() : Cell(basis)});
  }
  if (groups.empty()) t.notes.push_back(k_no_joined_counters);
  t.notes.push_back(
      "launches: counter-pass launches counted; flops, bytes: per launch; max_rse_pct: the largest "
      "standard error of a counter's mean, as % of the mean; basis: launch (each launch had every "
      "input) or means (from the counters' means). --all shows every variant and counter with n, "
      "mean, sd and se");
  add_join_notes(t);
  return t;
}

}  // namespace kprof::analysis
