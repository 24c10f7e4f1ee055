// `kprof export DB --perfetto trace.json`: a run as Chrome trace-event JSON (the JSON Object Format
// of the Trace Event Format,
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h8I0nSsKchNAySU), which
// ui.perfetto.dev and chrome://tracing open.
//
// Tracks: one process per profiled process (pid; named by its ranks too, "rank 1 (GPU agent 2),
// process 102 trace pass", when the trace pass has several: store::pass_ranks), one thread per GPU
// agent and queue ("agent 1 queue 2"); dispatches are complete events ("ph":"X", "ts" and "dur" in
// microseconds: Perfetto reads an integer as x1000 ns and a double as llround(v * 1000) ns,
// google/perfetto
// src/trace_processor/importers/json/json_trace_tokenizer.cc CoerceToTs) with the kernel's full
// name, family, variant, phase, step and its joined counters and derived metrics as args. Steps and
// phases are enclosing slices on a "phases and steps" thread of the main process. Counter passes
// are separate runs of the application with their own clock, so their dispatches are on their own
// processes ("counter pass 2 ..."), never on the trace's timeline.
// Dispatches that overlap on one queue go to an "overlap" lane, since slices of one thread must
// nest or be disjoint: Perfetto does not nest a slice that starts inside another and ends after it
// (google/perfetto src/trace_processor/importers/common/slice_tracker.cc
// SliceTracker::MaybeCloseStack). Up to v56.1 that slice is dropped (stat
// slice_drop_overlapping_complete_event); since v57.0 the JSON parser moves it to a
// "thread_overlapping_slice" track instead and counts the error stat
// slice_spill_overlapping_complete_event (src/trace_processor/importers/json/json_trace_parser.cc
// JsonTraceParser::ParseJsonPacket, case 'X'): either way not where it belongs.
//
// Streamed (a 10M-dispatch export in bounded memory). `open` reads the run's outline
// (perfetto_outline.hpp: phases, steps, each pass's clock and reorder window) from the analysis
// tables when stored and current, else computes it once from the capture and stores it; `write`
// then reads every pass's dispatches from the store one row at a time
// (store::CaptureDb::for_each_dispatch), with the joined counters streamed beside them from the
// stored mapping, and writes each event as it is made, each process's slices in start order
// (start_order.hpp). With a stored outline nothing held grows with the number of dispatches.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "core/report/perfetto_outline.hpp"

namespace kprof::report {

struct PerfettoSummary {
  int64_t dispatch_slices = 0;      // trace-pass dispatches (one slice each)
  int64_t step_slices = 0;          // steps and phases
  int64_t counter_pass_slices = 0;  // counter-pass dispatches
  int64_t overlap_lanes = 0;        // extra lanes opened for overlapping dispatches
  int64_t claim_events = 0;         // structural claims, one instant event each
  bool simulated = false;
};

class PerfettoExport {
 public:
  // Opens the run (the latest when run_id is empty) read-only and outlines it. Throws Error(input)
  // as a query session does for a database without a run, trace pass or dispatches.
  // `use_stored` false: the outline is computed from the capture even when stored (tests).
  static PerfettoExport open(const std::filesystem::path& db, std::optional<int64_t> run_id,
                             bool use_stored = true);

  // Counter joins this opening computed (and stored when it could), and notes for the user.
  const std::vector<analysis::JoinSummary>& joins_computed() const {
    return m_outline.joins_computed;
  }
  const std::vector<std::string>& notes() const { return m_outline.notes; }
  const PerfettoOutline& outline() const { return m_outline; }

  PerfettoSummary write(std::ostream& os);

 private:
  std::unique_ptr<store::CaptureDb> m_db;
  PerfettoOutline m_outline;
};

}  // namespace kprof::report
