// The planner's internal view of a request (private to core/plan): numbered events, atomic items
// (a counter or a pinned group), soft groups, and the per-block lower bound.
#pragma once

#include <string>
#include <vector>

#include "core/hw/target.hpp"
#include "core/plan/plan.hpp"

namespace kprof::plan::detail {

struct Item {
  std::vector<int> names;   // indices into Problem::names
  std::vector<int> events;  // indices into Problem::events, sorted
  bool accumulate = false;  // holds an accumulate-flagged event
  double weight = 0;  // sum over events of 1/limit of their block: how much of a pass it takes
};

struct Problem {
  std::vector<std::string> names;  // distinct requested names, request order
  std::vector<std::optional<SourcePos>> name_pos;
  std::vector<hw::Event> events;
  std::vector<int> event_block;  // index into blocks
  std::vector<bool> event_flagged;
  std::vector<std::string> blocks;  // target block names
  std::vector<int> limit;           // counters_per_pass per block
  int accumulate_limit = 1;
  std::vector<Item> items;
  std::vector<int> item_of_name;         // name index -> item index
  std::vector<std::vector<int>> groups;  // soft groups as name indices (>= 2 names)
  int lower_bound = 0;
  std::string lower_bound_reason;
};

// Resolves names, merges pins, checks every item fits a pass alone. Throws Error(input).
Problem build_problem(const hw::Target& target, const Request& request);

// Turns an assignment (item -> pass index) into Plan passes, ordered by their first counter.
std::vector<Pass> make_passes(const hw::Target& target, const Problem& p,
                              const std::vector<int>& pass_of_item);

}  // namespace kprof::plan::detail
