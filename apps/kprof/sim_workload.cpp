#include "apps/kprof/sim_workload.hpp"

#include "core/sim/model.hpp"

namespace kprof::app {

exec::WorkloadModelLoader sim_workload_model_loader() {
  return [](const std::string& name_or_path) {
    const sim::Model m = sim::load_model_named(name_or_path);
    const sim::RunTimes t = sim::run_times(m);
    exec::WorkloadModel out;
    out.name = m.name;
    out.symbols.reserve(m.symbols.size());
    for (const auto& s : m.symbols) out.symbols.push_back(s.name);
    out.dispatches.reserve(m.dispatches.size());
    for (const auto& d : m.dispatches) out.dispatches.push_back({d.symbol, d.grid, d.in_region});
    out.load_ns = t.load_ns;
    out.warmup_ns = t.warmup_ns;
    out.region_ns = t.region_ns;
    out.counter_extra_ns = t.counter_extra_ns;
    return out;
  };
}

}  // namespace kprof::app
