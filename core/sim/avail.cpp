#include "core/sim/avail.hpp"

#include <string_view>

namespace kprof::sim {

namespace {

std::string key(std::string_view k, size_t width = 20) {
  std::string s(k);
  s.resize(std::max(width, s.size()), ' ');
  return s + ":\t";
}

bool shader_engine_block(const std::string& b) {
  return b == "SQ" || b == "SPI" || b == "TA" || b == "TD" || b == "TCP";
}

}  // namespace

std::string list_avail_text(const Model& model, const hw::Target& target) {
  std::string out;
  for (const auto& a : model.agents) {
    if (!a.gpu) continue;
    out += key("GPU", 8) + std::to_string(a.type_index) + "\n";
    out += key("Name", 8) + model.arch + "\n";
    out += "configs :\n";
    out += "   " + key("Method") + "host_trap\n";
    out += "   " + key("Unit") + "time\n";
    out += "   " + key("Min_Interval") + "1\n";
    out += "   " + key("Max_Interval") + "18446744073709551615\n";
    out += "   " + key("Flags") + "none\n\n";
  }
  const int xcc = model.num_xcd;
  for (const auto& a : model.agents) {
    if (!a.gpu) continue;
    out += "GPU:" + std::to_string(a.type_index) + "\n";
    out += "Name:" + model.arch + "\n";
    for (const auto& name : target.counter_names()) {
      out += key("Counter_Name") + name + "\n";
      if (const auto* b = target.base(name)) {
        out += key("Description") + b->description + "\n";
        out += key("Block") + b->block + "\n";
        const hw::Block* blk = target.block(b->block);
        const int inst = blk ? blk->instances : 1;
        std::string dims = "DIMENSION_XCC[0:" + std::to_string(xcc - 1) +
                           "] DIMENSION_INSTANCE[0:" + std::to_string(inst - 1) + "]";
        if (shader_engine_block(b->block)) dims += " DIMENSION_SHADER_ENGINE[0:3]";
        out += key("Dimensions") + dims + "\n";
      } else if (const auto* d = target.derived(name)) {
        out += key("Description") + d->description + "\n";
        out += key("Expression") + d->expression + "\n";
        // UNCERTAIN: a derived counter's dimensions depend on its reductions; reduced ones (the
        // common case) show one instance.
        out += key("Dimensions") + "DIMENSION_INSTANCE[0:0]\n";
      }
      out += "\n\n";
    }
  }
  return out;
}

std::string list_metrics_text(const Model& model, const hw::Target& target) {
  std::string out;
  const int xcc = model.num_xcd;
  for (const auto& a : model.agents) {
    if (!a.gpu) continue;
    const std::string head = "gpu-agent" + std::to_string(a.logical_node_id) + ":\t";
    for (const auto& name : target.counter_names()) {
      if (const auto* b = target.base(name)) {
        const hw::Block* blk = target.block(b->block);
        const int inst = blk ? blk->instances : 1;
        out += head + name + "\n";
        out += "Description:\t" + b->description + "\n";
        out += "Block:\t" + b->block + "\n";
        out += "Dimensions:\tDIMENSION_XCC[0:" + std::to_string(xcc - 1) +
               "]\tDIMENSION_INSTANCE[0:" + std::to_string(inst - 1) + "]\n\n";
      } else if (const auto* d = target.derived(name)) {
        out += head + name + "\n";
        out += "Description: " + d->description + "\n";
        out += "Expression: " + d->expression + "\n";
        out += "Dimensions: DIMENSION_INSTANCE[0:0]\n\n";
      }
    }
  }
  return out;
}

}  // namespace kprof::sim
