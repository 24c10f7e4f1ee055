// One process's dispatch stream for one pass: the model's planned dispatches turned into records
// with dispatch ids, timestamps, the seeded nondeterminism of a rerun, and the counter-collection
// filter (include/exclude regex and iteration range) applied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/model.hpp"

namespace kprof::sim {

struct DispatchRecord {
  uint64_t dispatch_id = 0;
  uint64_t correlation_id = 0;
  const PlannedDispatch* plan = nullptr;
  uint64_t start = 0;
  uint64_t end = 0;
  bool collect = false;  // counters are collected for it
  int group = 0;         // with pmc_groups: the counter group it was given (never written out)
};

struct StreamSettings {
  uint64_t seed = 0;
  uint64_t clock_base_ns = 0;  // timestamps of the process start
  bool counter_pass = false;
  bool selected_regions = false;
  // Under selected_regions: whether the process had resumed the profiler when it ran the model's
  // part inside the region (`in_region` dispatches) and the part before it (the warm-up).
  bool region_active_inside = true;
  bool region_active_outside = false;
  bool perturb = false;  // apply the rerun perturbations (missing/extra optional kernel)
  std::optional<std::string> include_regex;
  std::optional<std::string> exclude_regex;
  std::vector<std::string> iteration_range;
  // pmc_groups rotation: with `groups` > 1 a collected dispatch gets group
  // (iter / interval) % groups, `iter` counting the collected dispatches of the agent before it.
  size_t groups = 0;
  uint64_t group_interval = 1;
  // Kernel replay (`--replay-mode kernel`): with `replay_passes` > 1 every collected dispatch runs
  // that many times in a row, pass k collecting group k, all under its one dispatch id
  // (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/
  // using-kernel-replay-rocprofv3.rst: "all passes of one logical dispatch share the same
  // dispatch_id"); memory is restored between passes, so later dispatches start later.
  size_t replay_passes = 0;
  // How many times the application repeated the measured request inside one run (the region's
  // dispatches occur that many times in a row).
  int region_repeats = 1;
  // A tensor-parallel rank (Model::ranks): this rank's extra time before each collective, and the
  // largest of all ranks'. Every rank runs with the same seed, so its compute between two
  // collectives takes exactly as long as every other rank's; a collective starts at the rank's
  // own arrival and ends, for all ranks alike, at the last arrival plus its modelled duration.
  double rank_delay_ns = 0;
  double max_rank_delay_ns = 0;
};

// Parsed --kernel-iteration-range: 1-based inclusive intervals. Throws CliFailure (exit 1) with the
// tool's "bad range format" / "expected integer" messages.
std::vector<std::pair<uint64_t, uint64_t>> parse_iteration_range(
    const std::vector<std::string>& raw);

// Records in the order the tool flushes them (mostly by dispatch id, with the occasional local
// reordering real captures show). `records` only holds what the trace would show (selected region).
struct Stream {
  std::vector<DispatchRecord> records;
  uint64_t dispatches_total = 0;  // ids consumed, including outside the region
};

Stream make_stream(const Model& model, const std::vector<PlannedDispatch>& plan,
                   const StreamSettings& settings);

// The display name a record gets with or without -T.
const std::string& display_name(const Model& model, const DispatchRecord& r, bool truncate);

}  // namespace kprof::sim
