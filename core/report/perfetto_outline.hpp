// What the streamed Perfetto export (perfetto.hpp) learns before it writes a dispatch slice: the
// run's phases and steps, each pass's clock and reorder window (analysis::RunOutline), and how
// counters are joined. Read from the analysis tables when the run's outline is stored and current
// (O(steps) rows; the joined counters are then streamed from the stored mapping while the slices
// are written, analysis::JoinedCounterStream): memory independent of the number of dispatches.
// Otherwise computed once and stored when the file is writable and no other process writes: found
// from the database in bounded memory (analysis::compute_outline_bounded: the main stream copied
// into spill vectors), the capture never loaded, after the counter passes whose join is missing or
// stale were joined from the database too and their mapping stored (analysis::try_join_stored).
// Only when that join cannot be stored (a read-only file, another writer) is the run loaded as the
// compact analysis capture (40 bytes per dispatch) to align the passes, and dropped before the
// export writes; the counters of the joined dispatches are then held in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/outline/claims.hpp"
#include "core/analysis/outline/run_outline.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/analysis/structure/phases.hpp"
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
  // The main stream's segments in Dispatch_Id order (they cover it).
  std::vector<analysis::OutlineSegment> segments;
  size_t trace_window = 0;  // reorder_window of the trace pass
  struct CounterPass {
    int64_t pass_id = 0, ordinal = 0;
    int64_t base_ns = 0;  // its own clock: its first dispatch's start
    size_t window = 0;
  };
  std::vector<CounterPass> counter_passes;  // those with dispatches, by ordinal
  // True when the outline was read from the store (the capture was never loaded).
  bool from_store = false;
  // The run's passes and counts; with `stream_joined`, the joined counters are streamed from the
  // stored mapping (analysis::JoinedCounterStream) instead of held in `joined`.
  analysis::RunCounts counts;
  bool stream_joined = false;
  // Otherwise the counter values joined onto the trace dispatches that have any:
  // joined.by_dispatch[i] holds those of joined_keys[i], keys sorted by (pid, Dispatch_Id).
  std::vector<std::pair<int64_t, int64_t>> joined_keys;
  analysis::JoinedCounters joined;
  std::vector<analysis::JoinSummary> joins_computed;  // joins this export computed
  // The phase model's claims (windows, steps, prefill, decode, layers) with their confidence,
  // evidence and reasons, as `kprof query DB claims` gives them; the join claims are read apart.
  std::vector<analysis::Claim> structure_claims;
  std::vector<std::string> notes;
  analysis::FamilyRules rules;       // the run's runbook's first, then configs/families
  std::optional<hw::Target> target;  // empty without a hardware file for the arch

  // The segment of a main-stream dispatch, nullptr for a dispatch off the main stream.
  const analysis::OutlineSegment* segment_of(int64_t pid, int64_t agent, int64_t dispatch_id) const;
  // Index into joined.by_dispatch of a trace dispatch's counters, or -1.
  int64_t joined_index(int64_t pid, int64_t dispatch_id) const;
};

// The phases (runs of segments of one phase), each followed by its steps, as enclosing slices,
// made from the segments one at a time as the export writes them (never all held: they are the
// larger part of what grows with the steps).
void for_each_enclosing(const PerfettoOutline& o,
                        const std::function<void(const EnclosingSlice&)>& f);

// Throws Error(input) as analysis::load_capture does (no run, no trace pass, no dispatches). Joins
// counter passes whose mapping is missing or stale, and stores the mapping and the outline when
// the file is writable and no other process writes (as a query session does). `use_stored` false:
// computed from the capture even when stored (tests compare the two).
PerfettoOutline outline_run(store::CaptureDb& db, std::optional<int64_t> run_id,
                            bool use_stored = true);

}  // namespace kprof::report
