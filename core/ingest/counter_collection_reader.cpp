#include "core/ingest/counter_collection_reader.hpp"

#include <algorithm>

namespace kprof::ingest {

bool SeenDispatches::contains(int64_t pid, int64_t id) const {
  for (const auto& [p, bits] : m_by_pid) {
    if (p != pid) continue;
    const auto u = static_cast<uint64_t>(id < 0 ? -(id + 1) : id);
    const size_t word = static_cast<size_t>(u >> 6);
    return word < bits.size() && (bits[word] >> (u & 63) & 1);
  }
  return false;
}

bool SeenDispatches::insert(int64_t pid, int64_t id) {
  std::vector<uint64_t>* bits = nullptr;
  for (auto& [p, b] : m_by_pid) {
    if (p == pid) {
      bits = &b;
      break;
    }
  }
  if (!bits) bits = &m_by_pid.emplace_back(pid, std::vector<uint64_t>{}).second;
  // Negative ids never come from rocprofv3; fold them so a strange file cannot index below 0.
  const auto u = static_cast<uint64_t>(id < 0 ? -(id + 1) : id);
  const size_t word = static_cast<size_t>(u >> 6);
  if (word >= bits->size()) bits->resize(std::max(word + 1, bits->size() * 2), 0);
  const uint64_t mask = uint64_t{1} << (u & 63);
  if ((*bits)[word] & mask) return false;
  (*bits)[word] |= mask;
  return true;
}

namespace {

using csv::As;
using store::CounterRow;
using store::DispatchRow;

// A dispatch's columns besides those it shares with kernel_trace.csv: only the grid and workgroup
// products, and timestamps only since ROCm 6.3.
constexpr auto k_dispatch_fields = std::tuple{
    csv::need("Grid_Size", &DispatchRow::grid_x),
    csv::need("Workgroup_Size", &DispatchRow::wg_x),
    csv::maybe("Start_Timestamp", &DispatchRow::start_ns),
    csv::maybe("End_Timestamp", &DispatchRow::end_ns, As::integer,
               &csv::ends_after_start<DispatchRow>),
};

constexpr const char* counter_named(const CounterRow& c) {
  return c.counter.empty() ? "empty counter name" : nullptr;
}

// The counter of each row (its dispatch's pid and id come from the shared columns).
constexpr auto k_counter_fields = std::tuple{
    csv::need("Counter_Name", &CounterRow::counter, As::text, &counter_named),
    csv::need("Counter_Value", &CounterRow::value, As::number),
};

}  // namespace

void CounterCollectionReader::bind_columns() {
  m_shared = bind_fields(csv::dispatch_fields);
  m_own = bind_fields(k_dispatch_fields);
  m_counter_cols = bind_fields(k_counter_fields);
  set_text_column(m_shared[csv::k_name_field]);
}

void CounterCollectionReader::read_row(const CsvRow& row) {
  store::CounterRow& c = m_counter_row;
  store::DispatchRow& d = m_dispatch_row;
  // The dispatch's pid and id, read as the shared columns read them.
  read_field<csv::dispatch_fields, csv::k_pid_field>(row, m_shared[csv::k_pid_field], d);
  read_field<csv::dispatch_fields, csv::k_dispatch_field>(row, m_shared[csv::k_dispatch_field], d);
  c.pid = d.pid;
  c.dispatch_id = d.dispatch_id;
  read_fields<k_counter_fields>(row, m_counter_cols, c);

  // A dispatch's fields repeat on each of its counter rows: parse and deliver them the first time
  // only (most rows of a counter file are repeats, so this is most of the reader's work saved).
  if (m_seen.contains(c.pid, c.dispatch_id)) {
    emit_counter();
    return;
  }
  read_fields<k_dispatch_fields>(row, m_own, d);
  read_fields<csv::dispatch_fields>(row, m_shared, d);

  // Marked seen only once it parsed: a bad first row leaves the next row to deliver the dispatch.
  m_seen.insert(c.pid, c.dispatch_id);
  d.stream_id.reset();
  d.grid_y = d.grid_z = 1;
  d.wg_y = d.wg_z = 1;
  d.dims_known = false;
  sink().dispatch(d);
  ++m_dispatches;
  emit_counter();
}

void CounterCollectionReader::emit_counter() {
  sink().counter(m_counter_row);
  ++m_counters;
}

}  // namespace kprof::ingest
