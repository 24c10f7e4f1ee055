// The named views of `kprof query DB <view>`: each turns a loaded capture into a Table.
//   top       kernels by summed trace duration
//   families  families (configs/families rules) by summed duration, with variant counts
//   variants  distinct launch configurations with resources, waves per workgroup, phase counts
//   phases    steps found from the data: prefill / decode / tail, period, layers
//   structure every finding (with confidence and evidence), what was not established and why,
//             observations and runbook hints, one row each
//   windows   stretches of the main stream with no missing Dispatch_Id, and the steps in each
//   claims    every structural statement (windows, steps, prefill, decode, layers, join mapping)
//             with confidence high/medium/low/unknown, evidence, alternatives weighed, reason
//   explain   per family: launches = sum over variants of steps × layers × launches per layer
//   counters  collected counter values joined onto trace dispatches, per counter
//   metrics   per variant and phase: FLOPs, bytes, intensity, achieved rates (trace durations)
//   metric_sets per variant and phase: the metrics the metric sets define (configs/metrics
//             formulas, evaluated per dispatch by core/hw's expression engine), flagged when
//             impossible
//   roofline  per family and phase: rates against the target's peaks, and the bound
//   passes    the run's passes, their states and the join's match rate
//   ranks     per rank of a tensor-parallel trace (one per GPU agent): compute, collective and
//             exposed communication time, arrival skew at each collective, who arrived last
//   samples   per variant and counter: launches counted (n), mean, standard deviation, standard
//             error; FLOPs and bytes per launch from counters of one pass only, else combined
//             from variant means (flagged)
// Each view builder (<view>_view.cpp, one file per view) names its columns; the SQL views are
// documented per column in core/store/schema/0007_analysis_results.sql.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/structure/explain.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/table.hpp"
#include "core/hw/target.hpp"

namespace kprof::analysis {

struct ViewOptions {
  std::string family;          // only this family ("" = all)
  std::optional<Phase> phase;  // only this phase (none = all); parse_phase reads the user's word
  size_t limit = 0;            // at most this many rows (0 = all)
  ExplainHints hints;
  // `metric_sets`: the sets whose metrics to show (--metric-set, else the run's runbook); empty:
  // every set of configs/metrics with a metric whose counters the run collected.
  std::vector<std::string> metric_sets;
  // Machine output (CSV, JSON): `explain` gives one row per term of each family's explanation
  // (phase, steps, layers, launches per layer and step, variants, launches, and the confidence
  // and evidence of the phase) instead of one prose string per family; `phases` adds each phase's
  // role_established, confidence and evidence.
  bool structured = false;
  // `samples` in the terminal's default form: one row per family and phase with the launches
  // counted, FLOPs and bytes per launch, intensity and the noise (compact_views.hpp); `--all` and
  // every machine format keep the per-variant, per-counter rows.
  bool compact = false;
};

// The views' names, in the order `kprof query --help` lists them (QueryContext::registry).
const std::vector<std::string>& view_names();

class JoinedCounterStream;  // joined_stream.hpp

class QueryContext {
 public:
  // Loads the run and builds the trace model. Counter joins are read from the database as stored.
  QueryContext(store::CaptureDb& db, std::optional<int64_t> run_id, FamilyRules rules);
  // With a capture already loaded from `db` (saves loading it twice).
  QueryContext(store::CaptureDb& db, Capture capture, FamilyRules rules);

  // A context that holds none of the trace's dispatches, only its launch configurations, names
  // and the sums the views below read (trace model variants and phases: the main stream and phase
  // detection's columns spilled past about `memory_bytes` each, as the bounded outline keeps
  // them); views read the dispatches again from the database, in (pid, Dispatch_Id) order, when
  // they need them. For the views bounded_view() names, and for a run whose stored join is
  // current (the views' notes would otherwise differ: QuerySession::open). Same tables as a
  // context that loaded the capture.
  static std::unique_ptr<QueryContext> bounded(store::CaptureDb& db, const RunTrace& rt,
                                               FamilyRules rules, size_t memory_bytes);
  // Whether this context holds no trace dispatches (bounded()): what tests check was taken.
  bool holds_no_dispatches() const { return m_bounded; }

  Table view(const std::string& name, const ViewOptions& options);

  // Every view: its name and the builder that makes it. view() looks the name up here, so a new
  // view is one entry (and its builder's file), not another branch.
  struct ViewEntry {
    const char* name;
    Table (*build)(QueryContext& q, const ViewOptions& o);
  };
  static const std::vector<ViewEntry>& registry();

  // Use counters of joins that failed their self-check too (--force-join); each view still says so.
  void use_unreliable_joins(bool use) { m_use_unreliable = use; }
  // Use joins computed in memory instead of the stored ones (a session that could not store them).
  void use_computed_joins(ComputedJoins joins) { m_computed = std::move(joins); }
  const Capture& capture() const { return m_cap; }
  // The capture with its counter passes' dispatches (load_counter_rows when they were not read).
  const Capture& capture_with_counter_rows() {
    load_counter_rows(m_db, m_cap);
    return m_cap;
  }
  const TraceModel& model() const { return m_model; }
  // Every trace dispatch's joined counters at once (24 B per dispatch and its samples): for tests
  // and callers that index them; the views stream them (for_each_joined).
  const JoinedCounters& joined();
  const hw::Target* target();  // nullptr when the arch has no hardware file
  // The ranks' lanes around the widest arrival skew, for drawings (streamed_views.hpp).
  std::optional<RankLanes> rank_lanes();

  // Each trace dispatch `keep` accepts, in trace order, with its joined counters: f(k, jc, i),
  // jc.by_dispatch[i] holding dispatch k's samples (often empty). From the stored join one
  // dispatch at a time (JoinedCounterStream: memory independent of the trace's length) unless the
  // session computed the join in memory or joined() was already loaded. The samples and their
  // order are the same either way, so are sums over them; a `launch` is unique within one
  // dispatch only. Counter ids stay the same from one call to the next. Returns whether some
  // dispatch held samples of two launches of one pass (JoinedCounters::repeated_launches).
  // Read dispatch k's fields through dispatch(k), variant_of(k) and phase_of(k): a bounded context
  // holds only the one being visited (k counts the trace's dispatches in (pid, Dispatch_Id) order).
  using JoinedVisit = std::function<void(size_t, const JoinedCounters&, size_t)>;
  bool for_each_joined(const std::function<bool(size_t)>& keep, const JoinedVisit& f);
  // The trace pass's dispatches: those loaded, or in a bounded context its stored count.
  int64_t trace_dispatches() {
    return m_bounded ? counts().trace.dispatches
                     : static_cast<int64_t>(m_cap.trace.dispatches.size());
  }
  // Trace dispatch k of a visit (for_each_joined), its variant (index into model().variants) and
  // its phase: the loaded ones, or in a bounded context the one being visited.
  const Dispatch& dispatch(size_t k) const {
    return m_bounded ? m_current.dispatch : m_cap.trace.dispatches[k];
  }
  int variant_of(size_t k) const { return m_bounded ? m_current.variant : m_model.variant_of[k]; }
  Phase phase_of(size_t k) const { return m_bounded ? m_current.phase : m_model.phase_of[k]; }
  // Reads of joined counters so far that held every dispatch's samples at once (joined()).
  int64_t whole_joins_loaded() const { return m_whole_loads; }

 private:
  Table top(const ViewOptions& o);
  Table families(const ViewOptions& o);
  Table variants(const ViewOptions& o);
  Table phases(const ViewOptions& o);
  Table structure(const ViewOptions& o);
  Table claims(const ViewOptions& o);
  Table windows(const ViewOptions& o);
  Table explain_view(const ViewOptions& o);
  Table counters(const ViewOptions& o);
  Table metrics(const ViewOptions& o, bool roofline);
  Table metric_sets(const ViewOptions& o);
  Table passes(const ViewOptions& o);
  Table samples(const ViewOptions& o);
  Table ranks(const ViewOptions& o);
  Table samples_by_family(const ViewOptions& o);
  Table base_table(const std::string& title) const;
  bool keep(size_t dispatch_index, const ViewOptions& o) const;
  // Each trace dispatch `o` keeps (--family, --phase) with its index into m_model.variants: the
  // loaded ones, or, in a bounded context, read from the database one at a time.
  void for_each_kept(const ViewOptions& o, const std::function<void(const Dispatch&, int)>& f);
  // The phase of each trace dispatch, fed in (pid, Dispatch_Id) order (a bounded context).
  class PhaseCursor;
  QueryContext(store::CaptureDb& db, FamilyRules rules);  // bounded()'s
  void load_bounded(const RunTrace& rt, size_t memory_bytes);
  // The trace pass's main stream (pid, agent) and its dispatch count (a bounded context).
  struct MainStreamOf {
    int64_t pid = 0, agent = 0, dispatches = 0;
  };
  MainStreamOf main_stream_of(const RunTrace& rt);

  store::CaptureDb& m_db;
  Capture m_cap;
  FamilyRules m_rules;
  TraceModel m_model;
  std::optional<JoinedCounters> m_joined;
  std::optional<ComputedJoins> m_computed;
  JoinedCounters m_one;  // for_each_joined's one dispatch, its counter names kept across calls
  int64_t m_whole_loads = 0;
  std::optional<RunCounts> m_counts;
  const RunCounts& counts();  // the run's passes and dispatch counts, without loading rows
  std::vector<JoinSummary> join_summaries();
  std::optional<hw::Target> m_target;
  bool m_target_tried = false;
  bool m_use_unreliable = false;
  void add_join_notes(Table& t);
  // A bounded context: the trace pass's kernel_variants ids mapped to m_cap.trace.shapes, and
  // each shape's variant (VariantSums::variant_of_shape).
  bool m_bounded = false;
  StoredShapes m_shape_of;
  std::vector<int> m_variant_of_shape;
  struct Current {
    Dispatch dispatch;
    int variant = 0;
    Phase phase = Phase::other;
  } m_current;  // the dispatch a bounded context visits
  // for_each_joined of a bounded context: the trace's rows read again, each dispatch's phase and
  // variant set in m_current, its samples taken from the stored join's stream.
  bool for_each_joined_bounded(const std::function<bool(size_t)>& keep, const JoinedVisit& f);
  // Dispatch k's samples taken from `stream` into m_one, then f(k, m_one, 0).
  void visit_streamed(JoinedCounterStream& stream, size_t k, const Dispatch& d,
                      const JoinedVisit& f, bool& repeated);
};

// The views a bounded QueryContext serves, every one but `sql`: top, explain, phases, variants,
// families, structure, windows (they read the trace model's sums, or the dispatches once in order),
// the views of joined counters (roofline, metrics, metric_sets, counters, samples: they stream
// them), claims, passes and ranks (from the phase model, stored counts, rank by rank): every view
// `kprof report` and `kprof compare` read.
bool bounded_view(const std::string& name);

// `top` for the whole trace (no --family, --phase) without the trace model: one streamed pass
// over the trace pass's rows, memory independent of the trace's length. The same table as
// QueryContext::view("top") (a test holds them equal).
Table streamed_top(store::CaptureDb& db, const RunTrace& rt, const FamilyRules& rules,
                   size_t limit);

// `--sql`: any SELECT on the (read-only) connection; the analysis views (v_dispatches, ...) exist
// once a query has joined the run.
// One statement that only reads, stopped after `timeout` (`--timeout`, default 60 s): see
// core/store/user_query.hpp.
Table sql_table(store::CaptureDb& db, const std::string& select, bool simulated, int64_t run_id,
                std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace kprof::analysis
