// Internal to core/plan: the pass-count search of plan.hpp — a greedy upper bound, and a
// DSatur-style depth-first search for a k-pass packing under a node budget and a time cap.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/plan/items.hpp"
#include "core/plan/packing.hpp"
#include "core/plan/plan.hpp"

namespace kprof::plan::detail {

class Search {
 public:
  Search(const Problem& p, const std::vector<int>& core, const PlanOptions& o)
      : m_p(p), m_core(core), m_opt(o), m_start(std::chrono::steady_clock::now()) {}

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
    if ((m_nodes & 1023) == 0 && std::chrono::steady_clock::now() - m_start > m_opt.time_cap)
      m_capped = true;
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
  std::chrono::steady_clock::time_point m_start;
  std::uint64_t m_nodes = 0;
  bool m_capped = false;
};

}  // namespace kprof::plan::detail
