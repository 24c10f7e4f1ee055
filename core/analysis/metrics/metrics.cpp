#include "core/analysis/metrics/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/hw/expr.hpp"
#include "core/hw/metric_set.hpp"

namespace kprof::analysis {
namespace {

// The formulas the analysis needs, from the metrics of the roofline set that carry a `measures:`
// tag (configs/metrics/roofline.yaml): FLOPs per type (MFMA types first, so an all-zero dispatch
// keeps a matrix type as before) and HBM bytes read and written.
struct Formulas {
  hw::MetricSet set;
  std::vector<const hw::MetricFormula*> flops;
  const hw::MetricFormula* hbm_read = nullptr;
  const hw::MetricFormula* hbm_write = nullptr;
};

const Formulas& formulas_for(const hw::Target& target) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Formulas>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[target.arch()];
  if (slot) return *slot;
  auto f = std::make_unique<Formulas>();
  f->set = hw::load_metric_set_named("roofline", target);
  for (const auto& m : f->set.metrics) {
    const hw::Measure& what = m.measures;
    if (what.quantity == hw::Quantity::flops) f->flops.push_back(&m);
    if (what.quantity == hw::Quantity::bytes && what.level == "HBM" && what.direction == "read")
      f->hbm_read = &m;
    if (what.quantity == hw::Quantity::bytes && what.level == "HBM" && what.direction == "write")
      f->hbm_write = &m;
  }
  std::stable_partition(f->flops.begin(), f->flops.end(),
                        [](const hw::MetricFormula* m) { return m->measures.mfma(); });
  if (f->flops.empty() || !f->hbm_read || !f->hbm_write)
    throw Error::input("metric set '" + f->set.source_path +
                           "' tags no FLOP formula or no HBM read/write bytes formula",
                       "add 'measures: flops TYPE' and 'measures: bytes HBM read|write' to its "
                       "metrics");
  slot = std::move(f);
  return *slot;
}

// One dispatch's samples, read by counter name: the first sample of the name's id, as rocprofv3
// wrote it (base or derived). Every sample read adds its pass to `passes`.
struct Samples {
  const JoinedCounters& joined;
  const std::vector<CounterSample>& samples;
  std::vector<int64_t>& passes;

  std::optional<size_t> index_of(const std::string& name) const {
    auto id = joined.counters.find(name);
    if (!id) return std::nullopt;
    for (size_t i = 0; i < samples.size(); ++i)
      if (samples[i].counter == *id) return i;
    return std::nullopt;
  }
  std::optional<double> read(std::optional<size_t> i) {
    if (!i) return std::nullopt;
    passes.push_back(samples[*i].pass_id);
    return samples[*i].value;
  }
};

// A formula's value for one dispatch, by core/hw's evaluator (hw::Target::evaluate_formula): a
// name the formula writes takes the value collected for it first, then the target's derived
// expression over collected base values. `own_index(name node)`: the sample of such a name.
template <class OwnIndex>
std::optional<double> formula_value(const hw::Target& target, Samples& in, const hw::Expr& e,
                                    OwnIndex&& own_index) {
  return target.evaluate_formula(
      e, [&](const hw::Event& ev) { return in.read(in.index_of(ev.counter)); },
      [&](const hw::Expr& name) { return in.read(own_index(name)); });
}

std::optional<double> formula_value(const hw::Target& target, Samples& in, const hw::Expr& e) {
  return formula_value(target, in, e, [&](const hw::Expr& name) { return in.index_of(name.name); });
}

// False when hw::Target::evaluate returns nothing for `e` whatever the values: an input it reads
// is not collected, or is no counter or constant (select reads instance values, never in a
// summed input). True only says that a value is possible.
bool possible(const hw::Target& target, const Samples& in, const hw::Expr& e, int depth) {
  switch (e.kind) {
    case hw::ExprKind::number:
      return true;
    case hw::ExprKind::name:
      if (target.base(e.name)) return in.index_of(e.name).has_value();
      if (const hw::DerivedCounter* dc = target.derived(e.name))
        return depth + 1 <= 64 && possible(target, in, *dc->expr, depth + 1);
      return target.constants().count(e.name) > 0;
    case hw::ExprKind::accumulate:
      return in.index_of(e.name).has_value();
    case hw::ExprKind::select:
      return false;
    default:
      for (const auto& a : e.args)
        if (!possible(target, in, *a, depth)) return false;
      return true;
  }
}

// Whether a formula has no value whatever the values (hw::Target::evaluate_formula, whose every
// operator needs all its inputs): a name of its arithmetic without a sample has none unless it is
// a derived counter that can have one; a function call needs all its inputs too.
bool lacks_input(const hw::Target& target, const Samples& in, const hw::Expr& e,
                 const std::unordered_map<const hw::Expr*, std::optional<size_t>>& sample_of) {
  switch (e.kind) {
    case hw::ExprKind::number:
      return false;
    case hw::ExprKind::name:
      if (sample_of.at(&e)) return false;
      return target.base(e.name) || !target.derived(e.name) || !possible(target, in, e, 0);
    case hw::ExprKind::negate:
    case hw::ExprKind::binary:
      for (const auto& a : e.args)
        if (lacks_input(target, in, *a, sample_of)) return true;
      return false;
    default:
      return !possible(target, in, e, 0);
  }
}

// Every name node of `e`, function arguments included.
void name_nodes(const hw::Expr& e, std::vector<const hw::Expr*>& out) {
  if (e.kind == hw::ExprKind::name) out.push_back(&e);
  for (const auto& a : e.args) name_nodes(*a, out);
}

// A metric's value: its `prefer` formula (FETCH_SIZE/WRITE_SIZE, KiB, when a pass collected them),
// else its own formula (for bytes, over the HBM request counters, which fit gfx942's 4 TCC slots
// where FETCH_SIZE+WRITE_SIZE do not). The passes of the formula that gave it go to `passes`.
template <class Value>
std::optional<double> preferred_value(const hw::MetricFormula& formula,
                                      std::vector<int64_t>& passes, Value&& value) {
  for (const auto* e : {formula.prefer_expr.get(), formula.expr.get()}) {
    if (!e) continue;
    passes.clear();
    if (auto v = value(*e)) return v;
  }
  passes.clear();
  return std::nullopt;
}

// FLOPs per type and HBM bytes of one dispatch, from the roofline formulas; `value(expr)` gives a
// formula's value and fills `passes` with its inputs' passes.
template <class Value>
DispatchMetrics roofline_metrics(const Formulas& f, std::vector<int64_t>& passes, Value&& value) {
  DispatchMetrics m;
  double best = -1;
  for (const hw::MetricFormula* t : f.flops) {
    passes.clear();
    auto v = value(*t->expr);
    if (!v) continue;
    auto& slot = t->measures.mfma() ? m.mfma_flops : m.valu_flops;
    slot = slot.value_or(0) + *v;
    m.flop_passes.insert(passes.begin(), passes.end());
    if (*v > best) best = *v, m.dominant_type = t->measures.flop_type;
  }
  const auto bytes = [&](const hw::MetricFormula& formula) {
    auto v = preferred_value(formula, passes, value);
    m.byte_passes.insert(passes.begin(), passes.end());
    return v;
  };
  m.bytes_read = bytes(*f.hbm_read);
  m.bytes_written = bytes(*f.hbm_write);
  return m;
}

}  // namespace

// Where each name node of the roofline formulas finds its sample, for one sequence of counter ids.
struct DispatchMetricsCache::Plan {
  const hw::Target* target = nullptr;
  const Formulas* formulas = nullptr;
  std::unordered_map<const hw::Expr*, std::optional<size_t>> sample_of;
  std::unordered_set<const hw::Expr*> without_value;  // formulas that cannot have a value
};

DispatchMetricsCache::DispatchMetricsCache() = default;
DispatchMetricsCache::~DispatchMetricsCache() = default;

DispatchMetrics DispatchMetricsCache::operator()(const hw::Target& target,
                                                 const JoinedCounters& joined,
                                                 size_t dispatch_index) {
  if (dispatch_index >= joined.by_dispatch.size()) return {};
  const auto& samples = joined.by_dispatch[dispatch_index];
  if (samples.empty()) return {};
  Samples in{joined, samples, m_passes};
  const bool same = m_last && m_last->target == &target && m_last_key.size() == samples.size() &&
                    std::equal(samples.begin(), samples.end(), m_last_key.begin(),
                               [](const CounterSample& s, uint32_t id) { return s.counter == id; });
  if (!same) {
    m_last_key.clear();
    for (const auto& s : samples) m_last_key.push_back(s.counter);
    auto& slot = m_plans[m_last_key];
    if (!slot || slot->target != &target) {
      auto plan = std::make_unique<Plan>();
      plan->target = &target;
      plan->formulas = &formulas_for(target);
      std::vector<const hw::Expr*> roots, names;
      for (const hw::MetricFormula* t : plan->formulas->flops) roots.push_back(t->expr.get());
      for (const hw::MetricFormula* b : {plan->formulas->hbm_read, plan->formulas->hbm_write})
        for (const auto* e : {b->prefer_expr.get(), b->expr.get()})
          if (e) roots.push_back(e);
      for (const hw::Expr* r : roots) name_nodes(*r, names);
      for (const hw::Expr* n : names) plan->sample_of[n] = in.index_of(n->name);
      for (const hw::Expr* r : roots)
        if (lacks_input(target, in, *r, plan->sample_of)) plan->without_value.insert(r);
      slot = std::move(plan);
    }
    m_last = slot.get();
  }
  const Plan& p = *m_last;
  return roofline_metrics(*p.formulas, m_passes, [&](const hw::Expr& e) -> std::optional<double> {
    if (p.without_value.count(&e)) return std::nullopt;
    return formula_value(target, in, e,
                         [&](const hw::Expr& name) { return p.sample_of.at(&name); });
  });
}

DispatchMetrics dispatch_metrics(const hw::Target& target, const JoinedCounters& joined,
                                 size_t dispatch_index) {
  static const std::vector<CounterSample> k_none;
  const auto& samples =
      dispatch_index < joined.by_dispatch.size() ? joined.by_dispatch[dispatch_index] : k_none;
  if (samples.empty()) return {};
  std::vector<int64_t> passes;
  Samples in{joined, samples, passes};
  return roofline_metrics(formulas_for(target), passes,
                          [&](const hw::Expr& e) { return formula_value(target, in, e); });
}

FormulaValue evaluate_formula(const hw::Target& target, const JoinedCounters& joined,
                              size_t dispatch_index, const hw::MetricFormula& formula) {
  FormulaValue out;
  if (dispatch_index >= joined.by_dispatch.size()) return out;
  const auto& samples = joined.by_dispatch[dispatch_index];
  if (samples.empty()) return out;
  std::vector<int64_t> passes;
  Samples in{joined, samples, passes};
  out.value = preferred_value(formula, passes,
                              [&](const hw::Expr& e) { return formula_value(target, in, e); });
  if (out.value) out.passes.insert(passes.begin(), passes.end());
  return out;
}

void GroupMetrics::add(const DispatchMetrics& m, int64_t trace_duration_ns) {
  ++dispatches;
  if (m.has_flops()) {
    ++with_flops;
    flops += m.flops();
    duration_ns_flops += static_cast<double>(trace_duration_ns);
    flop_passes.insert(m.flop_passes.begin(), m.flop_passes.end());
    if (!m.dominant_type.empty()) flops_by_type[m.dominant_type] += m.flops();
  }
  if (m.has_bytes()) {
    ++with_bytes;
    bytes_read += m.bytes_read.value_or(0);
    bytes_written += m.bytes_written.value_or(0);
    duration_ns_bytes += static_cast<double>(trace_duration_ns);
    byte_passes.insert(m.byte_passes.begin(), m.byte_passes.end());
  }
}

std::optional<double> GroupMetrics::mean_flops() const {
  return with_flops ? std::optional<double>(flops / with_flops) : std::nullopt;
}
std::optional<double> GroupMetrics::mean_bytes() const {
  return with_bytes ? std::optional<double>((bytes_read + bytes_written) / with_bytes)
                    : std::nullopt;
}
std::optional<double> GroupMetrics::intensity() const {
  auto f = mean_flops();
  auto b = mean_bytes();
  if (!f || !b || *b <= 0) return std::nullopt;
  return *f / *b;
}
std::optional<double> GroupMetrics::flops_per_s() const {
  if (!with_flops || duration_ns_flops <= 0) return std::nullopt;
  return flops / (duration_ns_flops * 1e-9);
}
std::optional<double> GroupMetrics::bytes_per_s() const {
  if (!with_bytes || duration_ns_bytes <= 0) return std::nullopt;
  return (bytes_read + bytes_written) / (duration_ns_bytes * 1e-9);
}
std::string GroupMetrics::dominant_type() const {
  std::string best;
  double v = -1;
  for (const auto& [t, f] : flops_by_type)
    if (f > v) v = f, best = t;
  return best;
}
bool GroupMetrics::mixed_passes() const {
  std::set<int64_t> all = flop_passes;
  all.insert(byte_passes.begin(), byte_passes.end());
  return all.size() > 1;
}
std::string GroupMetrics::passes_text() const {
  std::set<int64_t> all = flop_passes;
  all.insert(byte_passes.begin(), byte_passes.end());
  std::string s;
  for (auto p : all) s += (s.empty() ? "" : "+") + std::to_string(p);
  if (all.size() > 1) s += " (mixed)";
  return s;
}

double peak_flops_for(const hw::Peaks& peaks, const std::string& type) {
  if (type == "MFMA_F16" || type == "MFMA_BF16") return peaks.matrix_bf16_flops;
  if (type == "MFMA_F8") return peaks.matrix_fp8_flops;
  if (type == "MFMA_F32" || type == "MFMA_F64") return peaks.matrix_fp32_flops;
  if (type == "VALU_F64") return peaks.vector_fp64_flops;
  return peaks.vector_fp32_flops;
}

std::string suspect_text(const std::vector<SuspectFigure>& s) {
  std::string out;
  for (const auto& f : s) out += (out.empty() ? "" : "; ") + f.text;
  return out;
}

std::string suspect_codes(const std::vector<SuspectFigure>& s) {
  std::string out;
  for (const auto& f : s) out += (out.empty() ? "" : ";") + f.code();
  return out;
}

std::vector<SuspectFigure> impossible_figures(const GroupMetrics& g, const hw::Peaks& peaks) {
  std::vector<SuspectFigure> out;
  auto fixed = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return std::string(buf);
  };
  if (auto f = g.flops_per_s()) {
    const std::string type = g.dominant_type();
    const double peak = peak_flops_for(peaks, type);
    if (peak > 0 && *f > peak)
      out.push_back({"tflops", "above_peak",
                     "tflops " + fixed(*f / 1e12) + " > " + (type.empty() ? "FLOP" : type) +
                         " peak " + fixed(peak / 1e12)});
  }
  if (auto b = g.bytes_per_s(); b && peaks.hbm_bytes_per_s > 0 && *b > peaks.hbm_bytes_per_s)
    out.push_back(
        {"tbps", "above_hbm_peak",
         "tbps " + fixed(*b / 1e12) + " > HBM peak " + fixed(peaks.hbm_bytes_per_s / 1e12)});
  if (g.with_flops && g.flops < 0) out.push_back({"flops", "negative", "negative FLOP count"});
  if (g.with_bytes && (g.bytes_read < 0 || g.bytes_written < 0))
    out.push_back({"bytes", "negative", "negative byte count"});
  return out;
}

std::string suspect_reason(const GroupMetrics& g) {
  if (g.mixed_passes()) return "mixed passes: FLOPs and bytes from different application runs";
  return "counted work divided by trace durations of another application run; a join that "
         "matched other launches, or a counter that overcounts, gives such figures";
}

std::string suspect_cause(const GroupMetrics& g) {
  return g.mixed_passes() ? "mixed_passes" : "other_run_durations";
}

}  // namespace kprof::analysis
