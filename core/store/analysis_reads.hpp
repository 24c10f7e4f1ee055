// What the analysis reads of a pass besides whole rows (capture_db.hpp for_each_dispatch): the two
// halves of a dispatch as the schema stores them (its kernel variant once, then the narrow rows
// that name it), counts, per-stream sums, and counter values joined onto trace dispatches through
// the stored join mapping (analysis_results.hpp). Every statement is here; the readers stream
// rows, one at a time, so no caller holds a pass it does not keep.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::store {

// A kernel variant of a pass (a kernel_variants row): its id, and the variant's columns in the
// fields of a DispatchRow that hold them (columns::kernel_variants: kernel_id, kernel_name, grid,
// workgroup, dims_known, lds, scratch, and vgpr/agpr/sgpr, empty when the layout had none).
struct KernelVariant {
  int64_t id = 0;
  DispatchRow shape;
};
// Every variant of pass `pass_id`, in id order.
void for_each_kernel_variant(CaptureDb& db, int64_t pass_id,
                             const std::function<void(const KernelVariant&)>& fn);

// A dispatch_rows row without the columns the analysis does not use: which variant it launched,
// where and when it ran.
struct DispatchTiming {
  int64_t dispatch_id = 0;
  int64_t variant_id = 0;
  int64_t pid = 0;
  int64_t agent = 0;
  int64_t queue_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Pass `pass_id`'s narrow rows in (pid, Dispatch_Id) order, one at a time, through the index
// dispatches_by_key (schema/0005_kernel_variants.sql: no sort). Several may be open at once on
// one connection; `db` must outlive it.
class DispatchTimingReader {
 public:
  DispatchTimingReader(CaptureDb& db, int64_t pass_id);
  ~DispatchTimingReader();
  DispatchTimingReader(const DispatchTimingReader&) = delete;
  DispatchTimingReader& operator=(const DispatchTimingReader&) = delete;
  bool next(DispatchTiming& row);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// The narrow rows of one (process, agent) of pass `pass_id` (a rank, pass_ranks.hpp) in start
// order (ties by end, then Dispatch_Id), one at a time: what a sweep over the agent's busy time
// needs. The rows come through the index dispatches_by_key (pass, pid) and are sorted by SQLite,
// whose sorter spills to temporary files past its cache (https://sqlite.org/tempfiles.html,
// "Transient Indices"), so the caller's memory does not grow with the rank's dispatches.
void for_each_rank_timing(CaptureDb& db, int64_t pass_id, int64_t pid, int64_t agent,
                          const std::function<void(const DispatchTiming&)>& fn);

// Per kernel name of pass `pass_id`: its launches and their summed duration (end - start), by
// name (byte order). The narrow rows are summed per variant id, then each variant's name is read
// once: a name is read once per kernel, not once per dispatch.
struct KernelNameTotal {
  std::string name;
  int64_t calls = 0;
  int64_t total_ns = 0;
};
std::vector<KernelNameTotal> kernel_name_totals(CaptureDb& db, int64_t pass_id);

// The variant each dispatch of pass `pass_id` launched, in (pid, Dispatch_Id) order, for the
// dispatches of the variants `only` lists (the trace's launch sequence of those kernels). Read
// from the index dispatches_by_key alone (0010_pass_ranks.sql), never the table.
void for_each_variant_launch(CaptureDb& db, int64_t pass_id, const std::vector<int64_t>& only,
                             const std::function<void(int64_t variant_id)>& fn);

// Rows of dispatch_rows of pass `pass_id` (the dispatches view has as many).
int64_t dispatch_count(CaptureDb& db, int64_t pass_id);

// Every dispatch of pass `pass_id` as (variant id, duration: end - start, 0 when negative), in no
// particular order.
void for_each_variant_duration(CaptureDb& db, int64_t pass_id,
                               const std::function<void(int64_t variant_id, int64_t ns)>& fn);

// A (process, agent) of a pass and its dispatches.
struct DispatchStream {
  int64_t pid = 0, agent = 0, dispatches = 0;
};
std::vector<DispatchStream> dispatch_streams(CaptureDb& db, int64_t pass_id);  // by pid, agent

// Per counter name, the values of counter pass `counter_pass_id` whose dispatch the stored join
// matched to a trace dispatch of `trace_pass_id`: how many, their sum, minimum and maximum. By
// counter id; each sum adds the values in the counter pass's (pid, Dispatch_Id) order.
struct JoinedCounterSum {
  std::string counter;
  int64_t values = 0;
  double sum = 0, min = 0, max = 0;
};
std::vector<JoinedCounterSum> joined_counter_sums(CaptureDb& db, int64_t counter_pass_id,
                                                  int64_t trace_pass_id);

// A counter value moved onto the trace dispatch the stored join matched its dispatch to.
struct JoinedValue {
  int64_t trace_pid = 0, trace_dispatch_id = 0;
  int64_t counter_pass_id = 0, counter_pid = 0, counter_dispatch_id = 0;
  int64_t counter_id = 0;  // strings.id of the counter's name (CaptureDb::string_by_id)
  double value = 0;
};

// The values of counter passes `counter_pass_ids` joined onto trace pass `trace_pass_id`, in the
// trace's (pid, Dispatch_Id) order and in no order within one trace dispatch. `db` must outlive it.
class JoinedValueReader {
 public:
  JoinedValueReader(CaptureDb& db, int64_t trace_pass_id,
                    const std::vector<int64_t>& counter_pass_ids);
  ~JoinedValueReader();
  JoinedValueReader(const JoinedValueReader&) = delete;
  JoinedValueReader& operator=(const JoinedValueReader&) = delete;
  bool next(JoinedValue& row);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace kprof::store
