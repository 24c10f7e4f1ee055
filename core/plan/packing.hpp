// Internal to core/plan: k passes being filled during the search (planner.cpp, search.hpp).
#pragma once

#include <vector>

#include "core/plan/items.hpp"

namespace kprof::plan::detail {

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

}  // namespace kprof::plan::detail
