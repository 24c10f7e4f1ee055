// A run's outline, as `kprof export --perfetto` needs it before its first slice: the
// main stream's segments (steps, phases) and each pass's clock and reorder window. Finding it
// reads the main stream's whole kernel sequence and host gaps, but the outline itself grows with
// steps only. In-memory analysis finds it from the capture it loaded (about 60 bytes per
// dispatch); a first export, which loads no capture, finds it from the database in bounded memory
// (compute_outline_bounded). It is computed once per run and stored in the analysis tables
// (core/store/schema/0007_analysis_results.sql: analysis_outline*), like the join mapping; an
// export whose outline is stored and current reads O(steps) rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/structure/phases.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::analysis {

struct Claim;  // claims.hpp

// A pass with dispatches: its count when outlined, its clock, and the most earlier dispatches of
// one process (in Dispatch_Id order) that start after one dispatch (report/start_order.hpp).
struct OutlinePass {
  int64_t pass_id = 0, ordinal = 0, dispatches = 0;
  int64_t base_ns = 0;  // its first dispatch's start: each pass is its own run and clock
  int64_t reorder_window = 0;
  bool operator==(const OutlinePass& o) const;
};

// A segment of the main stream (PhaseModel::steps, in order): a step, or dispatches in none.
struct OutlineSegment {
  int64_t first_id = 0;  // Dispatch_Id of its first dispatch
  Phase phase = Phase::unknown;
  int64_t step = 0;      // 1-based number among the steps (prefill, decode, step, irregular); 0
  int64_t start_ns = 0;  // its first dispatch's start, or the previous segment's when that is later
  int64_t end_ns = 0;    // latest end of its dispatches, cut at the next segment's start
  int64_t dispatches = 0;
  int64_t window = 0;  // PhaseModel::windows index
  bool operator==(const OutlineSegment& o) const;
};

struct RunOutline {
  std::string arch, product;  // the trace's GPU agent (Capture::arch, product)
  int64_t main_pid = 0, main_agent = 0;
  OutlinePass trace;
  std::vector<OutlinePass> counters;  // counter passes with dispatches, by ordinal
  std::vector<OutlineSegment> segments;
  bool operator==(const RunOutline& o) const;
};

// For dispatches in (pid, Dispatch_Id) order: the largest number of earlier dispatches of the
// same process that start strictly after one dispatch (0 when every process's starts never go
// back): the window of report::StartOrder's heap. Memory: the window and a block of starts.
size_t reorder_window(const std::vector<Dispatch>& in_pid_id_order);
// The same from the starts alone, in (pid, Dispatch_Id) order; `process_begins`: the index of each
// process's first start. Memory: the window and a block of starts, whatever the pass's size.
size_t reorder_window(const SpillVector<int64_t>& starts,
                      const std::vector<size_t>& process_begins);

// The outline of a loaded capture: phase detection on its trace (the in-memory analysis, as
// `kprof query phases` runs it), each pass's count, clock and reorder window.
RunOutline compute_outline(const Capture& cap);
// The same from `pm`, the phase model of `cap`'s trace that an analysis already detected.
RunOutline compute_outline(const Capture& cap, const PhaseModel& pm);

// The outline of run `rt` (whose pass counts are `counts`) read from the database in bounded
// memory: the trace's main stream and phase detection's columns are held in
// SpillVectors of about `memory_bytes` each, each pass's starts read once for its clock and reorder
// window. Equal to compute_outline(load_capture(...)) (`ctest -R GoldenCapture` compares them on
// every real capture).
// `step_period`, when given, receives the phase model's step length (PhaseModel::step_period: the
// join's jump bound, join_jump_bound); `structure_claims`, the phase model's claims (claims.hpp
// claims_of without joins: windows, steps, prefill, decode, layers), for the Perfetto export,
// which holds no phase model.
RunOutline compute_outline_bounded(store::CaptureDb& db, const RunTrace& rt,
                                   const RunCounts& counts, size_t memory_bytes,
                                   size_t* step_period = nullptr,
                                   std::vector<Claim>* structure_claims = nullptr);

// Whether a phase is one of a step (numbered): prefill, decode, step, irregular.
bool is_step(Phase p);

// The segments of a phase model, with their steps numbered, starts never before the previous
// segment's and ends cut at the next start, so that slices of one thread nest (kernels of one step
// may still run when the next starts; a step's first dispatch by Dispatch_Id may start before the
// previous step's last).
std::vector<OutlineSegment> outline_segments(const PhaseModel& pm);

// The stored outline of `counts`' trace pass when it is current: stored by this kprof's outline
// version, with every pass's dispatch count as in `counts`. Empty otherwise (never stored, a pass
// re-ingested since, or stored by another version).
std::optional<RunOutline> read_outline(store::CaptureDb& db, const RunCounts& counts);

// Stores `o` (replacing the trace pass's previous outline) in one transaction if the write lock
// is free now; false, having changed nothing, when another connection holds it. Read-write.
bool try_store_outline(store::CaptureDb& db, const RunOutline& o);

}  // namespace kprof::analysis
