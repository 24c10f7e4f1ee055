// `kprof export DB --perfetto trace.json`: a run as Chrome trace-event JSON (the JSON Object Format
// of the Trace Event Format,
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h8I0nSsKchNAySU), which
// ui.perfetto.dev and chrome://tracing open.
//
// Tracks: one process per profiled process (pid), one thread per GPU agent and queue
// ("agent 1 queue 2"); dispatches are complete events ("ph":"X", "ts" and "dur" in microseconds)
// with the kernel's full name, family, variant, phase, step and its joined counters and derived
// metrics as args. Steps and phases are enclosing slices on a "phases and steps" thread of the main
// process. Counter passes are separate runs of the application with their own clock, so their
// dispatches are on their own processes ("counter pass 2 ..."), never on the trace's timeline.
// Dispatches that overlap on one queue go to an "overlap" lane, since slices of one thread must
// nest (Perfetto's JSON importer, google/perfetto src/trace_processor/importers/json/).
//
// Events are written one at a time as they are made (no document is built), so the output costs
// no memory beyond the query session's capture.
#pragma once

#include <cstdint>
#include <ostream>

#include "core/analysis/session.hpp"

namespace kprof::report {

struct PerfettoSummary {
  int64_t dispatch_slices = 0;      // trace-pass dispatches (one slice each)
  int64_t step_slices = 0;          // steps and phases
  int64_t counter_pass_slices = 0;  // counter-pass dispatches
  int64_t overlap_lanes = 0;        // extra lanes opened for overlapping dispatches
  bool simulated = false;
};

PerfettoSummary write_perfetto(std::ostream& os, analysis::QuerySession& session);

}  // namespace kprof::report
