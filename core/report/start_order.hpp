// Start order from a stream in (pid, Dispatch_Id) order, in bounded memory. The store hands a
// pass's dispatches out in (pid, Dispatch_Id) order (store::CaptureDb::for_each_dispatch, the
// order of its index); the Perfetto export writes each process's slices in start order, as the
// in-memory export did by sorting them, and places them on lanes in that order.
//
// The order serves our lane placement, not the importer: Perfetto sorts a JSON trace fully before
// parsing it (a trace type's sort policy defaults to kFullSort, google/perfetto
// src/trace_processor/util/trace_type.h TraceTypeDescriptor, and the JSON importer keeps it;
// src/trace_processor/sorter/trace_sorter.h TimestampedEvent::SlowOperatorLess puts complete
// events of one ts longest first). The lanes are chosen here (perfetto.cpp Tracks::place: the
// first lane whose last slice has ended) so that slices of one thread never partially overlap;
// that holds in any order, but only start order opens the fewest lanes.
//
// A process's dispatches are enqueued in Dispatch_Id order (rocprofv3 numbers them as they are
// enqueued: ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp writes
// dispatch_info.dispatch_id), so they start almost in that order: only dispatches that overlap on
// several queues start before one enqueued earlier. A min-heap of `window` + 1 pending dispatches
// then emits them in exact start order, where `window` is the most earlier-enqueued dispatches of
// one process that start after a dispatch (reorder_window).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "core/analysis/outline/run_outline.hpp"

namespace kprof::report {

// reorder_window (core/analysis/outline/run_outline.hpp): computed with the run's outline and
// stored with it, so an export with a stored outline knows its windows without loading the capture.
using analysis::reorder_window;

// Emits items in (start, arrival) order. Exact when no item has more than `window` earlier
// arrivals that start after it (reorder_window); otherwise still emits every item once, each as
// late as the window allows.
template <class T>
class StartOrder {
 public:
  StartOrder(size_t window, std::function<void(T&)> emit)
      : m_window(window), m_emit(std::move(emit)) {}
  void push(int64_t start_ns, T item) {
    m_heap.push(Entry{start_ns, m_seq++, std::move(item)});
    if (m_heap.size() > m_window) pop();
  }
  // Emits what is pending (at the end of a process: another process's order is its own).
  void flush() {
    while (!m_heap.empty()) pop();
  }

 private:
  struct Entry {
    int64_t start;
    uint64_t seq;
    T item;
    bool operator>(const Entry& o) const {
      return start != o.start ? start > o.start : seq > o.seq;
    }
  };
  void pop() {
    // top() is const: the item is copied out before the pop, as std::priority_queue allows.
    Entry e = m_heap.top();
    m_heap.pop();
    m_emit(e.item);
  }
  size_t m_window;
  std::function<void(T&)> m_emit;
  uint64_t m_seq = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> m_heap;
};

}  // namespace kprof::report
