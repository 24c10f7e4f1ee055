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

void CounterCollectionReader::bind_columns() {
  m_cols = bind_dispatch_columns();
  m_grid = require({"Grid_Size"});
  m_wg = require({"Workgroup_Size"});
  m_counter = require({"Counter_Name"});
  m_value = require({"Counter_Value"});
  m_start = column({"Start_Timestamp"});
  m_end = column({"End_Timestamp"});
}

void CounterCollectionReader::read_row(const CsvRow& row) {
  const int64_t pid = pid_or_default(row, m_cols.pid);
  const int64_t dispatch_id = i64(row, m_cols.dispatch);
  std::string_view counter = text(row, m_counter);
  if (counter.empty()) throw RowProblem{m_counter, "empty counter name"};
  const double value = f64(row, m_value);

  // A dispatch's fields repeat on each of its counter rows: parse and deliver them the first time
  // only (most rows of a counter file are repeats, so this is most of the reader's work saved).
  if (m_seen.contains(pid, dispatch_id)) {
    emit_counter(pid, dispatch_id, counter, value);
    return;
  }
  store::DispatchRow& d = m_dispatch_row;
  d.grid_x = i64(row, m_grid);
  d.wg_x = i64(row, m_wg);
  d.start_ns = i64_or(row, m_start, 0);
  d.end_ns = i64_or(row, m_end, 0);
  if (d.end_ns < d.start_ns) throw RowProblem{m_end, "ends before it starts"};
  read_dispatch_columns(row, m_cols, d);

  // Marked seen only once it parsed: a bad first row leaves the next row to deliver the dispatch.
  m_seen.insert(pid, dispatch_id);
  d.dispatch_id = dispatch_id;
  d.stream_id.reset();
  d.grid_y = d.grid_z = 1;
  d.wg_y = d.wg_z = 1;
  d.dims_known = false;
  sink().dispatch(d);
  ++m_dispatches;
  emit_counter(pid, dispatch_id, counter, value);
}

void CounterCollectionReader::emit_counter(int64_t pid, int64_t dispatch_id,
                                           std::string_view counter, double value) {
  store::CounterRow& c = m_counter_row;
  c.dispatch_id = dispatch_id;
  c.pid = pid;
  c.counter.assign(counter.data(), counter.size());
  c.value = value;
  sink().counter(c);
  ++m_counters;
}

}  // namespace kprof::ingest
