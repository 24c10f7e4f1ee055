// The exact pass planner (see plan.hpp for the model; search.hpp for the search itself).
#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "core/plan/items.hpp"
#include "core/plan/packing.hpp"
#include "core/plan/plan.hpp"
#include "core/plan/search.hpp"

namespace kprof::plan {
namespace {

using detail::Item;
using detail::Packing;
using detail::Problem;
using detail::Search;

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

// Items whose events are a subset of another item's cost nothing next to it: leave them out of
// the search and place them afterwards (an optimal packing always has room for them there).
struct Subsumed {
  std::vector<int> by_size;  // item indexes, most events first
  std::vector<int> core;     // the items the search places, ascending
  std::vector<int> host;     // per item: the item whose events hold its own, or -1
};

Subsumed find_subsumed(const Problem& p) {
  Subsumed s;
  s.by_size.resize(p.items.size());
  std::iota(s.by_size.begin(), s.by_size.end(), 0);
  std::stable_sort(s.by_size.begin(), s.by_size.end(), [&](int a, int b) {
    return p.items[static_cast<size_t>(a)].events.size() >
           p.items[static_cast<size_t>(b)].events.size();
  });
  s.host.assign(p.items.size(), -1);
  for (int i : s.by_size) {
    for (int c : s.core)
      if (subset(p.items[static_cast<size_t>(i)].events, p.items[static_cast<size_t>(c)].events)) {
        s.host[static_cast<size_t>(i)] = c;
        break;
      }
    if (s.host[static_cast<size_t>(i)] < 0) s.core.push_back(i);
  }
  std::sort(s.core.begin(), s.core.end());
  return s;
}

// The fewest passes the search finds for the core items, from the greedy packing down to the
// lower bound; `best` becomes that packing, and `plan` says how far it is proved.
int search_passes(const Problem& p, const std::vector<int>& core, const PlanOptions& options,
                  Plan& plan, std::vector<int>& best) {
  Search search(p, core, options);
  best = search.greedy();
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
  return best_k;
}

// Place the subsumed items with their hosts (hosts first: a host may itself be subsumed).
std::vector<int> place_subsumed(const std::vector<int>& best, const Subsumed& s) {
  std::vector<int> pass_of = best;
  for (int i : s.by_size)
    if (s.host[static_cast<size_t>(i)] >= 0) {
      int h = s.host[static_cast<size_t>(i)];
      while (s.host[static_cast<size_t>(h)] >= 0) h = s.host[static_cast<size_t>(h)];
      pass_of[static_cast<size_t>(i)] = pass_of[static_cast<size_t>(h)];
    }
  return pass_of;
}

// Local moves for the secondary objectives (splits, balance); never adds a pass.
void improve_secondary(const Problem& p, int best_k, std::vector<int>& pass_of) {
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
}

int count_split_groups(const Problem& p, const std::vector<int>& pass_of) {
  int split = 0;
  for (const auto& g : p.groups) {
    std::set<int> passes;
    for (int n : g)
      passes.insert(pass_of[static_cast<size_t>(p.item_of_name[static_cast<size_t>(n)])]);
    if (passes.size() > 1) ++split;
  }
  return split;
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
  const Subsumed subsumed = find_subsumed(p);
  std::vector<int> best;
  const int best_k = search_passes(p, subsumed.core, options, plan, best);
  std::vector<int> pass_of = place_subsumed(best, subsumed);
  improve_secondary(p, best_k, pass_of);
  plan.passes = detail::make_passes(target, p, pass_of);
  plan.split_groups += count_split_groups(p, pass_of);
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
