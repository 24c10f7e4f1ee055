#include "core/plan/items.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "core/base/text.hpp"

namespace kprof::plan::detail {
namespace {

int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<size_t>(x)] != x)
    x = parent[static_cast<size_t>(x)] =
        parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
  return x;
}

// The requested and pinned counter names, each once, in request order (p.names, p.name_pos;
// `name_index` maps a name to its index); returns each pin as name indexes.
std::vector<std::vector<int>> add_names(const hw::Target& target, const Request& request,
                                        Problem& p, std::map<std::string, int>& name_index) {
  auto add_name = [&](const std::string& n, const std::optional<SourcePos>& pos) {
    auto it = name_index.find(n);
    if (it != name_index.end()) return it->second;
    target.events_at(n, pos);  // throws the unknown-counter error at pos
    int i = static_cast<int>(p.names.size());
    name_index[n] = i;
    p.names.push_back(n);
    p.name_pos.push_back(pos);
    return i;
  };
  for (const auto& r : request.counters) add_name(r.name, r.pos);
  std::vector<std::vector<int>> pins;
  for (const auto& pin : request.pins) {
    std::vector<int> v;
    for (const auto& n : pin.names) v.push_back(add_name(n, pin.pos));
    pins.push_back(v);
  }
  return pins;
}

// Pins merge names into one atomic item (union-find keeps chains of pins together): each name's
// root name.
std::vector<int> pin_roots(size_t name_count, const std::vector<std::vector<int>>& pins) {
  std::vector<int> parent(name_count);
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& v : pins)
    for (size_t i = 1; i < v.size(); ++i) {
      int a = find_root(parent, v[0]), b = find_root(parent, v[i]);
      if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
    }
  return parent;
}

// One item per root name, with the distinct events of its names (p.items, p.events).
void build_items(const hw::Target& target, std::vector<int>& parent, Problem& p) {
  std::map<hw::Event, int> event_index;
  std::map<int, int> item_of_root;
  p.item_of_name.assign(p.names.size(), -1);
  for (int n = 0; n < static_cast<int>(p.names.size()); ++n) {
    int root = find_root(parent, n);
    auto [it, fresh] = item_of_root.emplace(root, static_cast<int>(p.items.size()));
    if (fresh) p.items.emplace_back();
    Item& item = p.items[static_cast<size_t>(it->second)];
    item.names.push_back(n);
    p.item_of_name[static_cast<size_t>(n)] = it->second;
    for (const auto& e : target.events_of(p.names[static_cast<size_t>(n)])) {
      auto [eit, new_event] = event_index.emplace(e, static_cast<int>(p.events.size()));
      if (new_event) {
        p.events.push_back(e);
        const hw::Block* b = target.block_of(e);
        p.event_block.push_back(static_cast<int>(
            std::find(p.blocks.begin(), p.blocks.end(), b->name) - p.blocks.begin()));
        p.event_flagged.push_back(!e.flag.empty());
      }
      if (std::find(item.events.begin(), item.events.end(), eit->second) == item.events.end())
        item.events.push_back(eit->second);
    }
  }
}

// Every item must fit an empty pass.
void check_items_fit(Problem& p) {
  for (auto& item : p.items) {
    std::sort(item.events.begin(), item.events.end());
    std::vector<int> used(p.blocks.size(), 0);
    int acc = 0;
    for (int e : item.events) {
      ++used[static_cast<size_t>(p.event_block[static_cast<size_t>(e)])];
      if (p.event_flagged[static_cast<size_t>(e)]) ++acc;
      item.weight += 1.0 / p.limit[static_cast<size_t>(p.event_block[static_cast<size_t>(e)])];
    }
    item.accumulate = acc > 0;
    std::vector<std::string> names;
    for (int n : item.names) names.push_back(p.names[static_cast<size_t>(n)]);
    const std::string what = names.size() == 1 ? "counter '" + names[0] + "'"
                                               : "pinned counters [" + join(names, ", ") + "]";
    const auto& pos = p.name_pos[static_cast<size_t>(item.names[0])];
    for (size_t b = 0; b < used.size(); ++b)
      if (used[b] > p.limit[b])
        throw Error::input(what + " needs " + std::to_string(used[b]) + " " + p.blocks[b] +
                               " counters but one pass holds " + std::to_string(p.limit[b]),
                           names.size() == 1
                               ? "collect its base counters (e.g. the _sum ones) instead; "
                                 "kprof joins passes per dispatch"
                               : "split the pin",
                           pos);
    if (acc > p.accumulate_limit)
      throw Error::input(what + " needs " + std::to_string(acc) +
                             " accumulate events but one pass holds " +
                             std::to_string(p.accumulate_limit),
                         "split the pin", pos);
  }
}

// The request's groups as name indexes, each name once; groups of fewer than two are dropped.
void add_groups(const Request& request, const std::map<std::string, int>& name_index, Problem& p) {
  for (const auto& g : request.groups) {
    std::vector<int> v;
    for (const auto& n : g.names) {
      auto it = name_index.find(n);
      if (it != name_index.end() && std::find(v.begin(), v.end(), it->second) == v.end())
        v.push_back(it->second);
    }
    if (v.size() >= 2) p.groups.push_back(v);
  }
}

// Lower bound: each block's distinct events over its limit, and accumulate events over theirs.
void set_lower_bound(Problem& p) {
  std::vector<int> per_block(p.blocks.size(), 0);
  int acc = 0;
  for (size_t e = 0; e < p.events.size(); ++e) {
    ++per_block[static_cast<size_t>(p.event_block[e])];
    if (p.event_flagged[e]) ++acc;
  }
  p.lower_bound = p.items.empty() ? 0 : 1;
  p.lower_bound_reason = p.items.empty() ? "nothing requested" : "one pass";
  for (size_t b = 0; b < per_block.size(); ++b) {
    int need = (per_block[b] + p.limit[b] - 1) / p.limit[b];
    if (need > p.lower_bound) {
      p.lower_bound = need;
      p.lower_bound_reason = p.blocks[b] + " " + std::to_string(per_block[b]) + " events / " +
                             std::to_string(p.limit[b]) + " per pass";
    }
  }
  int acc_need = (acc + p.accumulate_limit - 1) / p.accumulate_limit;
  if (acc_need > p.lower_bound) {
    p.lower_bound = acc_need;
    p.lower_bound_reason = std::to_string(acc) + " accumulate events / " +
                           std::to_string(p.accumulate_limit) + " per pass";
  }
}

}  // namespace

Problem build_problem(const hw::Target& target, const Request& request) {
  Problem p;
  for (const auto& b : target.blocks()) {
    p.blocks.push_back(b.name);
    p.limit.push_back(b.counters_per_pass);
  }
  p.accumulate_limit = target.accumulate_per_pass();
  std::map<std::string, int> name_index;
  const auto pins = add_names(target, request, p, name_index);
  std::vector<int> parent = pin_roots(p.names.size(), pins);
  build_items(target, parent, p);
  check_items_fit(p);
  add_groups(request, name_index, p);
  set_lower_bound(p);
  return p;
}

std::vector<Pass> make_passes(const hw::Target& target, const Problem& p,
                              const std::vector<int>& pass_of_item) {
  int k = 0;
  for (int x : pass_of_item) k = std::max(k, x + 1);
  std::vector<std::vector<int>> names(static_cast<size_t>(k));
  for (size_t n = 0; n < p.names.size(); ++n)
    names[static_cast<size_t>(pass_of_item[static_cast<size_t>(p.item_of_name[n])])].push_back(
        static_cast<int>(n));
  std::vector<Pass> passes;
  // Order passes by their first requested counter so the same request always prints the same way.
  std::vector<std::vector<int>> nonempty;
  for (auto& v : names)
    if (!v.empty()) nonempty.push_back(std::move(v));
  std::sort(nonempty.begin(), nonempty.end());
  for (const auto& v : nonempty) {
    Pass pass;
    std::set<hw::Event> ev;
    for (int n : v) {
      pass.counters.push_back(p.names[static_cast<size_t>(n)]);
      for (const auto& e : target.events_of(p.names[static_cast<size_t>(n)])) ev.insert(e);
    }
    pass.events.assign(ev.begin(), ev.end());
    for (const auto& e : pass.events) ++pass.used[target.block_of(e)->name];
    passes.push_back(std::move(pass));
  }
  return passes;
}

}  // namespace kprof::plan::detail
