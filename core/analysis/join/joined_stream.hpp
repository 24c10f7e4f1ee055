// Counter values joined onto trace dispatches, read from the stored join mapping one trace
// dispatch at a time in (pid, Dispatch_Id) order: the order store::CaptureDb::for_each_dispatch
// hands the trace out in, so a streamed writer (the Perfetto export) merges the two. Memory does
// not grow with the trace: load_joined_counters holds a sample vector per trace dispatch (24 bytes
// each even when empty); this holds one dispatch's samples and the counter names.
//
// Each dispatch's samples come in load_joined_counters' order (counter passes by ordinal; within
// a pass by counter-side (pid, Dispatch_Id), then counter name, as for_each_counter reads them),
// so a formula that takes the first value of a name reads the same one. `launch` numbers the
// counter-side dispatches of one trace dispatch only (load_joined_counters numbers them run-wide).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/metrics/metrics.hpp"

namespace kprof::analysis {

class JoinedCounterStream {
 public:
  // Reads the stored mapping of `counts`' counter passes onto its trace pass; passes whose join
  // failed its self-check are left out unless `use_unreliable`. The mapping must be current
  // (joins_current).
  JoinedCounterStream(store::CaptureDb& db, const RunCounts& counts, bool use_unreliable = false);
  ~JoinedCounterStream();
  JoinedCounterStream(const JoinedCounterStream&) = delete;
  JoinedCounterStream& operator=(const JoinedCounterStream&) = delete;

  // The samples of trace dispatch (pid, dispatch_id), empty when it has none; their counter names
  // interned in `names` (a JoinedCounters' counters, so dispatch_metrics reads them). Calls must
  // come in (pid, Dispatch_Id) order; samples of dispatches skipped over are dropped.
  std::vector<CounterSample> take(int64_t pid, int64_t dispatch_id, NameTable& names);
  const std::vector<int64_t>& excluded_passes() const { return m_excluded; }

 private:
  store::CaptureDb* m_db = nullptr;
  std::unique_ptr<store::JoinedValueReader> m_q;
  store::JoinedValue m_cur;
  bool m_row = false;  // m_cur holds a row not yet taken
  std::vector<int64_t> m_excluded;
  const NameTable* m_names = nullptr;              // the table m_ids' ids are in
  std::unordered_map<int64_t, uint32_t> m_ids;     // strings.id of a counter name -> its id there
  std::unordered_map<int64_t, int64_t> m_ordinal;  // counter pass id -> its ordinal
  struct Row {
    int64_t ordinal, pass, pid, dispatch;
    uint32_t counter;
    double value;
  };
  std::vector<Row> m_rows;  // one trace dispatch's rows, to sort
};

}  // namespace kprof::analysis
