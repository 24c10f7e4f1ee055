#include "core/sim/devices.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/base/paths.hpp"
#include "core/base/text.hpp"

namespace kprof::sim {
namespace {

std::optional<int> as_index(const std::string& s, int count) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 6)
    return std::nullopt;
  const int i = std::stoi(s);
  return i < count ? std::optional<int>(i) : std::nullopt;
}

const std::string* find(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

}  // namespace

Visibility visible_gpus(const std::map<std::string, std::string>& env, int gpu_count,
                        const std::vector<std::string>& uuids) {
  Visibility v;
  std::vector<int> rocr;
  if (const std::string* r = find(env, "ROCR_VISIBLE_DEVICES")) {
    v.why = "ROCR_VISIBLE_DEVICES=" + *r;
    for (const auto& part : split(*r, ',')) {
      const std::string e(trim(part));
      std::optional<int> idx = as_index(e, gpu_count);
      if (!idx) {
        auto it = std::find(uuids.begin(), uuids.end(), e);
        if (!e.empty() && it != uuids.end()) idx = static_cast<int>(it - uuids.begin());
      }
      if (!idx) break;  // the list ends at the first entry that names no device
      if (std::find(rocr.begin(), rocr.end(), *idx) == rocr.end()) rocr.push_back(*idx);
    }
  } else {
    for (int i = 0; i < gpu_count; ++i) rocr.push_back(i);
  }
  const std::string* hip = find(env, "HIP_VISIBLE_DEVICES");
  const char* hip_name = "HIP_VISIBLE_DEVICES";
  if (!hip) {
    hip = find(env, "CUDA_VISIBLE_DEVICES");
    hip_name = "CUDA_VISIBLE_DEVICES";
  }
  if (!hip) {
    v.gpus = rocr;
    return v;
  }
  v.why += std::string(v.why.empty() ? "" : " ") + hip_name + "=" + *hip;
  for (const auto& part : split(*hip, ',')) {
    const auto idx = as_index(std::string(trim(part)), static_cast<int>(rocr.size()));
    if (!idx) break;
    const int gpu = rocr[static_cast<size_t>(*idx)];
    if (std::find(v.gpus.begin(), v.gpus.end(), gpu) == v.gpus.end()) v.gpus.push_back(gpu);
  }
  return v;
}

Visibility visible_gpus(const std::map<std::string, std::string>& env, const Model& model) {
  int gpu_count = 0;
  std::vector<std::string> uuids;
  for (const auto& a : model.agents) {
    if (!a.gpu) continue;
    ++gpu_count;
    auto it = a.fields.find("Uuid");
    uuids.push_back(it == a.fields.end() ? std::string() : it->second);
  }
  return visible_gpus(env, gpu_count, uuids);
}

std::optional<Model> model_for_visibility(const Model& model, const Visibility& v,
                                          const std::map<std::string, std::string>& env) {
  if (v.gpus.empty()) return std::nullopt;
  // What ROCr enumerates (rocprofiler's agents): CPUs, then the ROCR-visible GPUs in ROCR order.
  std::map<std::string, std::string> rocr_only;
  if (auto it = env.find("ROCR_VISIBLE_DEVICES"); it != env.end()) rocr_only.insert(*it);
  const Visibility rocr = visible_gpus(rocr_only, model);

  Model m = model;
  m.agents.clear();
  for (const auto& a : model.agents)
    if (!a.gpu) m.agents.push_back(a);
  const Agent* physical_of_type = nullptr;
  for (int g : rocr.gpus) {
    for (const auto& a : model.agents) {
      if (a.gpu && a.type_index == g) physical_of_type = &a;
    }
    m.agents.push_back(*physical_of_type);
  }
  // rocprofiler-sdk filters its agents by the isolation variables (CHANGELOG 0.6.0: "agent
  // visibility based on gpu isolation environment variables such as ROCR_VISIBLE_DEVICES").
  // UNCERTAIN: that Logical_Node_Id and the GPU type index are renumbered over the visible agents
  // was not checked on a node; Node_Id (absolute) keeps the KFD node either way.
  int logical = 0, gpu_n = 0;
  for (auto& a : m.agents) {
    a.logical_node_id = logical++;
    a.fields["Logical_Node_Id"] = std::to_string(a.logical_node_id);
    if (a.gpu) a.type_index = gpu_n++;
  }
  // HIP device 0 is the first GPU HIP shows; find it among the agents by its physical node id.
  int hip0_node = -1;
  for (const auto& a : model.agents)
    if (a.gpu && a.type_index == v.gpus.front()) hip0_node = a.node_id;
  for (size_t i = 0; i < m.agents.size(); ++i)
    if (m.agents[i].gpu && m.agents[i].node_id == hip0_node) m.gpu = static_cast<int>(i);
  // Every HIP device, found the same way (a tensor-parallel worker of local rank r uses device r).
  m.hip_devices.clear();
  for (int g : v.gpus) {
    int node = -1;
    for (const auto& a : model.agents)
      if (a.gpu && a.type_index == g) node = a.node_id;
    for (size_t i = 0; i < m.agents.size(); ++i)
      if (m.agents[i].gpu && m.agents[i].node_id == node)
        m.hip_devices.push_back(static_cast<int>(i));
  }
  return m;
}

std::optional<std::filesystem::path> standins_dir() {
  namespace fs = std::filesystem;
  if (const char* e = std::getenv("ROCPROF_SIM_STANDINS"); e && *e) {
    if (fs::is_directory(e)) return fs::path(e);
    return std::nullopt;
  }
  const fs::path p = self_exe_dir().parent_path() / "share" / "kprof" / "standins";
  if (fs::is_directory(p)) return p;
  return std::nullopt;
}

}  // namespace kprof::sim
