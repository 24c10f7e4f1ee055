// The data behind a Target (private to core/hw): filled by target_load.cpp, queried by target.cpp.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/hw/expr.hpp"
#include "core/hw/target.hpp"

namespace kprof::hw::detail {

struct TargetData {
  std::string arch;
  std::string product;
  std::string path;
  std::vector<Block> blocks;
  std::map<std::string, size_t> block_index;
  std::map<std::string, BaseCounter, std::less<>> base;
  std::map<std::string, DerivedCounter, std::less<>> derived;
  std::map<std::string, SourcePos> derived_origin;  // where each expression's text starts
  std::map<std::string, double> constants;
  Peaks peaks;
  int accumulate_per_pass = 1;
  std::set<std::string> accumulate_flags;
  std::vector<std::string> accumulate_counters;
  // Expansion of every derived counter into hardware events, computed once after loading.
  std::map<std::string, std::vector<Event>, std::less<>> derived_events;

  std::vector<std::string> base_names() const {
    std::vector<std::string> v;
    for (const auto& [k, c] : base) v.push_back(k);
    return v;
  }
};

}  // namespace kprof::hw::detail
