#include "core/exec/profiler/counter_names.hpp"

#include <algorithm>

#include "core/base/text.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"

namespace kprof::exec {

namespace {

// Near names only: three far ones ("did you mean 'full', 'compute' or 'roofline'?") mislead.
std::string near_or(const std::string& name, const std::vector<std::string>& known,
                    const std::string& otherwise) {
  const std::string meant = did_you_mean(nearest_names(name, known, 3, false));
  return meant.empty() ? otherwise : meant;
}

}  // namespace

std::vector<Diagnostic> unknown_counter_names(const runbook::Runbook& rb) {
  const auto& cp = rb.passes.counters;
  std::vector<Diagnostic> out;
  if (!cp.metric_sets.value.empty()) {
    const auto sets = hw::metric_set_names();
    for (const auto& s : cp.metric_sets.value) {
      if (std::find(sets.begin(), sets.end(), s.value) != sets.end()) continue;
      out.push_back(runbook::diagnostic(
          rb, s.pos, "passes.counters.metric_sets: unknown metric set '" + s.value + "'",
          near_or(s.value, sets, "the metric sets are " + join(sets, ", "))));
    }
  }
  if (cp.counters.value.empty() && cp.pins.value.empty()) return out;
  std::optional<hw::Target> target;
  try {
    target = hw::Target::load_arch(rb.target.arch.value);
  } catch (const Error&) {
    return out;  // no hardware file for the arch: the plan says so, with its fix
  }
  const auto known = target->counter_names();
  const auto check = [&](const runbook::LocatedString& n, const std::string& key) {
    if (target->kind_of(n.value) != hw::CounterKind::unknown) return;
    out.push_back(runbook::diagnostic(
        rb, n.pos, key + ": unknown counter '" + n.value + "' for " + target->arch(),
        near_or(n.value, known, "'kprof counters' lists the counters of " + target->arch())));
  };
  for (const auto& c : cp.counters.value) check(c, "passes.counters.counters");
  for (const auto& pin : cp.pins.value)
    for (const auto& n : pin.value) check(n, "passes.counters.pins");
  return out;
}

}  // namespace kprof::exec
