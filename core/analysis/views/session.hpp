// Opening a capture database for queries, as every front end does it (the `query` use case):
//  1. the run: the latest, or the one asked for;
//  2. the join mapping: when a counter pass has none or a stale one, every pass's is computed in
//     memory and used (each computed join is reported, so the caller can say so); a query never
//     writes, so it is not stored (store_results.hpp: the commands that store it);
//  3. the run's own runbook (its text is stored by `kprof run`): its `analysis.families` rules are
//     tried before configs/families, and its `layers`/`output_tokens` hints are checked against
//     what the data shows. Runs made by `kprof ingest` have no runbook.
// A front end parses its flags into SessionOptions and ViewOptions, opens a session, renders views.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/views/views.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::analysis {

// The note of a session that computed the join in memory.
extern const char* const k_join_not_stored;

struct SessionOptions {
  std::optional<int64_t> run_id;  // empty: the latest run
  // Override the runbook's hints (e.g. --expect-layers / --expect-steps).
  std::optional<int> layers, output_tokens;
  // Use the counters of joins that failed their self-check (--force-join).
  bool force_join = false;
  // Hold none of the trace's dispatches when the run's stored join is current: the session then
  // serves only the views bounded_view() names (QueryContext::bounded; the trace model's sums,
  // the main stream spilled past $KPROF_SPILL_BYTES, default 4 MiB, per column). Otherwise, or
  // with no stored join, the capture is loaded as without it.
  bool bounded = false;
};

// What the runbook stored with a run contributes to its analysis.
struct RunbookAnalysis {
  std::vector<FamilyRule> rules;
  std::optional<int> layers, output_tokens;
  std::vector<std::string> metric_sets;  // passes.counters.metric_sets: what `metric_sets` shows
  // Why the stored runbook was not used ("" when it was, or when the run has none).
  std::string not_used_because;
};
// The runbook hints of `run` that queries use: as stored when the run was recorded
// (store/runbook_hints.hpp), else, for a run recorded before they were, parsed from its text.
RunbookAnalysis runbook_analysis(store::CaptureDb& db, const store::RunInfo& run);

class QuerySession {
 public:
  // Opens `db` read-only and never writes it. Throws Error(input) as load_capture() does.
  static QuerySession open(const std::filesystem::path& db, const SessionOptions& options);

  // The named view with the session's hints filled in where `options.hints` leaves them empty.
  Table view(const std::string& name, ViewOptions options);

  // Joins this opening computed in memory (empty when all stored ones were current).
  const std::vector<JoinSummary>& joins_computed() const { return m_joins; }
  // Notes for the user ("the run's runbook does not load here ...").
  const std::vector<std::string>& notes() const { return m_notes; }
  // The run, its passes and its trace; the counter passes' dispatches only once something needed
  // them (Capture::counter_rows): what views and the report read of the run.
  const Capture& trace_capture() const { return m_query->capture(); }
  // The same with every counter pass's dispatches, read now when they were not.
  const Capture& capture() { return m_query->capture_with_counter_rows(); }
  // Typed results for views that draw rather than print (core/report): the trace model, the
  // counters joined onto trace dispatches, the target (nullptr without a hardware file).
  const TraceModel& model() const { return m_query->model(); }
  // The trace pass's dispatches (held or not).
  int64_t trace_dispatches() { return m_query->trace_dispatches(); }
  // Whether the session holds no trace dispatch (SessionOptions::bounded was taken).
  bool holds_no_dispatches() const { return m_query->holds_no_dispatches(); }
  const JoinedCounters& joined() { return m_query->joined(); }
  const hw::Target* target() { return m_query->target(); }
  // One lane per rank around the widest arrival skew (nullopt with one rank).
  std::optional<RankLanes> rank_lanes() { return m_query->rank_lanes(); }
  // How often this session held every dispatch's joined counters at once (QueryContext): views
  // stream them from a current stored join, so 0 unless the join was computed or joined() asked.
  int64_t whole_joins_loaded() const { return m_query->whole_joins_loaded(); }
  const ExplainHints& hints() const { return m_hints; }

 private:
  QuerySession() = default;
  // The hints, metric sets and family rules of the run's runbook (notes when it does not load).
  FamilyRules use_runbook(const store::RunInfo& run, const SessionOptions& options);
  std::unique_ptr<store::CaptureDb> m_db;
  std::unique_ptr<QueryContext> m_query;
  ExplainHints m_hints;
  std::vector<std::string> m_metric_sets;  // the runbook's
  std::vector<JoinSummary> m_joins;
  std::vector<std::string> m_notes;
};

// A view that needs no trace model, computed without loading the capture: `top` and `families`
// with neither --family nor --phase (streamed_top, streamed_families: memory independent of the
// trace's length), `counters` likewise when the stored join is current (streamed_counters:
// aggregated by SQLite), and `ranks` (ranks_table: one rank's dispatches at a time). Empty for
// every other view; then open a QuerySession. `notes` gets what QuerySession::notes() would hold.
std::optional<Table> streamed_view(const std::filesystem::path& db, const SessionOptions& options,
                                   const std::string& view, const ViewOptions& o,
                                   std::vector<std::string>& notes);

// "joined pass 3 to the trace: 6144 of 6144 dispatches matched (100%), kernel-filtered pass"
std::string join_note(const JoinSummary& join);

}  // namespace kprof::analysis
