// `rocprofv3 -L/--list-avail` text: the PC-sampling block, then every counter of each GPU agent.
// Facts: /work/shared/facts/rocprofv3.md section 5 (rocprofv3-avail info --pc-sampling / --pmc).
#pragma once

#include <string>

#include "core/hw/target.hpp"
#include "core/sim/model.hpp"

namespace kprof::sim {

std::string list_avail_text(const Model& model, const hw::Target& target);

}  // namespace kprof::sim
