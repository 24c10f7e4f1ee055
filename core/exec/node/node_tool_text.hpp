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

// The GPUs of `rocm-smi --showproductname`: lines "GPU[N]\t\t: Key: \t\tvalue" (rocm_smi.py
// printLog), of which "Card Series" names the card and "GFX Version" its target ("gfx" and the
// KFD target version: getTargetGfxVersion), per GPU index in order met (ROCm/rocm_smi_lib
// python_smi_tools/rocm_smi.py, showProduct). A rocm-smi older than the "GFX Version" line gives
// its GPUs with an empty arch; "N/A" (a target the library could not read) is empty too.
std::vector<GpuAgent> gpus_from_rocm_smi(std::string_view text);

// Every counter name of `rocprofv3 --list-avail` (or `rocprofv3-avail list`), whatever the
// agent, in either release's form: 7.0's `Counter_Name: NAME` lines (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/bin/rocprofv3_avail_module/avail.py), and before 7.0 one block
// per counter headed `gpu-agentN:\tNAME` (ROCm/rocprofiler-sdk
// source/lib/rocprofiler-sdk-tool/tool.cpp, list_metrics_iterate_agents, as of rocm-6.2.x).
std::set<std::string> counters_from_list_avail(std::string_view text);

}  // namespace kprof::exec
