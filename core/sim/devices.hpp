// Which GPUs the profiled application sees, as ROCm decides it, and where the double's simulation
// stand-ins live.
//
// ROCm's rules (https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html,
// "GPU isolation variables"; ROCm/pytorch PR #1895, torch/cuda/__init__.py):
//   1. ROCR_VISIBLE_DEVICES (ROCr, under HIP and under rocprofiler's agent enumeration) lists
//      device indices or GPU UUIDs; only those devices exist for the process, in that order.
//   2. HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES when HIP's is unset) then lists indices into
//      what ROCr left, numbered from 0.
// As with CUDA's variable, a list stops at its first entry that names no device (so "N" with one
// device left and N >= 1 leaves none), and a device listed twice is kept once. No device left: a
// HIP application fails with hipErrorNoDevice ("no ROCm-capable device is detected").
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/model.hpp"

namespace kprof::sim {

struct Visibility {
  std::vector<int> gpus;  // physical GPU indices (type_index) HIP shows, in HIP's order
  std::string why;        // "ROCR_VISIBLE_DEVICES=3" etc., for messages
};

// `env`: the application's environment (name -> value). `uuids`: each GPU's UUID by physical
// index (may be empty).
Visibility visible_gpus(const std::map<std::string, std::string>& env, int gpu_count,
                        const std::vector<std::string>& uuids = {});

// visible_gpus over the GPU agents of `model` (their count, and their UUIDs by physical index).
Visibility visible_gpus(const std::map<std::string, std::string>& env, const Model& model);

// The model as the application sees it: CPU agents plus the ROCr-visible GPUs (rocprofiler only
// enumerates those), logical node ids and GPU type indices renumbered in order, the workload on
// HIP device 0. Node_Id keeps the physical KFD node (what --agent-index absolute prints). Returns
// nullopt when HIP sees no GPU.
std::optional<Model> model_for_visibility(const Model& model, const Visibility& v,
                                          const std::map<std::string, std::string>& env);

// <prefix>/share/kprof/standins beside the double's bin/ folder (build tree and installation
// alike), or $ROCPROF_SIM_STANDINS; nullopt when absent.
std::optional<std::filesystem::path> standins_dir();

}  // namespace kprof::sim
