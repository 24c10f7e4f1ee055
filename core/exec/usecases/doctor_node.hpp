// The checks of `kprof doctor` that look at the node rather than at kprof's own plan: GPUs,
// the workload's Python packages, the model's weights, free disk. Each runs the node's tools
// (tool_probe.hpp) and reads their text with node_tool_text.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/exec/usecases/doctor.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// The runbook's workload environment (workload.env) as the tools are run with it.
store::EnvDelta workload_env(const runbook::Runbook& rb);

// The GPUs from `rocminfo`, else `amd-smi static --asic`, else `rocm-smi --showproductname`; passes
// when one has `arch` (any GPU when `arch` is empty) and, for a tensor-parallel workload, when
// `ranks` of them have it (each pass runs one worker per GPU, workload.ranks).
DoctorCheck check_gpus(const std::string& arch, const store::EnvDelta& env, int ranks = 1);

// PyTorch and vLLM of the workload's python (its argv[0] when it is a python), found without
// importing either: nothing when the workload is not a python program.
std::vector<DoctorCheck> check_python_packages(const runbook::Runbook& rb);

// The weights named by `--model` in the workload's command: a local folder, or the Hugging Face
// cache; nullopt when the command names no model.
std::optional<DoctorCheck> check_model_weights(const runbook::Runbook& rb);

// Free space on the file system that will hold `captures` (its nearest existing folder).
DoctorCheck check_free_disk(const std::filesystem::path& captures, std::uint64_t min_free_bytes);

// Each of `counters` on the list `<profiler> <list>` prints (`list`: --list-avail, or the
// --list-metrics of releases before it; node_tool_text.hpp reads both forms).
DoctorCheck check_counters(const std::string& profiler, const std::string& list,
                           const store::EnvDelta& env, const std::set<std::string>& counters);

}  // namespace kprof::exec
