// What the streamed Perfetto export (perfetto.hpp) learns before it writes a dispatch slice, in
// one pass over the run loaded as the compact analysis capture (analysis::load_capture: 40 bytes
// per dispatch). Phase detection needs that much: steps are found from the main stream's whole
// kernel sequence and its host gaps (core/analysis/phases.hpp). What is kept afterwards grows with
// the run's steps, launch configurations, processes and counter-joined dispatches, never with its
// trace dispatches; the capture and the phase model are dropped before the export writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/analysis_db.hpp"
#include "core/analysis/family.hpp"
#include "core/analysis/phases.hpp"
#include "core/hw/target.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::report {

// A phase or a step: an enclosing slice of the "phases and steps" thread.
struct EnclosingSlice {
  std::string name, cat;
  int64_t start_ns = 0, dur_ns = 0;  // start relative to the trace's time base
  std::string args;                  // a JSON object
};

struct PerfettoOutline {
  store::RunInfo run;
  int64_t trace_pass_id = 0;
  std::string arch, product;  // the trace's GPU agent
  bool simulated = false;
  int64_t base_ns = 0;  // the first trace dispatch's start: every ts is relative to it
  int64_t main_pid = 0, main_agent = 0;
  // The main stream's segments in Dispatch_Id order (they cover it): the Dispatch_Id of each
  // one's first dispatch, its phase, and its 1-based number among the steps (0: not a step).
  struct Segment {
    int64_t first_id = 0;
    analysis::Phase phase = analysis::Phase::unknown;
    int64_t step = 0;
  };
  std::vector<Segment> segments;
  std::vector<EnclosingSlice> enclosing;  // phases, each followed by its steps
  size_t trace_window = 0;                // reorder_window of the trace pass
  struct CounterPass {
    int64_t pass_id = 0, ordinal = 0;
    int64_t base_ns = 0;  // its own clock: its first dispatch's start
    size_t window = 0;
  };
  std::vector<CounterPass> counter_passes;  // those with dispatches, by ordinal
  // Counter values joined onto the trace dispatches that have any: joined.by_dispatch[i] holds
  // those of joined_keys[i], keys sorted by (pid, Dispatch_Id).
  std::vector<std::pair<int64_t, int64_t>> joined_keys;
  analysis::JoinedCounters joined;
  std::vector<analysis::JoinSummary> joins_computed;  // joins this export computed
  std::vector<std::string> notes;
  analysis::FamilyRules rules;       // the run's runbook's first, then configs/families
  std::optional<hw::Target> target;  // empty without a hardware file for the arch

  // The segment of a main-stream dispatch, nullptr for a dispatch off the main stream.
  const Segment* segment_of(int64_t pid, int64_t agent, int64_t dispatch_id) const;
  // Index into joined.by_dispatch of a trace dispatch's counters, or -1.
  int64_t joined_index(int64_t pid, int64_t dispatch_id) const;
};

// Throws Error(input) as analysis::load_capture does (no run, no trace pass, no dispatches). Joins
// counter passes whose mapping is missing or stale, and stores the mapping when the file is
// writable and no other process writes (as a query session does).
PerfettoOutline outline_run(store::CaptureDb& db, std::optional<int64_t> run_id);

}  // namespace kprof::report
