// `rocprofv3 -L/--list-avail` text: the PC-sampling block, then every counter of each GPU agent.
// Source: ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3_avail_module/avail.py
// (--pc-sampling, --pmc).
#pragma once

#include <string>

#include "core/hw/target.hpp"
#include "core/sim/model.hpp"

namespace kprof::sim {

std::string list_avail_text(const Model& model, const hw::Target& target);

// `rocprofv3 -L/--list-metrics` text of the releases before 7.0: one block per counter of each GPU
// agent, headed "gpu-agentN:\tNAME" with N the agent's logical node id, a basic counter's
// Description/Block/Dimensions tab-separated, a derived one's "Description: "/"Expression: "/
// "Dimensions: " (ROCm/rocprofiler-sdk source/lib/rocprofiler-sdk-tool/tool.cpp,
// list_metrics_iterate_agents, at rocm-6.2.x).
std::string list_metrics_text(const Model& model, const hw::Target& target);

}  // namespace kprof::sim
