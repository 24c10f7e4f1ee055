// `rocprofv3 -L/--list-avail` text: the PC-sampling block, then every counter of each GPU agent.
// Source: ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3_avail_module/avail.py
// (--pc-sampling, --pmc).
#pragma once

#include <string>

#include "core/hw/target.hpp"
#include "core/sim/model.hpp"

namespace kprof::sim {

std::string list_avail_text(const Model& model, const hw::Target& target);

}  // namespace kprof::sim
