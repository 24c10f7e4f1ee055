#include "core/exec/node/gpu_select.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

std::vector<std::vector<int>> gpu_slots(const std::vector<int>& gpus, const runbook::Runbook& rb) {
  const auto n = static_cast<size_t>(std::max(1, rb.workload.ranks.value));
  if (gpus.size() % n != 0) {
    // The list's first whole slots, or the first n GPUs when it holds less than one.
    std::vector<int> example(gpus.begin(),
                             gpus.begin() + static_cast<std::ptrdiff_t>(gpus.size() / n * n));
    if (example.empty())
      for (size_t i = 0; i < n; ++i) example.push_back(static_cast<int>(i));
    throw Error(ErrorKind::input,
                runbook::diagnostic(
                    rb, rb.workload.ranks.pos,
                    "--gpus " + gpu_slot_text(gpus) + ": " + std::to_string(gpus.size()) +
                        (gpus.size() == 1 ? " GPU does" : " GPUs do") +
                        " not make slots of workload.ranks: " + std::to_string(n) +
                        " (each pass runs " + std::to_string(n) + " worker processes, one per GPU)",
                    "list a multiple of " + std::to_string(n) + " GPUs, e.g. --gpus " +
                        gpu_slot_text(example)));
  }
  std::vector<std::vector<int>> out;
  for (size_t i = 0; i < gpus.size(); i += n)
    out.emplace_back(gpus.begin() + static_cast<std::ptrdiff_t>(i),
                     gpus.begin() + static_cast<std::ptrdiff_t>(i + n));
  return out;
}

std::string gpu_slot_text(const std::vector<int>& slot) {
  std::string s;
  for (int g : slot) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

std::vector<store::EnvDelta> gpu_slot_envs(const std::vector<std::vector<int>>& slots,
                                           const runbook::Runbook& rb,
                                           const std::map<std::string, std::string>& inherited) {
  std::vector<store::EnvDelta> out;
  if (slots.empty()) return out;
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
  for (const auto& slot : slots) {
    std::vector<std::string> devices;
    for (int g : slot) {
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
      devices.push_back(device);
    }
    out.push_back({{"ROCR_VISIBLE_DEVICES", join(devices, ",")}});
  }
  return out;
}

}  // namespace kprof::exec
