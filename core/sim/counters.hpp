// Counter values of one dispatch, synthesized from the model's FLOPs, bytes, grid and duration:
// base hardware events are derived from those figures (documented per counter in counters.cpp),
// derived counters are then evaluated with the hardware catalog's own expressions
// (kprof::hw::Target::evaluate), so e.g. FETCH_SIZE gives back the model's bytes read in KB.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/hw/target.hpp"
#include "core/sim/model.hpp"
#include "core/sim/stream.hpp"

namespace kprof::sim {

// The requested counters split into those the catalog knows and those it does not.
struct CounterRequest {
  std::vector<std::string> found;    // collected, in output order
  std::vector<std::string> missing;  // unknown names (warning, skipped)
  hw::Occupancy occupancy;           // of `found`
};

CounterRequest resolve_counters(const hw::Target& target, const std::vector<std::string>& names);

class CounterModel {
 public:
  CounterModel(const hw::Target& target, const Model& model, uint64_t seed);

  // Value of a base hardware event for `r` (summed over all dimension instances, as rocprofv3
  // reports it), including the small seeded measurement noise of cycle and cache counters.
  double base_value(const DispatchRecord& r, const hw::Event& e) const;
  // Value of a requested counter (base, channel or derived) for `r`.
  std::optional<double> value(const DispatchRecord& r, const std::string& counter) const;
  // A base (hardware) counter, as opposed to a derived one.
  bool is_base(const std::string& counter) const { return m_target.base(counter) != nullptr; }
  const hw::Target& target() const { return m_target; }

 private:
  double noise(const DispatchRecord& r, const std::string& counter, double rel_sigma) const;
  int values_per_dispatch(const std::string& counter) const;

  const hw::Target& m_target;
  const Model& m_model;
  uint64_t m_seed;
};

}  // namespace kprof::sim
