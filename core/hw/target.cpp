// Queries on a loaded Target: counter lookup, expansion to hardware events, occupancy, evaluation.
//
// Evaluation semantics (the inputs are what rocprofv3 writes per dispatch: one value per counter,
// already summed over all XCD/instance/SE dimensions):
//   - reduce(X, sum) of a summed value is the value itself.
//   - reduce(X, avr) = sum / N, N = the block's values_per_dispatch from the hardware file
//     (e.g. 8 for GRBM: one value per XCD; 128 for TCC: 8 XCDs x 16 channels).
//   - reduce(X, max) and reduce(X, min) cannot be recovered from a sum; we use sum / N too, i.e.
//     we assume the instances are balanced. This is exact for the ratios the catalog uses them in
//     (GPU_UTIL = GRBM_GUI_ACTIVE max / GRBM_COUNT max) and matches rocprofiler-compute's own
//     normalisation GRBM_GUI_ACTIVE_PER_XCD = GRBM_GUI_ACTIVE / $num_xcd (RPC25 utils/parser.py);
//     for imbalanced instances it under-estimates max and over-estimates min.
//   - Unreduced counters inside arithmetic use the summed value. rocprofiler-sdk applies the
//     arithmetic per instance and rocprofv3 then sums; both agree for the linear expressions the
//     catalog has (X*512, a-b), and differ for per-instance non-linear ones (none for gfx942).
//   - select(X, [...]) picks instances, which a summed input does not hold: no value (nullopt).
//   - Division by zero or a non-finite result: no value (nullopt), never NaN/inf.
#include <algorithm>
#include <cmath>
#include <set>

#include "core/base/text.hpp"
#include "core/hw/expr.hpp"
#include "core/hw/target_impl.hpp"

namespace kprof::hw {

struct Target::Impl : detail::TargetData {
  explicit Impl(detail::TargetData d) : detail::TargetData(std::move(d)) {}
};

namespace {

using Data = detail::TargetData;

void add_unique(std::vector<Event>& out, const Event& e) {
  if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
}

// Expands `e` into hardware events. `visiting` guards against derived counters defined in terms
// of themselves.
void expand(const Data& d, const Expr& e, std::vector<Event>& out,
            std::vector<std::string>& visiting);

void expand_name(const Data& d, const std::string& name, std::vector<Event>& out,
                 std::vector<std::string>& visiting) {
  if (d.base.count(name)) {
    add_unique(out, Event{name, ""});
    return;
  }
  auto it = d.derived.find(name);
  if (it == d.derived.end()) return;  // a constant
  if (std::find(visiting.begin(), visiting.end(), name) != visiting.end()) {
    visiting.push_back(name);
    throw Error(ErrorKind::input,
                Diagnostic{it->second.pos,
                           "derived counter '" + name + "' is defined in terms of itself",
                           "cycle: " + join(visiting, " -> "),
                           {}});
  }
  visiting.push_back(name);
  expand(d, *it->second.expr, out, visiting);
  visiting.pop_back();
}

void expand(const Data& d, const Expr& e, std::vector<Event>& out,
            std::vector<std::string>& visiting) {
  switch (e.kind) {
    case ExprKind::name:
      expand_name(d, e.name, out, visiting);
      return;
    case ExprKind::accumulate:
      // The accumulator sums the *previous* SQ counter, so the LEVEL counter itself must be
      // programmed in the same pass (ROCm/aqlprofile src/core/counters.cpp): both events are
      // needed.
      add_unique(out, Event{e.name, e.mode});
      add_unique(out, Event{e.name, ""});
      return;
    default:
      for (const auto& a : e.args) expand(d, *a, out, visiting);
  }
}

// "TCC_HIT[17]" -> {"TCC_HIT", 17}; nullopt when `name` has no channel suffix.
std::optional<std::pair<std::string, long>> split_channel(std::string_view name) {
  if (name.size() < 4 || name.back() != ']') return std::nullopt;
  size_t open = name.rfind('[');
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::string_view digits = name.substr(open + 1, name.size() - open - 2);
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return std::make_pair(std::string(name.substr(0, open)), v);
}

bool finite(double v) { return std::isfinite(v); }

}  // namespace

Target Target::from_data(detail::TargetData data) {
  for (const auto& [name, dc] : data.derived) {
    std::vector<Event> ev;
    std::vector<std::string> visiting{name};
    expand(data, *dc.expr, ev, visiting);
    std::sort(ev.begin(), ev.end());
    data.derived_events[name] = std::move(ev);
  }
  Target t;
  t.m_impl = std::make_shared<const Impl>(std::move(data));
  return t;
}

std::string Event::str() const { return flag.empty() ? counter : counter + ":" + flag; }

const std::string& Target::arch() const { return m_impl->arch; }
const std::string& Target::source_path() const { return m_impl->path; }
const std::vector<Block>& Target::blocks() const { return m_impl->blocks; }
const Peaks& Target::peaks() const { return m_impl->peaks; }
const std::map<std::string, double>& Target::constants() const { return m_impl->constants; }
int Target::accumulate_per_pass() const { return m_impl->accumulate_per_pass; }
const std::vector<std::string>& Target::accumulate_counters() const {
  return m_impl->accumulate_counters;
}

const Block* Target::block(std::string_view name) const {
  auto it = m_impl->block_index.find(std::string(name));
  return it == m_impl->block_index.end() ? nullptr : &m_impl->blocks[it->second];
}

const BaseCounter* Target::base(std::string_view name) const {
  auto it = m_impl->base.find(name);
  return it == m_impl->base.end() ? nullptr : &it->second;
}

const DerivedCounter* Target::derived(std::string_view name) const {
  auto it = m_impl->derived.find(name);
  return it == m_impl->derived.end() ? nullptr : &it->second;
}

std::vector<std::string> Target::base_names() const { return m_impl->base_names(); }

std::vector<std::string> Target::derived_names() const {
  std::vector<std::string> v;
  for (const auto& [k, c] : m_impl->derived) v.push_back(k);
  return v;
}

std::vector<std::string> Target::counter_names() const {
  std::vector<std::string> v = base_names();
  for (const auto& [k, c] : m_impl->derived) v.push_back(k);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> Target::nearest(std::string_view name, size_t n) const {
  return nearest_names(name, counter_names(), n, true);
}

const char* to_string(CounterKind kind) {
  switch (kind) {
    case CounterKind::base:
      return "base";
    case CounterKind::derived:
      return "derived";
    case CounterKind::channel:
      return "channel";
    case CounterKind::unknown:
      break;
  }
  return "unknown";
}

CounterKind Target::kind_of(std::string_view name) const {
  if (base(name)) return CounterKind::base;
  if (derived(name)) return CounterKind::derived;
  if (auto ch = split_channel(name)) {
    const BaseCounter* b = base(ch->first);
    const Block* blk = b ? block(b->block) : nullptr;
    if (blk && ch->second < blk->values_per_dispatch && blk->values_per_dispatch > 1)
      return CounterKind::channel;
  }
  return CounterKind::unknown;
}

const Block* Target::block_of(const Event& event) const {
  const BaseCounter* b = base(event.counter);
  return b ? block(b->block) : nullptr;
}

std::vector<Event> Target::events_of(std::string_view name) const {
  return events_at(name, std::nullopt);
}

std::vector<Event> Target::events_at(std::string_view name,
                                     const std::optional<SourcePos>& pos) const {
  if (base(name)) return {Event{std::string(name), ""}};
  auto it = m_impl->derived_events.find(name);
  if (it != m_impl->derived_events.end()) return it->second;
  if (kind_of(name) == CounterKind::channel) return {Event{split_channel(name)->first, ""}};
  std::string hint = did_you_mean(nearest(name));
  if (auto ch = split_channel(name); ch && base(ch->first)) {
    const Block* blk = block(base(ch->first)->block);
    hint = blk->values_per_dispatch > 1 ? "channels of " + ch->first + " are [0.." +
                                              std::to_string(blk->values_per_dispatch - 1) + "]"
                                        : "block " + blk->name + " has no per-channel values";
  }
  throw Error::input("unknown counter '" + std::string(name) + "' for " + m_impl->arch, hint, pos);
}

std::vector<Event> Target::events_of(const Expr& expr) const {
  std::vector<Event> out;
  std::vector<std::string> visiting;
  expand(*m_impl, expr, out, visiting);
  std::sort(out.begin(), out.end());
  return out;
}

Occupancy Target::occupancy(const std::vector<std::string>& names) const {
  std::set<Event> events;
  for (const auto& n : names)
    for (const auto& e : events_of(n)) events.insert(e);
  Occupancy occ;
  std::set<std::string> over;
  for (const auto& e : events) {
    const Block* b = block_of(e);
    ++occ.used[b->name];
    if (!e.flag.empty()) {
      ++occ.accumulate_events;
      if (occ.accumulate_events > m_impl->accumulate_per_pass) over.insert(b->name);
    }
  }
  for (const auto& [blk, n] : occ.used)
    if (n > block(blk)->counters_per_pass) over.insert(blk);
  occ.over_blocks.assign(over.begin(), over.end());
  return occ;
}

namespace {

struct Evaluator {
  const Target& t;
  const Data& d;
  const std::function<std::optional<double>(const Event&)>& base_value;
  // Target::evaluate_formula's values of the formula's own names; null inside function calls and
  // derived definitions, and for evaluate().
  const std::function<std::optional<double>(const Expr&)>* own_value = nullptr;
  int depth = 0;

  std::optional<double> name(const std::string& n) {
    if (t.base(n)) return base_value(Event{n, ""});
    if (const DerivedCounter* dc = t.derived(n)) {
      if (++depth > 64) return std::nullopt;  // cycles are rejected at load; this is a backstop
      auto v = eval(*dc->expr);
      --depth;
      return v;
    }
    auto c = d.constants.find(n);
    if (c != d.constants.end()) return c->second;
    return std::nullopt;
  }

  // A name of the formula's own arithmetic: the caller's value, else the target's constant (a
  // property of the device, the same for every dispatch: occupancy.yaml divides by num_xcd and
  // CU_NUM), else a derived counter's.
  std::optional<double> own_name(const Expr& e) {
    if (auto v = (*own_value)(e)) return v;
    if (auto c = d.constants.find(e.name); c != d.constants.end()) return c->second;
    if (t.base(e.name) || !t.derived(e.name)) return std::nullopt;
    return without_own_values([&] { return name(e.name); });
  }

  template <class F>
  std::optional<double> without_own_values(F&& f) {
    const auto* saved = own_value;
    own_value = nullptr;
    auto v = f();
    own_value = saved;
    return v;
  }

  std::optional<double> eval(const Expr& e) {
    std::optional<double> r;
    const bool arithmetic = e.kind == ExprKind::number || e.kind == ExprKind::name ||
                            e.kind == ExprKind::negate || e.kind == ExprKind::binary;
    if (own_value && !arithmetic) return without_own_values([&] { return eval(e); });
    switch (e.kind) {
      case ExprKind::number:
        r = e.number;
        break;
      case ExprKind::name:
        r = own_value ? own_name(e) : name(e.name);
        break;
      case ExprKind::negate:
        if (auto a = eval(*e.args[0])) r = -*a;
        break;
      case ExprKind::binary: {
        auto a = eval(*e.args[0]);
        auto b = eval(*e.args[1]);
        if (!a || !b) return std::nullopt;
        switch (e.op) {
          case '+':
            r = *a + *b;
            break;
          case '-':
            r = *a - *b;
            break;
          case '*':
            r = *a * *b;
            break;
          case '/':
            if (*b == 0) return std::nullopt;
            r = *a / *b;
            break;
        }
        break;
      }
      case ExprKind::reduce: {
        auto a = eval(*e.args[0]);
        if (!a) return std::nullopt;
        if (e.mode == "sum") {
          r = a;
          break;
        }
        // avr/max/min of a sum: divide by the instance count of the one block involved.
        std::vector<Event> ev = t.events_of(*e.args[0]);
        std::set<std::string> blocks;
        for (const auto& x : ev) blocks.insert(t.block_of(x)->name);
        if (blocks.size() != 1) return blocks.empty() ? a : std::nullopt;
        r = *a / t.block(*blocks.begin())->values_per_dispatch;
        break;
      }
      case ExprKind::accumulate:
        r = base_value(Event{e.name, e.mode});
        break;
      case ExprKind::select:
        return std::nullopt;  // instance values are not in a summed input
      case ExprKind::call: {
        for (const auto& a : e.args) {
          auto v = eval(*a);
          if (!v) return std::nullopt;
          if (!r || (e.name == "max" ? *v > *r : *v < *r)) r = v;
        }
        break;
      }
    }
    if (r && !finite(*r)) return std::nullopt;
    return r;
  }
};

}  // namespace

std::optional<double> Target::evaluate(
    std::string_view name,
    const std::function<std::optional<double>(const Event&)>& base_value) const {
  if (base(name)) {
    auto v = base_value(Event{std::string(name), ""});
    return v && finite(*v) ? v : std::nullopt;
  }
  const DerivedCounter* dc = derived(name);
  if (!dc) {
    if (kind_of(name) == CounterKind::channel)
      return std::nullopt;  // one channel of a summed value: unknown
    events_of(name);        // throws the unknown-counter error with suggestions
    return std::nullopt;
  }
  return evaluate(*dc->expr, base_value);
}

std::optional<double> Target::evaluate(
    const Expr& expr, const std::function<std::optional<double>(const Event&)>& base_value) const {
  Evaluator ev{*this, *m_impl, base_value};
  return ev.eval(expr);
}

std::optional<double> Target::evaluate_formula(
    const Expr& expr, const std::function<std::optional<double>(const Event&)>& base_value,
    const std::function<std::optional<double>(const Expr&)>& own_value) const {
  Evaluator ev{*this, *m_impl, base_value, &own_value};
  return ev.eval(expr);
}

}  // namespace kprof::hw
