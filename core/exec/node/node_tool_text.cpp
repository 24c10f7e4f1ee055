#include "core/exec/node/node_tool_text.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/text.hpp"

namespace kprof::exec {

namespace {

std::string trimmed(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// "  Key:   value" → {"Key", "value"}; no colon: {"", ""}.
std::pair<std::string, std::string> key_value(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {};
  return {trimmed(line.substr(0, colon)), trimmed(line.substr(colon + 1))};
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<GpuAgent> gpus_from_rocminfo(std::string_view text) {
  struct Block {
    GpuAgent agent;
    bool named = false, gpu = false;
  };
  std::vector<Block> blocks;
  for (const auto& raw : split(text, '\n')) {
    const std::string line = trimmed(raw);
    if (starts_with(line, "Agent ") && line.find(':') == std::string::npos) {
      blocks.emplace_back();
      continue;
    }
    if (blocks.empty()) continue;
    const auto [key, value] = key_value(line);
    Block& b = blocks.back();
    if (key == "Name" && !b.named) {  // later Name: lines are the agent's ISAs
      b.agent.arch = value;
      b.named = true;
    } else if (key == "Marketing Name" && b.agent.name.empty()) {
      b.agent.name = value;
    } else if (key == "Device Type") {
      b.gpu = value == "GPU";
    }
  }
  std::vector<GpuAgent> out;
  for (auto& b : blocks)
    if (b.gpu) out.push_back(std::move(b.agent));
  return out;
}

std::vector<GpuAgent> gpus_from_amd_smi(std::string_view text) {
  std::vector<GpuAgent> blocks;
  for (const auto& raw : split(text, '\n')) {
    const std::string line = trimmed(raw);
    const auto [key, value] = key_value(line);
    if (key == "GPU" && raw.find_first_not_of(" \t") == 0) {
      blocks.emplace_back();
    } else if (!blocks.empty() && lower(key) == "target_graphics_version") {
      blocks.back().arch = value;
    } else if (!blocks.empty() && (key == "MARKET_NAME" || lower(key) == "market name")) {
      blocks.back().name = value;
    }
  }
  std::erase_if(blocks, [](const GpuAgent& g) { return g.arch.empty(); });
  return blocks;
}

std::vector<GpuAgent> gpus_from_rocm_smi(std::string_view text) {
  std::vector<std::pair<std::string, GpuAgent>> gpus;  // (index, agent) in order met
  for (const auto& raw : split(text, '\n')) {
    const std::string line = trimmed(raw);
    if (!starts_with(line, "GPU[")) continue;
    const size_t close = line.find(']');
    if (close == std::string::npos) continue;
    const std::string index = line.substr(4, close - 4);
    const auto [colon, rest] = key_value(std::string_view(line).substr(close + 1));
    if (!colon.empty() || rest.empty())
      continue;  // "GPU[0] XCP[1]\t: ...": a partition, not another GPU
    const auto [key, value] = key_value(rest);
    auto it =
        std::find_if(gpus.begin(), gpus.end(), [&](const auto& g) { return g.first == index; });
    if (it == gpus.end()) {
      gpus.emplace_back(index, GpuAgent{});
      it = gpus.end() - 1;
    }
    const std::string k = lower(key);
    if (k == "gfx version" && starts_with(value, "gfx")) it->second.arch = value;
    if (k == "card series" && value != "N/A") it->second.name = value;
  }
  std::vector<GpuAgent> out;
  for (auto& g : gpus) out.push_back(std::move(g.second));
  return out;
}

std::set<std::string> counters_from_list_avail(std::string_view text) {
  std::set<std::string> out;
  for (const auto& raw : split(text, '\n')) {
    const auto [key, value] = key_value(raw);
    if (value.empty()) continue;
    if (lower(key) == "counter_name") out.insert(value);
    const std::string_view agent(key);
    if (starts_with(agent, "gpu-agent") && agent.size() > 9 &&
        std::all_of(agent.begin() + 9, agent.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      out.insert(value);
  }
  return out;
}

}  // namespace kprof::exec
