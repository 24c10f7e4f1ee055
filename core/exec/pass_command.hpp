// The profiler backends: which executable runs a pass (rocprofv3, or the test double with
// --simulate), its argv (built by core/plan/rocprof_command.hpp) and the environment it needs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct Backend {
  std::string profiler;  // the executable for argv[0]
  bool simulated = false;
  std::optional<int64_t> seed;  // the double's seed
  // Set for every pass on top of kprof's environment: the runbook's workload.env, then what the
  // double needs (its model and seed).
  store::EnvDelta env;
};

// `simulate`: rocprofv3-sim from beside the kprof executable (kprof::self_exe_dir()) replaces the
// runbook's profiler. A runbook whose profiler already is rocprofv3-sim is simulated as well.
// Throws Error (runtime) when --simulate is asked and the double is missing.
Backend make_backend(const runbook::Runbook& rb, bool simulate);

// rocprofv3 --kernel-trace [--stats] [--marker-trace] -d DIR -o NAME -f FMT ... -- app
std::vector<std::string> trace_pass_argv(const runbook::Runbook& rb, const Backend& backend,
                                         const std::filesystem::path& output_dir,
                                         const std::string& output_name);
// rocprofv3 --pmc C... -d DIR -o NAME -f FMT [--kernel-include-regex RE] ... -- app
std::vector<std::string> counter_pass_argv(const runbook::Runbook& rb, const Backend& backend,
                                           const std::vector<std::string>& counters,
                                           const std::filesystem::path& output_dir,
                                           const std::string& output_name,
                                           const std::optional<std::string>& include_regex);

// Environment of one GPU slot of `--gpus`: the device made the only visible one. Both variables
// are documented ROCm ones (https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html);
// HIP_VISIBLE_DEVICES is what HIP applications such as vLLM honour, ROCR_VISIBLE_DEVICES also
// covers rocprofiler's own agent enumeration.
store::EnvDelta gpu_env(int gpu);

}  // namespace kprof::exec
