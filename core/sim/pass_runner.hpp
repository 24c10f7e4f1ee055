// Internal to the double: one application run (one pass, or the rotated groups of one job) —
// spawning the application, emitting the model's dispatch stream for each profiled process,
// simulating faults and refusals, and writing the output files.
#pragma once

#include <string>
#include <vector>

#include "core/hw/target.hpp"
#include "core/sim/capture.hpp"
#include "core/sim/devices.hpp"
#include "core/sim/model.hpp"
#include "core/sim/options.hpp"
#include "core/sim/tool.hpp"
#include "core/sim/version.hpp"

namespace kprof::sim::detail {

struct PassContext {
  const Model* model;  // as the application sees it (its visible GPUs); nullptr: HIP sees none
  const hw::Target* target;
  JobOptions job;
  std::string pass_dir;  // "" or "pass_N"
  uint64_t seed;
  bool counter_pass;
  int layout;
  SimVersion version;
  Visibility visibility;
  CsvQuoting quoting = CsvQuoting::rocprofv3;
  // --replay-mode kernel with two groups or more: every counted dispatch runs once per group.
  bool kernel_replay = false;
};

struct Faults;

// Writes every capture's files (nothing under ROCPROF_SIM_WRITE_NOTHING); `counters` false drops
// the counter files (an abort before any counter was read).
void write_outputs(const PassContext& ctx, std::vector<ProcessCapture>& caps, const Faults& faults,
                   bool counters);

// Runs `app` once under `ctx` and says how the double must end.
Outcome run_pass(PassContext ctx, const std::vector<std::string>& app);

}  // namespace kprof::sim::detail
