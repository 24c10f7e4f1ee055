#include "core/analysis/session.hpp"

#include <sstream>

#include "core/analysis/run_outline.hpp"
#include "core/analysis/streamed_views.hpp"
#include "core/analysis/view_helpers.hpp"
#include "core/base/error.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::analysis {

RunbookAnalysis runbook_analysis(const store::RunInfo& run) {
  RunbookAnalysis out;
  if (run.runbook_text.empty()) return out;
  try {
    const auto rb = runbook::parse_runbook(run.runbook_text, run.runbook_path);
    for (const auto& r : rb.analysis.families.value)
      out.rules.push_back(
          FamilyRule{FamilyRule::Kind::family, "", r.match.value, r.family.value, r.match.pos});
    out.layers = rb.analysis.layers.value;
    out.output_tokens = rb.analysis.output_tokens.value;
    for (const auto& m : rb.passes.counters.metric_sets.value) out.metric_sets.push_back(m.value);
  } catch (const Error& e) {
    // The runbook was valid when the run was made; on another machine its paths may not be.
    out.not_used_because = e.diagnostics().front().line();
  }
  return out;
}

namespace {

// The family rules of a run (its runbook's first), and the note when its runbook does not load.
FamilyRules run_rules(const RunbookAnalysis& from_runbook, std::vector<std::string>& notes) {
  if (!from_runbook.not_used_because.empty())
    notes.push_back(
        "the run's runbook does not load here, so its family rules and hints are not used: " +
        from_runbook.not_used_because);
  FamilyRules rules = FamilyRules::load_default();
  rules.prepend(from_runbook.rules);
  return rules;
}

// `top` and `counters` of a run whose trace pass holds no dispatches, or that has no trace pass,
// from the rows it does hold (streamed_views.hpp); nullopt when it has a trace to use.
std::optional<Table> untraced_view(store::CaptureDb& db, const SessionOptions& options,
                                   const std::string& view, const ViewOptions& o,
                                   std::vector<std::string>& notes) {
  const auto run = options.run_id ? db.find_run(*options.run_id) : db.find_last_run();
  if (!run) return std::nullopt;  // find_run_trace says so
  const auto passes = db.list_passes(run->id);
  const store::PassInfo* trace = nullptr;
  for (const auto& p : passes)
    if (p.kind == store::PassKind::trace && (!trace || p.ordinal < trace->ordinal)) trace = &p;
  if (trace && db.has_dispatches(trace->id)) return std::nullopt;
  if (view == "counters") return untraced_counters(db, *run, passes, o.limit);
  if (view != "top" || !trace) return std::nullopt;
  return stats_top(db, *run, *trace, run_rules(runbook_analysis(*run), notes), o.limit);
}

}  // namespace

std::optional<Table> streamed_view(const std::filesystem::path& db, const SessionOptions& options,
                                   const std::string& view, const ViewOptions& o,
                                   std::vector<std::string>& notes) {
  if ((view != "top" && view != "families" && view != "counters") || !o.family.empty() || o.phase)
    return std::nullopt;
  store::CaptureDb cdb(db, store::OpenMode::read_only);
  if (view != "families")
    if (auto t = untraced_view(cdb, options, view, o, notes)) return t;
  const RunTrace rt = find_run_trace(cdb, options.run_id);
  if (view == "counters") {
    // Only from a stored join that is current; else the session computes one on the model.
    auto t = streamed_counters(cdb, rt, options.force_join);
    if (!t) return std::nullopt;
    run_rules(runbook_analysis(rt.run), notes);  // the session's note when the runbook fails
    apply_limit(*t, o.limit);
    return t;
  }
  const FamilyRules rules = run_rules(runbook_analysis(rt.run), notes);
  if (view == "top") return streamed_top(cdb, rt, rules, o.limit);
  Table t = streamed_families(cdb, rt, rules);
  apply_limit(t, o.limit);
  return t;
}

QuerySession QuerySession::open(const std::filesystem::path& db, const SessionOptions& options) {
  QuerySession s;
  // The session reads through a read-only connection (store::OpenMode::read_only: PRAGMA
  // query_only, so no statement of it can change the file) and never waits for a writer: in WAL
  // mode a reader sees the last commit while `kprof run` or `kprof ingest` writes
  // (https://sqlite.org/wal.html, "readers do not block writers and a writer does not block
  // readers").
  s.m_db = std::make_unique<store::CaptureDb>(db, store::OpenMode::read_only);
  Capture cap = load_capture(*s.m_db, options.run_id);
  std::optional<ComputedJoins> computed;
  if (!joins_current(*s.m_db, cap)) {
    // The join mapping is computed here, in memory, from the snapshot just read, and used by this
    // session whether or not it can be stored. It is stored (a cache, also read by --sql users
    // through v_joined_counters) only when the write lock is free at this moment; while another
    // process writes, the query neither waits for it nor delays it.
    computed = compute_joins(cap);
    s.m_joins = computed->summaries;
    bool stored = false;
    if (writable_database(db)) {
      store::CaptureDb rw(db, store::OpenMode::read_write);
      stored = try_store_joins(rw, cap, *computed);
    }
    if (!stored)
      s.m_notes.push_back("the counter join was computed for this query only and not stored: " +
                          std::string(writable_database(db)
                                          ? "another process (kprof run or ingest) is writing the "
                                            "database; a later query stores it"
                                          : "the database is not writable by this user"));
  }
  const RunbookAnalysis from_runbook = runbook_analysis(cap.run);
  s.m_hints.layers = options.layers ? options.layers : from_runbook.layers;
  s.m_hints.output_tokens =
      options.output_tokens ? options.output_tokens : from_runbook.output_tokens;
  s.m_metric_sets = from_runbook.metric_sets;
  FamilyRules rules = run_rules(from_runbook, s.m_notes);
  s.m_query = std::make_unique<QueryContext>(*s.m_db, std::move(cap), std::move(rules));
  s.m_query->use_unreliable_joins(options.force_join);
  if (computed) s.m_query->use_computed_joins(std::move(*computed));
  // The phases were detected anyway: kept for `kprof export --perfetto`, whose later
  // runs then never load the capture.
  keep_outline(db, *s.m_db, s.m_query->capture(), s.m_query->model().phases);
  return s;
}

Table QuerySession::view(const std::string& name, ViewOptions options) {
  if (!options.hints.layers) options.hints.layers = m_hints.layers;
  if (!options.hints.output_tokens) options.hints.output_tokens = m_hints.output_tokens;
  if (options.metric_sets.empty()) options.metric_sets = m_metric_sets;
  return m_query->view(name, options);
}

std::string join_note(const JoinSummary& j) {
  std::ostringstream o;
  o << "joined pass " << j.ordinal << " to the trace: " << j.matched << " of "
    << j.counter_dispatches << " dispatches matched ("
    << static_cast<double>(static_cast<int64_t>(j.matched_share * 10000)) / 100 << "%)"
    << (j.filtered ? ", kernel-filtered pass" : "") << "; " << join_check_text(j);
  return o.str();
}

}  // namespace kprof::analysis
