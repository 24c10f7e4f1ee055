#include "core/plan/runbook_request.hpp"

#include <algorithm>

#include "core/base/text.hpp"

namespace kprof::plan {

Request request_from_runbook(const runbook::Runbook& rb, const hw::Target& target,
                             const std::vector<hw::MetricSet>& sets) {
  Request r;
  const auto& cp = rb.passes.counters;
  for (const auto& name : cp.metric_sets.value) {
    auto it = std::find_if(sets.begin(), sets.end(),
                           [&](const hw::MetricSet& s) { return s.name == name.value; });
    if (it == sets.end()) {
      std::vector<std::string> names;
      for (const auto& s : sets) names.push_back(s.name);
      throw Error(ErrorKind::input,
                  runbook::diagnostic(rb, name.pos, "unknown metric set '" + name.value + "'",
                                      did_you_mean(nearest_names(name.value, names, 3, true))));
    }
    append_metric_set(r, *it);
  }
  auto check = [&](const runbook::LocatedString& n) {
    if (target.kind_of(n.value) == hw::CounterKind::unknown)
      throw Error(
          ErrorKind::input,
          runbook::diagnostic(rb, n.pos, "unknown counter '" + n.value + "' for " + target.arch(),
                              did_you_mean(target.nearest(n.value))));
  };
  for (const auto& c : cp.counters.value) {
    check(c);
    r.counters.push_back(Requested{c.value, c.pos});
  }
  for (const auto& pin : cp.pins.value) {
    Pin p;
    p.pos = pin.pos;
    for (const auto& n : pin.value) {
      check(n);
      p.names.push_back(n.value);
    }
    r.pins.push_back(std::move(p));
  }
  return r;
}

}  // namespace kprof::plan
