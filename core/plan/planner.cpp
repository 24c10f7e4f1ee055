// The exact pass planner (see plan.hpp for the model and the search).
#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "core/plan/items.hpp"
#include "core/plan/plan.hpp"

namespace kprof::plan {
namespace {

using detail::Item;
using detail::Problem;
using Clock = std::chrono::steady_clock;

// k passes being filled: per pass, a refcount per event, used slots per block, accumulate events.
class Packing {
 public:
  Packing(const Problem& p, int k)
      : m_p(p),
        m_ref(static_cast<size_t>(k), std::vector<int>(p.events.size(), 0)),
        m_used(static_cast<size_t>(k), std::vector<int>(p.blocks.size(), 0)),
        m_acc(static_cast<size_t>(k), 0),
        m_items(static_cast<size_t>(k), 0) {}

  int size() const { return static_cast<int>(m_ref.size()); }
  bool empty(int pass) const { return m_items[static_cast<size_t>(pass)] == 0; }
  int used(int pass, int block) const {
    return m_used[static_cast<size_t>(pass)][static_cast<size_t>(block)];
  }
  bool has(int pass, int event) const {
    return m_ref[static_cast<size_t>(pass)][static_cast<size_t>(event)] > 0;
  }

  void add_pass() {
    m_ref.emplace_back(m_p.events.size(), 0);
    m_used.emplace_back(m_p.blocks.size(), 0);
    m_acc.push_back(0);
    m_items.push_back(0);
  }

  // Whether `item` fits `pass`; `overlap` gets how many of its events the pass already has.
  bool fits(const Item& item, int pass, int* overlap = nullptr) const {
    const auto& ref = m_ref[static_cast<size_t>(pass)];
    const auto& used = m_used[static_cast<size_t>(pass)];
    int shared = 0, acc = m_acc[static_cast<size_t>(pass)];
    // Items have a handful of events: count new events per block with a small linear scan.
    int blocks[16], counts[16], n = 0;
    for (int e : item.events) {
      if (ref[static_cast<size_t>(e)] > 0) {
        ++shared;
        continue;
      }
      int b = m_p.event_block[static_cast<size_t>(e)];
      int j = 0;
      while (j < n && blocks[j] != b) ++j;
      if (j == n) {
        if (n == 16) return false;  // > 16 blocks in one item: not a real gfx9 item
        blocks[n] = b;
        counts[n++] = 0;
      }
      if (used[static_cast<size_t>(b)] + ++counts[j] > m_p.limit[static_cast<size_t>(b)])
        return false;
      if (m_p.event_flagged[static_cast<size_t>(e)] && ++acc > m_p.accumulate_limit) return false;
    }
    if (overlap) *overlap = shared;
    return true;
  }

  void add(const Item& item, int pass) { change(item, pass, +1); }
  void remove(const Item& item, int pass) { change(item, pass, -1); }

  int events_in(int pass) const {
    int s = 0;
    for (int u : m_used[static_cast<size_t>(pass)]) s += u;
    return s;
  }

 private:
  void change(const Item& item, int pass, int d) {
    auto& ref = m_ref[static_cast<size_t>(pass)];
    for (int e : item.events) {
      int before = ref[static_cast<size_t>(e)];
      ref[static_cast<size_t>(e)] += d;
      if ((before == 0) != (ref[static_cast<size_t>(e)] == 0)) {
        m_used[static_cast<size_t>(pass)]
              [static_cast<size_t>(m_p.event_block[static_cast<size_t>(e)])] += d;
        if (m_p.event_flagged[static_cast<size_t>(e)]) m_acc[static_cast<size_t>(pass)] += d;
      }
    }
    m_items[static_cast<size_t>(pass)] += d;
  }

  const Problem& m_p;
  std::vector<std::vector<int>> m_ref;
  std::vector<std::vector<int>> m_used;
  std::vector<int> m_acc;
  std::vector<int> m_items;
};

class Search {
 public:
  Search(const Problem& p, const std::vector<int>& core, const PlanOptions& o)
      : m_p(p), m_core(core), m_opt(o), m_start(Clock::now()) {}

  std::uint64_t nodes() const { return m_nodes; }
  bool capped() const { return m_capped; }

  // Greedy upper bound: heaviest item first into the fitting pass sharing most events.
  std::vector<int> greedy() const {
    std::vector<int> order = m_core;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return m_p.items[static_cast<size_t>(a)].weight > m_p.items[static_cast<size_t>(b)].weight;
    });
    Packing pack(m_p, 0);
    std::vector<int> pass_of(m_p.items.size(), -1);
    for (int i : order) {
      const Item& it = m_p.items[static_cast<size_t>(i)];
      int best = -1, best_overlap = -1;
      for (int q = 0; q < pack.size(); ++q) {
        int ov = 0;
        if (pack.fits(it, q, &ov) && ov > best_overlap) {
          best = q;
          best_overlap = ov;
        }
      }
      if (best < 0) {
        pack.add_pass();
        best = pack.size() - 1;
      }
      pack.add(it, best);
      pass_of[static_cast<size_t>(i)] = best;
    }
    return pass_of;
  }

  // Depth-first search for a k-pass packing of the core items. Returns true with `pass_of` set.
  bool feasible(int k, std::vector<int>& pass_of) {
    Packing pack(m_p, k);
    std::vector<int> assign(m_p.items.size(), -1);
    std::vector<char> placed(m_p.items.size(), 0);
    bool ok = dfs(pack, assign, placed, static_cast<int>(m_core.size()));
    if (ok) pass_of = assign;
    return ok;
  }

 private:
  bool out_of_budget() {
    if (m_capped) return true;
    if (++m_nodes > m_opt.node_budget) m_capped = true;
    if ((m_nodes & 1023) == 0 && Clock::now() - m_start > m_opt.time_cap) m_capped = true;
    return m_capped;
  }

  // Every event not yet in any pass needs a free slot of its block somewhere.
  bool capacity_ok(const Packing& pack, const std::vector<char>& placed) const {
    std::vector<char> needed(m_p.events.size(), 0);
    std::vector<int> need(m_p.blocks.size(), 0);
    int need_acc = 0;
    for (int i : m_core) {
      if (placed[static_cast<size_t>(i)]) continue;
      for (int e : m_p.items[static_cast<size_t>(i)].events) {
        if (needed[static_cast<size_t>(e)]) continue;
        bool somewhere = false;
        for (int q = 0; q < pack.size() && !somewhere; ++q) somewhere = pack.has(q, e);
        if (somewhere) continue;
        needed[static_cast<size_t>(e)] = 1;
        ++need[static_cast<size_t>(m_p.event_block[static_cast<size_t>(e)])];
        if (m_p.event_flagged[static_cast<size_t>(e)]) ++need_acc;
      }
    }
    for (size_t b = 0; b < need.size(); ++b) {
      if (!need[b]) continue;
      int free = 0;
      for (int q = 0; q < pack.size(); ++q)
        free += m_p.limit[b] - pack.used(q, static_cast<int>(b));
      if (free < need[b]) return false;
    }
    (void)need_acc;  // accumulate capacity is checked per item by fits()
    return true;
  }

  bool dfs(Packing& pack, std::vector<int>& assign, std::vector<char>& placed, int left) {
    if (left == 0) return true;
    if (out_of_budget()) return false;
    if (!capacity_ok(pack, placed)) return false;
    // Most constrained item first (fewest passes it fits; empty passes count once).
    int pick = -1, pick_count = std::numeric_limits<int>::max();
    for (int i : m_core) {
      if (placed[static_cast<size_t>(i)]) continue;
      const Item& it = m_p.items[static_cast<size_t>(i)];
      int count = 0;
      bool empty_seen = false;
      for (int q = 0; q < pack.size(); ++q) {
        if (pack.empty(q)) {
          if (empty_seen) continue;
          empty_seen = true;
        }
        if (pack.fits(it, q)) ++count;
      }
      if (count == 0) return false;
      if (count < pick_count ||
          (count == pick_count && it.weight > m_p.items[static_cast<size_t>(pick)].weight)) {
        pick = i;
        pick_count = count;
      }
    }
    const Item& it = m_p.items[static_cast<size_t>(pick)];
    // Options: non-empty passes sharing most events first, then the first empty pass.
    std::vector<std::pair<int, int>> options;  // (-overlap, pass)
    int first_empty = -1;
    for (int q = 0; q < pack.size(); ++q) {
      if (pack.empty(q)) {
        if (first_empty < 0) first_empty = q;
        continue;
      }
      int ov = 0;
      if (pack.fits(it, q, &ov)) options.emplace_back(-ov, q);
    }
    std::sort(options.begin(), options.end());
    if (first_empty >= 0 && pack.fits(it, first_empty)) options.emplace_back(1, first_empty);
    placed[static_cast<size_t>(pick)] = 1;
    for (const auto& [neg_overlap, q] : options) {
      pack.add(it, q);
      assign[static_cast<size_t>(pick)] = q;
      if (dfs(pack, assign, placed, left - 1)) return true;
      pack.remove(it, q);
      assign[static_cast<size_t>(pick)] = -1;
      if (m_capped) break;
    }
    placed[static_cast<size_t>(pick)] = 0;
    return false;
  }

  const Problem& m_p;
  const std::vector<int>& m_core;
  const PlanOptions& m_opt;
  Clock::time_point m_start;
  std::uint64_t m_nodes = 0;
  bool m_capped = false;
};

// Splits of soft groups: sum over groups of (passes it spans - 1); and the balance term.
struct Cost {
  int splits = 0;
  long balance = 0;
  bool operator<(const Cost& o) const {
    return splits != o.splits ? splits < o.splits : balance < o.balance;
  }
};

Cost cost_of(const Problem& p, const Packing& pack, const std::vector<int>& pass_of) {
  Cost c;
  for (const auto& g : p.groups) {
    std::set<int> passes;
    for (int n : g)
      passes.insert(pass_of[static_cast<size_t>(p.item_of_name[static_cast<size_t>(n)])]);
    c.splits += static_cast<int>(passes.size()) - 1;
  }
  for (int q = 0; q < pack.size(); ++q) {
    long e = pack.events_in(q);
    c.balance += e * e;
  }
  return c;
}

bool subset(const std::vector<int>& a, const std::vector<int>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

Plan plan_once(const hw::Target& target, const Request& request, const PlanOptions& options) {
  const Problem p = detail::build_problem(target, request);
  Plan plan;
  plan.lower_bound = p.lower_bound;
  plan.lower_bound_reason = p.lower_bound_reason;
  plan.proved_at_least = p.lower_bound;
  plan.distinct_events = static_cast<int>(p.events.size());
  if (p.items.empty()) {
    plan.optimal = true;
    return plan;
  }

  // Items whose events are a subset of another item's cost nothing next to it: leave them out of
  // the search and place them afterwards (an optimal packing always has room for them there).
  std::vector<int> by_size(p.items.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
    return p.items[static_cast<size_t>(a)].events.size() >
           p.items[static_cast<size_t>(b)].events.size();
  });
  std::vector<int> core, host(p.items.size(), -1);
  for (int i : by_size) {
    for (int c : core)
      if (subset(p.items[static_cast<size_t>(i)].events, p.items[static_cast<size_t>(c)].events)) {
        host[static_cast<size_t>(i)] = c;
        break;
      }
    if (host[static_cast<size_t>(i)] < 0) core.push_back(i);
  }
  std::sort(core.begin(), core.end());

  Search search(p, core, options);
  std::vector<int> best = search.greedy();
  int best_k = 0;
  for (int i : core) best_k = std::max(best_k, best[static_cast<size_t>(i)] + 1);
  plan.optimal = best_k == p.lower_bound;
  for (int k = p.lower_bound; k < best_k && !plan.optimal; ++k) {
    std::vector<int> found;
    if (search.feasible(k, found)) {
      best = found;
      best_k = k;
      plan.optimal = true;
    } else if (search.capped()) {
      break;
    } else {
      plan.proved_at_least = k + 1;  // exhausted: k passes cannot hold the request
    }
  }
  if (!plan.optimal && !search.capped()) plan.optimal = true;  // every smaller k was refuted
  plan.time_capped = search.capped();
  plan.nodes = search.nodes();
  if (plan.optimal) plan.proved_at_least = best_k;

  // Place the subsumed items with their hosts (hosts first: a host may itself be subsumed).
  std::vector<int> pass_of = best;
  for (int i : by_size)
    if (host[static_cast<size_t>(i)] >= 0) {
      int h = host[static_cast<size_t>(i)];
      while (host[static_cast<size_t>(h)] >= 0) h = host[static_cast<size_t>(h)];
      pass_of[static_cast<size_t>(i)] = pass_of[static_cast<size_t>(h)];
    }

  // Local moves for the secondary objectives (splits, balance); never adds a pass.
  Packing pack(p, best_k);
  for (size_t i = 0; i < p.items.size(); ++i) pack.add(p.items[i], pass_of[i]);
  Cost cur = cost_of(p, pack, pass_of);
  for (int round = 0; round < 50; ++round) {
    bool improved = false;
    for (size_t i = 0; i < p.items.size(); ++i) {
      const Item& it = p.items[i];
      int from = pass_of[i];
      pack.remove(it, from);
      int best_to = from;
      Cost best_cost = cur;
      for (int q = 0; q < best_k; ++q) {
        if (q == from || pack.empty(q) || !pack.fits(it, q)) continue;
        pack.add(it, q);
        pass_of[i] = q;
        // Emptying a pass would change the count; only possible when not proved optimal.
        Cost c = cost_of(p, pack, pass_of);
        if (!pack.empty(from) && c < best_cost) {
          best_cost = c;
          best_to = q;
        }
        pack.remove(it, q);
        pass_of[i] = from;
      }
      pack.add(it, best_to);
      pass_of[i] = best_to;
      if (best_to != from) {
        cur = best_cost;
        improved = true;
      }
    }
    if (!improved) break;
  }

  plan.passes = detail::make_passes(target, p, pass_of);
  for (const auto& g : p.groups) {
    std::set<int> passes;
    for (int n : g)
      passes.insert(pass_of[static_cast<size_t>(p.item_of_name[static_cast<size_t>(n)])]);
    if (passes.size() > 1) ++plan.split_groups;
  }
  return plan;
}

}  // namespace

// Single moves rarely repair a split ratio group when passes are full, so also plan once more with
// every soft group that fits a pass alone treated as a pin, and keep that plan when it needs no
// more passes and splits fewer groups.
Plan plan_passes(const hw::Target& target, const Request& request, const PlanOptions& options) {
  Plan first = plan_once(target, request, options);
  if (first.split_groups == 0 || request.groups.empty()) return first;
  Request pinned = request;
  std::vector<std::vector<std::string>> merged;  // components of pins + accepted groups
  auto component_of = [&](const std::string& n) -> int {
    for (size_t i = 0; i < merged.size(); ++i)
      if (std::find(merged[i].begin(), merged[i].end(), n) != merged[i].end())
        return static_cast<int>(i);
    return -1;
  };
  auto join_names = [&](const std::vector<std::string>& names) {
    std::vector<std::string> all;
    std::set<int> comps;
    for (const auto& n : names) {
      int c = component_of(n);
      if (c >= 0)
        comps.insert(c);
      else
        all.push_back(n);
    }
    for (int c : comps)
      all.insert(all.end(), merged[static_cast<size_t>(c)].begin(),
                 merged[static_cast<size_t>(c)].end());
    return std::make_pair(all, comps);
  };
  auto accept = [&](const std::vector<std::string>& names) {
    auto [all, comps] = join_names(names);
    for (auto it = comps.rbegin(); it != comps.rend(); ++it) merged.erase(merged.begin() + *it);
    merged.push_back(all);
  };
  for (const auto& pin : request.pins) accept(pin.names);
  for (const auto& g : request.groups) {
    auto all = join_names(g.names).first;
    if (all.size() < 2 || !target.occupancy(all).fits()) continue;
    accept(g.names);
    pinned.pins.push_back(Pin{g.names, std::nullopt});
  }
  PlanOptions second_options = options;
  second_options.node_budget = options.node_budget / 4 + 1;
  Plan second;
  try {
    second = plan_once(target, pinned, second_options);
  } catch (const Error&) {
    return first;  // a merged group may still not fit together with a pin's own constraints
  }
  if (second.passes.size() != first.passes.size() || second.split_groups >= first.split_groups)
    return first;
  second.optimal = first.optimal;
  second.time_capped = first.time_capped;
  second.proved_at_least = first.proved_at_least;
  second.nodes += first.nodes;
  return second;
}

}  // namespace kprof::plan
