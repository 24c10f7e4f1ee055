// What the ROCm tools of a node print, read into values for `kprof doctor`: the GPU agents of
// `rocminfo` and of `amd-smi static --asic`, and the counter names of `rocprofv3 --list-avail`.
// Text in, values out: these functions run nothing and know nothing of runbooks.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::exec {

struct GpuAgent {
  std::string arch;  // "gfx942"
  std::string name;  // "AMD Instinct MI300X", "" when the tool gave none
};

// The agents whose `Device Type:` is GPU, in the order printed. Each agent is the block after an
// "Agent N" header; its architecture is its first `Name:` line, its name the `Marketing Name:`
// (ROCm/rocminfo rocminfo.cc, DisplayAgentInfo: "Name:", "Marketing Name:", "Device Type:").
std::vector<GpuAgent> gpus_from_rocminfo(std::string_view text);

// The `GPU: N` blocks of `amd-smi static --asic`, each with its TARGET_GRAPHICS_VERSION and
// MARKET_NAME (ROCm/amdsmi CHANGELOG.md, "amd_smi_lib for ROCm 6.3.0", the `amd-smi static
// --asic` example). A block without a target version is left out.
std::vector<GpuAgent> gpus_from_amd_smi(std::string_view text);

// Every `Counter_Name` of `rocprofv3 --list-avail` (or `rocprofv3-avail list`), whatever the
// agent (ROCm/rocm-systems projects/rocprofiler-sdk/source/bin/rocprofv3_avail_module/avail.py).
std::set<std::string> counters_from_list_avail(std::string_view text);

}  // namespace kprof::exec
