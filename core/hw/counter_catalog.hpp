// The use cases of `kprof counters`: a target's counters as rows (filtered by a name pattern), and
// what one counter costs in a pass (its hardware events and the block slots they take), and the
// text of the latter.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hw/target.hpp"

namespace kprof::hw {

// Case-insensitive; '*' and '?' are wildcards, otherwise a substring match.
bool counter_name_matches(std::string_view pattern, std::string_view name);

struct CounterEntry {
  std::string name;
  CounterKind kind = CounterKind::base;  // base or derived
  std::string blocks;  // a base counter's block; the blocks a derived one's events use ("-": none)
  std::string event_or_expression;  // "event 4" or the derived expression as written
  std::string description;
};

// The target's counters whose names match `pattern` (every one for ""), sorted by name. Throws
// Error(input) with the nearest names when none matches.
std::vector<CounterEntry> list_counters(const Target& t, std::string_view pattern);

struct EventCost {
  Event event;
  std::string block;
  int event_id = -1;
  bool accumulated = false;  // needs the plain counter beside it in the same pass
};

struct BlockSlots {
  std::string block;
  int used = 0;
  int limit = 0;  // counters per pass
};

struct CounterCost {
  std::string name;
  CounterKind kind = CounterKind::unknown;
  std::string arch;
  std::optional<BaseCounter> base;        // when kind == base
  std::optional<DerivedCounter> derived;  // when kind == derived
  std::vector<EventCost> events;          // a channel's one event is its base counter's
  std::vector<BlockSlots> slots;          // in the target's block order; empty: constants only
  std::vector<std::string> over_blocks;   // blocks whose limit one pass cannot hold
};

// Throws Error(input) "unknown counter 'X'" with the nearest names.
CounterCost explain_counter(const Target& t, const std::string& name);

// The text of `kprof counters --explain`: the counter, its block and event or expression, its
// hardware events, the slots they take in one pass, and whether they fit one.
std::string cost_text(const CounterCost& c);

}  // namespace kprof::hw
