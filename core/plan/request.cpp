#include "core/plan/request.hpp"

namespace kprof::plan {

void append_metric_set(Request& r, const hw::MetricSet& s) {
  for (size_t i = 0; i < s.counters.size(); ++i)
    r.counters.push_back(Requested{s.counters[i], s.counter_pos[i]});
  for (const auto& m : s.metrics) r.groups.push_back(SoftGroup{s.name + "." + m.name, m.counters});
}

Request request_from_sets(const std::vector<hw::MetricSet>& sets) {
  Request r;
  for (const auto& s : sets) append_metric_set(r, s);
  return r;
}

}  // namespace kprof::plan
