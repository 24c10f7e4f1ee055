#include "core/hw/counter_catalog.hpp"

#include <set>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::hw {

bool counter_name_matches(std::string_view pattern, std::string_view name) {
  const std::string p = to_lower(pattern), n = to_lower(name);
  if (p.find_first_of("*?") == std::string::npos) return n.find(p) != std::string::npos;
  // Iterative glob with backtracking to the last '*'.
  size_t i = 0, j = 0, star = std::string::npos, mark = 0;
  while (j < n.size()) {
    if (i < p.size() && (p[i] == '?' || p[i] == n[j])) {
      ++i;
      ++j;
    } else if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
    } else if (star != std::string::npos) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

namespace {

std::string blocks_of(const Target& t, const std::vector<Event>& events) {
  std::set<std::string> b;
  for (const auto& e : events) b.insert(t.block_of(e)->name);
  return b.empty() ? "-" : join(std::vector<std::string>(b.begin(), b.end()), "+");
}

}  // namespace

std::vector<CounterEntry> list_counters(const Target& t, std::string_view pattern) {
  std::vector<CounterEntry> out;
  for (const auto& name : t.counter_names()) {
    if (!pattern.empty() && !counter_name_matches(pattern, name)) continue;
    CounterEntry e;
    e.name = name;
    if (const auto* b = t.base(name)) {
      e.kind = CounterKind::base;
      e.blocks = b->block;
      e.event_or_expression = "event " + std::to_string(b->event_id);
      e.description = b->description;
    } else {
      const auto* d = t.derived(name);
      e.kind = CounterKind::derived;
      e.blocks = blocks_of(t, t.events_of(name));
      e.event_or_expression = d->expression;
      e.description = d->description;
    }
    out.push_back(std::move(e));
  }
  if (out.empty()) {
    throw Error::input("no " + t.arch() + " counter matches '" + std::string(pattern) + "'",
                       did_you_mean(t.nearest(pattern)));
  }
  return out;
}

CounterCost explain_counter(const Target& t, const std::string& name) {
  CounterCost c;
  c.name = name;
  c.kind = t.kind_of(name);
  c.arch = t.arch();
  const auto events = t.events_of(name);  // unknown name: error with the three nearest
  if (const auto* b = t.base(name)) c.base = *b;
  if (const auto* d = t.derived(name)) c.derived = *d;
  for (const auto& e : events) {
    const auto* b = t.base(e.counter);
    c.events.push_back({e, b->block, b->event_id, !e.flag.empty()});
  }
  const Occupancy occ = t.occupancy({name});
  for (const auto& b : t.blocks()) {
    auto it = occ.used.find(b.name);
    if (it != occ.used.end()) c.slots.push_back({b.name, it->second, b.counters_per_pass});
  }
  c.over_blocks = occ.over_blocks;
  return c;
}

std::string cost_text(const CounterCost& c) {
  std::ostringstream o;
  auto pad = [](std::string s, size_t w) {
    return s.size() < w ? s + std::string(w - s.size(), ' ') : s;
  };
  o << c.name << " (" << to_string(c.kind) << ", " << c.arch << ")\n";
  if (c.base) {
    o << "  block: " << c.base->block << ", event " << c.base->event_id
      << "\n  description: " << c.base->description << "\n";
  } else if (c.derived) {
    o << "  expression: " << c.derived->expression << "\n  description: " << c.derived->description
      << "\n";
  } else {
    o << "  one channel of " << c.events.at(0).event.counter << "; costs that counter's slot\n";
  }
  o << "  hardware events (" << c.events.size() << "):\n";
  for (const auto& e : c.events) {
    o << "    " << pad(e.event.str(), 36) << e.block << " event " << e.event_id
      << (e.accumulated ? " (accumulated; needs the plain counter beside it)" : "") << "\n";
  }
  std::string slots;
  for (const auto& s : c.slots)
    slots += (slots.empty() ? "" : "  ") + s.block + " " + std::to_string(s.used) + "/" +
             std::to_string(s.limit);
  o << "  slots in one pass: " << (slots.empty() ? "none (constants only)" : slots) << "\n";
  if (!c.over_blocks.empty())
    o << "  does NOT fit one pass (over: " << join(c.over_blocks, ", ")
      << "); request its base counters instead\n";
  return o.str();
}

}  // namespace kprof::hw
