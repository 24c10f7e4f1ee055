#include "core/exec/node/gpu_select.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

std::vector<store::EnvDelta> gpu_slot_envs(const std::vector<int>& gpus, const runbook::Runbook& rb,
                                           const std::map<std::string, std::string>& inherited) {
  std::vector<store::EnvDelta> out;
  if (gpus.empty()) return out;
  for (const char* var : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    for (const auto& e : rb.workload.env.value) {
      if (e.name.value == var) {
        throw Error(ErrorKind::input,
                    runbook::diagnostic(rb, e.name.pos,
                                        std::string("workload.env sets ") + var +
                                            ", which would index the one device --gpus leaves",
                                        "remove it from the runbook; --gpus selects the device "
                                        "with ROCR_VISIBLE_DEVICES"));
      }
    }
    if (inherited.count(var)) {
      throw Error::input(std::string("--gpus: ") + var + "=" + inherited.at(var) +
                             " is set in kprof's environment and would index the one device "
                             "--gpus leaves",
                         std::string("unset ") + var + " (--gpus sets ROCR_VISIBLE_DEVICES)");
    }
  }
  std::vector<std::string> allowed;
  if (auto it = inherited.find("ROCR_VISIBLE_DEVICES"); it != inherited.end()) {
    for (const auto& p : split(it->second, ',')) allowed.emplace_back(trim(p));
  }
  for (int g : gpus) {
    std::string device = std::to_string(g);
    if (!allowed.empty()) {
      if (static_cast<size_t>(g) >= allowed.size()) {
        throw Error::input("--gpus: GPU " + device +
                               " is not in ROCR_VISIBLE_DEVICES=" + join(allowed, ",") + " (" +
                               std::to_string(allowed.size()) + " devices, numbered from 0)",
                           "pick indices into that list, or unset ROCR_VISIBLE_DEVICES");
      }
      device = allowed[static_cast<size_t>(g)];
    }
    out.push_back({{"ROCR_VISIBLE_DEVICES", device}});
  }
  return out;
}

}  // namespace kprof::exec
