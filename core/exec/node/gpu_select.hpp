// `--gpus`: which variable makes a slot's devices the GPUs a pass's application sees.
//
// kprof sets ROCR_VISIBLE_DEVICES only. ROCr (the ROCm runtime under HIP, and under rocprofiler's
// own agent enumeration) exposes just the listed devices; HIP then numbers what ROCr exposes from
// 0, so HIP_VISIBLE_DEVICES=N on top of ROCR_VISIBLE_DEVICES=N asks for the N-th of one device and
// leaves the application none for every N >= 1 (ROCm/pytorch PR #1895, torch/cuda/__init__.py:
// "ROCR_VISIBLE_DEVICES filters, HIP_VISIBLE_DEVICES then indexes the remaining devices"). AMD
// recommends ROCR_VISIBLE_DEVICES on Linux
// (https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html, "GPU isolation
// variables"); it also keeps rocprofv3's counter collection on that one agent.
//
// Because HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES index what ROCr leaves, a pass with --gpus
// refuses them (from the runbook's workload.env or kprof's environment) instead of guessing. An
// inherited ROCR_VISIBLE_DEVICES (a Slurm allocation) is honoured: --gpus N means its N-th entry.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

// The GPU slots of `--gpus LIST`: consecutive entries, workload.ranks GPUs each (a pass of a
// tensor-parallel workload runs one worker per GPU, so a pass needs that many at once):
// `--gpus 0,1,2,3,4,5,6,7` with ranks 4 is {0,1,2,3} and {4,5,6,7}; with ranks 1 one slot per
// GPU. Empty for an empty list. Throws Error(input) when the list's length is not a multiple of
// the ranks.
std::vector<std::vector<int>> gpu_slots(const std::vector<int>& gpus, const runbook::Runbook& rb);

// "0,1,2,3", "5": a slot's GPUs as --gpus lists them.
std::string gpu_slot_text(const std::vector<int>& slot);

// The environment of each GPU slot: ROCR_VISIBLE_DEVICES lists the slot's GPUs in its order, so
// the slot's r-th GPU is the workload's device r (rank r under vLLM's tensor parallelism).
// `inherited` is kprof's own environment (name -> value). Throws Error(input) when
// HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES is set by the runbook or inherited, or a GPU is
// outside an inherited ROCR_VISIBLE_DEVICES list.
std::vector<store::EnvDelta> gpu_slot_envs(const std::vector<std::vector<int>>& slots,
                                           const runbook::Runbook& rb,
                                           const std::map<std::string, std::string>& inherited);

}  // namespace kprof::exec
