// A sequence that is appended once and then read by index, holding at most a fixed number of bytes
// in memory: what does not fit is written to an unlinked temporary file and read back in blocks
// through a small cache. The bounded first export of a run keeps the main stream and
// phase detection's per-dispatch columns in these, so its memory does not grow with the trace;
// every algorithm that reads them goes mostly forward, or a step's length back (one period), so a
// few blocks hold what it reads at once.
//
// Unbounded (memory_bytes 0) it is a plain vector, which is what in-memory analysis uses.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace kprof {

// An unlinked temporary file in $TMPDIR (else /tmp), written and read at offsets. Throws
// Error(runtime) with the folder and a fix when it cannot be made, written or read (a full disk).
class SpillFile {
 public:
  SpillFile();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  void write(uint64_t offset, const void* data, size_t bytes);
  void read(uint64_t offset, void* data, size_t bytes) const;

 private:
  int m_fd = -1;
};

// The memory a spill vector of a bounded computation holds: $KPROF_SPILL_BYTES when set (a whole
// number of bytes, at least 1024: less memory, more temporary disk and reads; tests set it small
// so that real runs spill), else `fallback`. Error(input) naming the variable when it is not one.
size_t spill_memory_bytes(size_t fallback);

template <class T>
class SpillVector {
  static_assert(std::is_trivially_copyable_v<T>, "a spilled value is copied as bytes");

 public:
  // Blocks held for reading besides the one being appended (read patterns compare a position with
  // one a period away, and the step being cut with the reference step).
  static constexpr size_t k_slots = 6;

  // memory_bytes 0: unbounded, all in memory. Otherwise about that many bytes are held (at least
  // one value per block), the rest spilled.
  SpillVector() = default;
  explicit SpillVector(size_t memory_bytes) {
    if (memory_bytes) {
      m_block = std::max<size_t>(1, memory_bytes / (k_slots + 1) / sizeof(T));
      m_mem.reserve(m_block);
    }
  }
  explicit SpillVector(std::vector<T> values) : m_mem(std::move(values)), m_size(m_mem.size()) {}
  SpillVector(SpillVector&&) noexcept = default;
  SpillVector& operator=(SpillVector&&) noexcept = default;

  void push_back(const T& v) {
    m_mem.push_back(v);
    ++m_size;
    if (m_block && m_mem.size() == m_block) flush();
  }
  void reserve(size_t n) {
    if (!m_block) m_mem.reserve(n);
  }
  size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  bool bounded() const { return m_block != 0; }
  // Whether values were written to the file (false while everything fits in memory).
  bool spilled() const { return m_file != nullptr; }

  T operator[](size_t i) const {
    assert(i < m_size);
    if (!m_file) return m_mem[i];
    const size_t b = i / m_block;
    if (b == m_flushed) return m_mem[i - b * m_block];  // the block being appended
    if (m_slot[m_last].block == b) return m_slot[m_last].data[i - b * m_block];
    return slot_for(b).data[i - b * m_block];
  }
  T front() const { return (*this)[0]; }
  T back() const { return (*this)[m_size - 1]; }
  // Reads in order, one value at a time (a value, not a reference: spilled values live in blocks
  // that a later read may replace).
  class Iterator {
   public:
    Iterator(const SpillVector* v, size_t i) : m_v(v), m_i(i) {}
    T operator*() const { return (*m_v)[m_i]; }
    Iterator& operator++() {
      ++m_i;
      return *this;
    }
    bool operator==(const Iterator& o) const { return m_i == o.m_i; }

   private:
    const SpillVector* m_v;
    size_t m_i;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, m_size}; }

  // [b, e) as a vector (a step's worth of values for algorithms that need them contiguous).
  std::vector<T> slice(size_t b, size_t e) const {
    std::vector<T> out;
    out.reserve(e - b);
    for (size_t i = b; i < e; ++i) out.push_back((*this)[i]);
    return out;
  }

 private:
  struct Slot {
    size_t block = SIZE_MAX;
    uint64_t used = 0;
    std::vector<T> data;
  };

  void flush() {
    if (!m_file) m_file = std::make_unique<SpillFile>();
    m_file->write(static_cast<uint64_t>(m_flushed) * m_block * sizeof(T), m_mem.data(),
                  m_mem.size() * sizeof(T));
    ++m_flushed;
    m_mem.clear();
  }
  const Slot& slot_for(size_t b) const {
    size_t victim = 0;
    for (size_t s = 0; s < k_slots; ++s) {
      if (m_slot[s].block == b) return touch(s);
      if (m_slot[s].used < m_slot[victim].used) victim = s;
    }
    Slot& v = m_slot[victim];
    v.data.resize(m_block);
    m_file->read(static_cast<uint64_t>(b) * m_block * sizeof(T), v.data.data(),
                 m_block * sizeof(T));
    v.block = b;
    return touch(victim);
  }
  const Slot& touch(size_t s) const {
    m_slot[s].used = ++m_clock;
    m_last = s;
    return m_slot[s];
  }

  std::vector<T> m_mem;  // unbounded: every value; bounded: the block being appended
  size_t m_size = 0;
  size_t m_block = 0;    // values per block; 0: unbounded
  size_t m_flushed = 0;  // blocks written to the file (the appended block's index)
  std::unique_ptr<SpillFile> m_file;
  mutable std::array<Slot, k_slots> m_slot{};
  mutable size_t m_last = 0;
  mutable uint64_t m_clock = 0;
};

}  // namespace kprof
