// The main stream of a trace (its largest process and agent) in program order, as phase detection
// and the views built on it read it: by position, one dispatch at a time.
//
// Two forms. In-memory analysis (`kprof query`, `report`) holds the capture anyway, so the stream
// is 4 bytes per dispatch: indices into the trace pass's dispatches. A run's first Perfetto export
// never loads the capture: it copies the stream's dispatches from the database into a
// SpillVector with a memory bound (core/base/spill_vector.hpp), and phase detection reads them
// from there; both forms give the same results (`ctest -R 'Phases|GoldenCapture'` compares them).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/base/spill_vector.hpp"

namespace kprof::analysis {

class MainStream {
 public:
  MainStream() = default;
  // Dispatches of `dispatches` by index, in that order (in-memory analysis). `dispatches` must
  // outlive the stream.
  MainStream(const std::vector<Dispatch>& dispatches, std::vector<uint32_t> index)
      : m_pass(&dispatches), m_index(std::move(index)) {}
  // Copies of the dispatches (the bounded export; tests).
  explicit MainStream(SpillVector<Dispatch> records) : m_records(std::move(records)) {}

  // Appends a copy (a stream of copies only).
  void push_back(const Dispatch& d) {
    assert(!m_pass);
    m_records.push_back(d);
  }
  size_t size() const { return m_pass ? m_index.size() : m_records.size(); }
  bool empty() const { return size() == 0; }
  Dispatch operator[](size_t i) const { return m_pass ? (*m_pass)[m_index[i]] : m_records[i]; }
  // The index into the trace pass's dispatches of position i (an indexed stream only).
  size_t pass_index(size_t i) const {
    assert(m_pass);
    return m_index[i];
  }

 private:
  const std::vector<Dispatch>* m_pass = nullptr;
  std::vector<uint32_t> m_index;
  SpillVector<Dispatch> m_records;
};

}  // namespace kprof::analysis
