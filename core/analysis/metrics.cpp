#include "core/analysis/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

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

// A binary operator of an analysis formula: empty when an operand is, or on a division by zero.
std::optional<double> arithmetic(char op, std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  switch (op) {
    case '+':
      return *a + *b;
    case '-':
      return *a - *b;
    case '*':
      return *a * *b;
    default:
      return *b == 0 ? std::nullopt : std::optional<double>(*a / *b);
  }
}

// Evaluates an analysis formula for one dispatch. Names resolve to a collected value first (base
// or derived, as rocprofv3 wrote it), then to the target's derived expression over collected base
// values. Every pass a value came from is added to `passes`.
struct Resolver {
  const hw::Target& target;
  const JoinedCounters& joined;
  const std::vector<CounterSample>& samples;
  std::set<int64_t>& passes;

  std::optional<double> collected(const std::string& name) {
    auto id = joined.counters.find(name);
    if (!id) return std::nullopt;
    for (const auto& s : samples)
      if (s.counter == *id) {
        passes.insert(s.pass_id);
        return s.value;
      }
    return std::nullopt;
  }

  std::optional<double> name(const std::string& n) {
    if (auto v = collected(n)) return v;
    if (target.derived(n)) {
      return target.evaluate(
          n, [&](const hw::Event& e) -> std::optional<double> { return collected(e.counter); });
    }
    return std::nullopt;
  }

  std::optional<double> eval(const hw::Expr& e) {
    switch (e.kind) {
      case hw::ExprKind::number:
        return e.number;
      case hw::ExprKind::name:
        return name(e.name);
      case hw::ExprKind::negate: {
        auto a = eval(*e.args[0]);
        return a ? std::optional<double>(-*a) : std::nullopt;
      }
      case hw::ExprKind::binary: {
        auto a = eval(*e.args[0]);
        return arithmetic(e.op, a, eval(*e.args[1]));
      }
      default:  // reduce/select/accumulate: the target's evaluator knows their semantics
        return target.evaluate(e, [&](const hw::Event& ev) { return collected(ev.counter); });
    }
  }
};

// A formula bound to one sequence of counter ids (DispatchMetricsCache): each name is replaced by
// what Resolver would find for it, the first sample of its id or the target's derived expression,
// so a dispatch with that sequence only does the arithmetic. Where the result must be empty
// whatever the values (an input not collected), the node is `fail`: a formula's value is empty as
// soon as one input is (every operator of Resolver and of the target's evaluator needs all its
// inputs), and the passes of a formula without a value are never used, so skipping it changes
// nothing.
struct BoundNode {
  enum class Kind { number, sample, negate, binary, target_name, target_expr };
  Kind kind = Kind::number;
  double number = 0;
  size_t sample = 0;               // sample: index into the dispatch's samples
  char op = 0;                     // binary
  int a = -1, b = -1;              // negate, binary: node indices
  const hw::Expr* expr = nullptr;  // target_name, target_expr: left to Resolver, as before
};
constexpr int k_fail = -1;

struct Binder {
  const hw::Target& target;
  const JoinedCounters& joined;
  const std::vector<CounterSample>& samples;
  std::vector<BoundNode>& nodes;

  // The sample Resolver::collected reads for `name`: the first of its id.
  std::optional<size_t> sample_of(const std::string& name) const {
    auto id = joined.counters.find(name);
    if (!id) return std::nullopt;
    for (size_t i = 0; i < samples.size(); ++i)
      if (samples[i].counter == *id) return i;
    return std::nullopt;
  }

  // False when the target's evaluator (hw::Target::evaluate) returns nothing whatever the values:
  // an input it reads is not collected, or not a counter or constant (it mirrors Evaluator::name,
  // depth bound included). True only says that a value is possible; Resolver then evaluates it.
  bool possible(const hw::Expr& e, int depth) const {
    switch (e.kind) {
      case hw::ExprKind::number:
        return true;
      case hw::ExprKind::name:
        if (target.base(e.name)) return sample_of(e.name).has_value();
        if (const hw::DerivedCounter* dc = target.derived(e.name))
          return depth + 1 <= 64 && possible(*dc->expr, depth + 1);
        return target.constants().count(e.name) > 0;
      case hw::ExprKind::accumulate:
        return sample_of(e.name).has_value();
      case hw::ExprKind::select:
        return false;
      default:
        for (const auto& a : e.args)
          if (!possible(*a, depth)) return false;
        return true;
    }
  }

  int add(BoundNode n) {
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }

  // Resolver::eval's cases, bound.
  int bind(const hw::Expr& e) {
    BoundNode n;
    switch (e.kind) {
      case hw::ExprKind::number:
        n.number = e.number;
        return add(n);
      case hw::ExprKind::name: {
        if (auto i = sample_of(e.name)) {
          n.kind = BoundNode::Kind::sample;
          n.sample = *i;
          return add(n);
        }
        const hw::DerivedCounter* dc = target.derived(e.name);
        if (!dc) return k_fail;
        // Resolver::name -> Target::evaluate(name), which reads a base name as a base value.
        const bool ok = target.base(e.name) ? false : possible(*dc->expr, 0);
        if (!ok) return k_fail;
        n.kind = BoundNode::Kind::target_name;
        n.expr = &e;
        return add(n);
      }
      case hw::ExprKind::negate: {
        const int a = bind(*e.args[0]);
        if (a == k_fail) return k_fail;
        n.kind = BoundNode::Kind::negate;
        n.a = a;
        return add(n);
      }
      case hw::ExprKind::binary: {
        const int a = bind(*e.args[0]);
        const int b = bind(*e.args[1]);
        if (a == k_fail || b == k_fail) return k_fail;
        n.kind = BoundNode::Kind::binary;
        n.op = e.op;
        n.a = a;
        n.b = b;
        return add(n);
      }
      default:
        if (!possible(e, 0)) return k_fail;
        n.kind = BoundNode::Kind::target_expr;
        n.expr = &e;
        return add(n);
    }
  }
};

// Evaluates a bound formula as Resolver::eval evaluates the formula, appending the pass of every
// value read to `passes`.
struct BoundEval {
  const hw::Target& target;
  const JoinedCounters& joined;
  const std::vector<CounterSample>& samples;
  const std::vector<BoundNode>& nodes;
  std::vector<int64_t>& passes;

  std::optional<double> eval(int i) {
    const BoundNode& n = nodes[static_cast<size_t>(i)];
    switch (n.kind) {
      case BoundNode::Kind::number:
        return n.number;
      case BoundNode::Kind::sample:
        passes.push_back(samples[n.sample].pass_id);
        return samples[n.sample].value;
      case BoundNode::Kind::negate: {
        auto a = eval(n.a);
        return a ? std::optional<double>(-*a) : std::nullopt;
      }
      case BoundNode::Kind::binary: {
        auto a = eval(n.a);
        return arithmetic(n.op, a, eval(n.b));
      }
      default: {  // the target's evaluator, through Resolver as before
        std::set<int64_t> from;
        Resolver r{target, joined, samples, from};
        auto v = n.kind == BoundNode::Kind::target_name ? r.name(n.expr->name) : r.eval(*n.expr);
        passes.insert(passes.end(), from.begin(), from.end());
        return v;
      }
    }
  }
};

}  // namespace

struct DispatchMetricsCache::Plan {
  const hw::Target* target = nullptr;
  const Formulas* formulas = nullptr;
  std::vector<BoundNode> nodes;
  std::vector<int> flops;           // per Formulas::flops: root node, or k_fail
  int read[2] = {k_fail, k_fail};   // hbm_read: prefer_expr, expr
  int write[2] = {k_fail, k_fail};  // hbm_write: prefer_expr, expr
};

DispatchMetricsCache::DispatchMetricsCache() = default;
DispatchMetricsCache::~DispatchMetricsCache() = default;

DispatchMetrics DispatchMetricsCache::operator()(const hw::Target& target,
                                                 const JoinedCounters& joined,
                                                 size_t dispatch_index) {
  DispatchMetrics m;
  if (dispatch_index >= joined.by_dispatch.size()) return m;
  const auto& samples = joined.by_dispatch[dispatch_index];
  if (samples.empty()) return m;
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
      Binder b{target, joined, samples, plan->nodes};
      for (const hw::MetricFormula* t : plan->formulas->flops)
        plan->flops.push_back(b.bind(*t->expr));
      const auto bind_bytes = [&](const hw::MetricFormula& f, int(&roots)[2]) {
        if (f.prefer_expr) roots[0] = b.bind(*f.prefer_expr);
        if (f.expr) roots[1] = b.bind(*f.expr);
      };
      bind_bytes(*plan->formulas->hbm_read, plan->read);
      bind_bytes(*plan->formulas->hbm_write, plan->write);
      slot = std::move(plan);
    }
    m_last = slot.get();
  }
  const Plan& p = *m_last;
  const Formulas& f = *p.formulas;
  BoundEval ev{target, joined, samples, p.nodes, m_passes};
  // From here as dispatch_metrics.
  double best = -1;
  for (size_t i = 0; i < f.flops.size(); ++i) {
    if (p.flops[i] == k_fail) continue;
    const hw::MetricFormula* t = f.flops[i];
    m_passes.clear();
    auto v = ev.eval(p.flops[i]);
    if (!v) continue;
    auto& slot = t->measures.mfma() ? m.mfma_flops : m.valu_flops;
    slot = slot.value_or(0) + *v;
    m.flop_passes.insert(m_passes.begin(), m_passes.end());
    if (*v > best) best = *v, m.dominant_type = t->measures.flop_type;
  }
  const auto bytes = [&](const int(&roots)[2]) -> std::optional<double> {
    for (int root : roots) {
      if (root == k_fail) continue;
      m_passes.clear();
      if (auto v = ev.eval(root)) {
        m.byte_passes.insert(m_passes.begin(), m_passes.end());
        return v;
      }
    }
    return std::nullopt;
  };
  m.bytes_read = bytes(p.read);
  m.bytes_written = bytes(p.write);
  return m;
}

DispatchMetrics dispatch_metrics(const hw::Target& target, const JoinedCounters& joined,
                                 size_t dispatch_index) {
  DispatchMetrics m;
  static const std::vector<CounterSample> k_none;
  const auto& samples =
      dispatch_index < joined.by_dispatch.size() ? joined.by_dispatch[dispatch_index] : k_none;
  if (samples.empty()) return m;
  const Formulas& f = formulas_for(target);
  double best = -1;
  for (const hw::MetricFormula* t : f.flops) {
    std::set<int64_t> passes;
    Resolver r{target, joined, samples, passes};
    auto v = r.eval(*t->expr);
    if (!v) continue;
    auto& slot = t->measures.mfma() ? m.mfma_flops : m.valu_flops;
    slot = slot.value_or(0) + *v;
    m.flop_passes.insert(passes.begin(), passes.end());
    if (*v > best) best = *v, m.dominant_type = t->measures.flop_type;
  }
  // Bytes: the metric's `prefer` formula (FETCH_SIZE/WRITE_SIZE, KiB, when a pass collected them),
  // else its own formula over the HBM request counters, which fit gfx942's 4 TCC slots where
  // FETCH_SIZE+WRITE_SIZE do not.
  const auto bytes = [&](const hw::MetricFormula& formula) -> std::optional<double> {
    for (const auto* e : {formula.prefer_expr.get(), formula.expr.get()}) {
      if (!e) continue;
      std::set<int64_t> passes;
      Resolver r{target, joined, samples, passes};
      if (auto v = r.eval(*e)) {
        m.byte_passes.insert(passes.begin(), passes.end());
        return v;
      }
    }
    return std::nullopt;
  };
  m.bytes_read = bytes(*f.hbm_read);
  m.bytes_written = bytes(*f.hbm_write);
  return m;
}

FormulaValue evaluate_formula(const hw::Target& target, const JoinedCounters& joined,
                              size_t dispatch_index, const hw::MetricFormula& formula) {
  FormulaValue out;
  if (dispatch_index >= joined.by_dispatch.size()) return out;
  const auto& samples = joined.by_dispatch[dispatch_index];
  if (samples.empty()) return out;
  for (const auto* e : {formula.prefer_expr.get(), formula.expr.get()}) {
    if (!e) continue;
    std::set<int64_t> passes;
    Resolver r{target, joined, samples, passes};
    if (auto v = r.eval(*e)) {
      out.value = v;
      out.passes = std::move(passes);
      return out;
    }
  }
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
