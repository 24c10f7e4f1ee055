#include "core/exec/usecases/run_estimate.hpp"

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "core/base/error.hpp"
#include "core/exec/passes/kernel_selection.hpp"

namespace kprof::exec {

std::optional<ModelRotation> rotation_on_model(const runbook::Runbook& rb, size_t groups,
                                               int64_t min_samples,
                                               const WorkloadModelLoader& load) {
  if (!rb.sim.present || rb.sim.model.value.empty() || !load) return std::nullopt;
  WorkloadModel model;
  try {
    model = load(rb.sim.model.value);
  } catch (const Error&) {
    return std::nullopt;
  }
  // The counted dispatches of one request (the region), by variant: kernel and launch shape, as
  // the trace-based preview groups them (rotation_preview.cpp).
  const auto passes = kernel_regex_filter(rb.passes.counters.kernels);
  // The regexes once per kernel symbol, not once per modelled dispatch.
  std::vector<char> counted(model.symbols.size());
  for (size_t s = 0; s < model.symbols.size(); ++s) counted[s] = passes(model.symbols[s]);
  std::map<std::tuple<int, uint32_t, uint32_t, uint32_t>, int> variant;
  plan::RotationRequest q;
  for (const auto& d : model.dispatches) {
    if (!d.in_region || !counted[static_cast<size_t>(d.symbol)]) continue;
    const auto key = std::make_tuple(d.symbol, d.grid[0], d.grid[1], d.grid[2]);
    q.sequence.push_back(variant.emplace(key, static_cast<int>(variant.size())).first->second);
  }
  q.variants = variant.size();
  q.groups = groups;
  q.min_samples = min_samples;
  ModelRotation out;
  out.choice = plan::choose_rotation(q);
  out.counted = static_cast<int64_t>(q.sequence.size());
  out.variants = q.variants;
  out.model = model.name;
  return out;
}

WorkloadModelLoader loaded_once(WorkloadModelLoader load) {
  if (!load) return load;
  auto models = std::make_shared<std::map<std::string, WorkloadModel>>();
  return [load = std::move(load), models](const std::string& name) {
    auto it = models->find(name);
    if (it == models->end()) it = models->emplace(name, load(name)).first;
    return it->second;
  };
}

RunEstimate estimate_runs(const runbook::Runbook& rb, size_t passes, int repeats, int64_t counted,
                          const WorkloadModelLoader& load) {
  RunEstimate e;
  if (!rb.sim.present || rb.sim.model.value.empty() || !load) {
    e.unavailable = "no workload model (the runbook's sim.model) to estimate run times from";
    return e;
  }
  WorkloadModel t;
  try {
    t = load(rb.sim.model.value);
  } catch (const Error& err) {
    e.unavailable = std::string("workload model not readable: ") + err.what();
    return e;
  }
  e.model = rb.sim.model.value;
  e.load_s = t.load_ns * 1e-9;
  e.warmup_s = t.warmup_ns * 1e-9;
  e.region_s = t.region_ns * 1e-9;
  const double counted_s = static_cast<double>(counted) * t.counter_extra_ns * 1e-9;
  const double trace = e.load_s + e.warmup_s + e.region_s;
  const double counter = e.load_s + e.warmup_s + e.region_s + counted_s;
  e.application_runs = 1 + static_cast<int>(passes);
  e.repeats = repeats;
  e.application_s = trace + static_cast<double>(passes) * counter;
  e.rotated_s = trace + e.load_s + e.warmup_s + repeats * (e.region_s + counted_s);
  return e;
}

}  // namespace kprof::exec
