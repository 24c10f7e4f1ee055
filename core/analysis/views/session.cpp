#include "core/analysis/views/session.hpp"

#include <algorithm>
#include <sstream>

#include "core/analysis/outline/run_outline.hpp"
#include "core/analysis/views/streamed_views.hpp"
#include "core/analysis/views/view_helpers.hpp"
#include "core/base/error.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/runbook_hints.hpp"

namespace kprof::analysis {

const char* const k_join_not_stored =
    "the counter join was computed for this query only: a query never writes the database "
    "(`kprof resume DB` stores it for a finished run, `kprof ingest DB FILES...` when it loads the "
    "passes)";

namespace {

RunbookAnalysis from_hints(const store::RunbookHints& f) {
  RunbookAnalysis out;
  for (const auto& r : f.family_rules)
    out.rules.push_back(FamilyRule{FamilyRule::Kind::family, "", r.match, r.family, r.pos});
  out.layers = f.layers;
  out.output_tokens = f.output_tokens;
  out.metric_sets = f.metric_sets;
  return out;
}

}  // namespace

RunbookAnalysis runbook_analysis(store::CaptureDb& db, const store::RunInfo& run) {
  if (const auto hints = store::runbook_hints(db, run.id)) return from_hints(*hints);
  // A run recorded before the hints were stored: its runbook text, parsed here.
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

// What a streamed view is given: the read-only connection and the query's options.
struct Streamed {
  store::CaptureDb& db;
  const SessionOptions& options;
  const ViewOptions& o;
  std::vector<std::string>& notes;
};

// The run a streamed view reads when its trace pass holds no dispatches (or it has none).
struct Untraced {
  const store::RunInfo& run;
  const std::vector<store::PassInfo>& passes;
  const store::PassInfo* trace;  // nullptr: no trace pass
};

// A view computed without loading the capture: from the rows a run without trace dispatches
// holds (`untraced`, nullptr when the view needs a trace), and from the trace (`traced`); either
// returns nullopt to leave the view to a QuerySession.
struct StreamedEntry {
  const char* name;
  std::optional<Table> (*untraced)(Streamed& s, const Untraced& u);
  std::optional<Table> (*traced)(Streamed& s, const RunTrace& rt);
};

const std::vector<StreamedEntry>& streamed_registry() {
  static const std::vector<StreamedEntry> entries = {
      {"top",
       [](Streamed& s, const Untraced& u) -> std::optional<Table> {
         if (!u.trace) return std::nullopt;
         return stats_top(s.db, u.run, *u.trace, run_rules(runbook_analysis(s.db, u.run), s.notes),
                          s.o.limit);
       },
       [](Streamed& s, const RunTrace& rt) -> std::optional<Table> {
         return streamed_top(s.db, rt, run_rules(runbook_analysis(s.db, rt.run), s.notes),
                             s.o.limit);
       }},
      {"families", nullptr,
       [](Streamed& s, const RunTrace& rt) -> std::optional<Table> {
         Table t = streamed_families(s.db, rt, run_rules(runbook_analysis(s.db, rt.run), s.notes));
         apply_limit(t, s.o.limit);
         return t;
       }},
      {"ranks", nullptr,
       [](Streamed& s, const RunTrace& rt) -> std::optional<Table> {
         return ranks_table(s.db, rt, run_rules(runbook_analysis(s.db, rt.run), s.notes),
                            s.o.structured);
       }},
      {"counters",
       [](Streamed& s, const Untraced& u) -> std::optional<Table> {
         return untraced_counters(s.db, u.run, u.passes, s.o.limit);
       },
       [](Streamed& s, const RunTrace& rt) -> std::optional<Table> {
         // Only from a stored join that is current; else the session computes one on the model.
         auto t = streamed_counters(s.db, rt, s.options.force_join);
         if (!t) return std::nullopt;
         run_rules(runbook_analysis(s.db, rt.run),
                   s.notes);  // the session's note when the runbook fails
         apply_limit(*t, s.o.limit);
         return t;
       }},
  };
  return entries;
}

// The view of a run whose trace pass holds no dispatches, or that has no trace pass, from the rows
// it does hold (streamed_views.hpp); nullopt when it has a trace to use.
std::optional<Table> untraced_view(Streamed& s, const StreamedEntry& view) {
  const auto run = s.options.run_id ? s.db.find_run(*s.options.run_id) : s.db.find_last_run();
  if (!run) return std::nullopt;  // find_run_trace says so
  const auto passes = s.db.list_passes(run->id);
  const store::PassInfo* trace = nullptr;
  for (const auto& p : passes)
    if (p.kind == store::PassKind::trace && (!trace || p.ordinal < trace->ordinal)) trace = &p;
  if (trace && s.db.has_dispatches(trace->id)) return std::nullopt;
  return view.untraced(s, {*run, passes, trace});
}

}  // namespace

std::optional<Table> streamed_view(const std::filesystem::path& db, const SessionOptions& options,
                                   const std::string& view, const ViewOptions& o,
                                   std::vector<std::string>& notes) {
  const auto& views = streamed_registry();
  const auto entry = std::find_if(views.begin(), views.end(),
                                  [&](const StreamedEntry& e) { return view == e.name; });
  if (entry == views.end() || !o.family.empty() || o.phase) return std::nullopt;
  store::CaptureDb cdb(db, store::OpenMode::read_only);
  Streamed s{cdb, options, o, notes};
  if (entry->untraced)
    if (auto t = untraced_view(s, *entry)) return t;
  return entry->traced(s, find_run_trace(cdb, options.run_id));
}

QuerySession QuerySession::open(const std::filesystem::path& db, const SessionOptions& options) {
  QuerySession s;
  // The session reads through a read-only connection (store::OpenMode::read_only: PRAGMA
  // query_only, so no statement of it can change the file) and never waits for a writer: in WAL
  // mode a reader sees the last commit while `kprof run` or `kprof ingest` writes
  // (https://sqlite.org/wal.html, "readers do not block writers and a writer does not block
  // readers").
  s.m_db = std::make_unique<store::CaptureDb>(db, store::OpenMode::read_only);
  if (options.bounded) {
    const RunTrace rt = find_run_trace(*s.m_db, options.run_id);
    if (s.m_db->has_dispatches(rt.trace.id) && joins_current(*s.m_db, run_counts(*s.m_db, rt))) {
      FamilyRules rules = s.use_runbook(rt.run, options);
      s.m_query =
          QueryContext::bounded(*s.m_db, rt, std::move(rules), spill_memory_bytes(size_t{4} << 20));
      s.m_query->use_unreliable_joins(options.force_join);
      return s;
    }
  }
  // The counter passes' rows stay in the database while their stored join is current: views read
  // the joined counters through it (QueryContext::for_each_joined), and explain or phases none.
  Capture cap = load_capture(*s.m_db, options.run_id, false);
  std::optional<ComputedJoins> computed;
  if (!joins_current(*s.m_db, run_counts(*s.m_db, run_trace_of(cap)))) {
    load_counter_rows(*s.m_db, cap);
    // The join mapping is computed here, in memory, from the snapshot just read, and used by this
    // session only: a query never writes the database. The commands that store it say so
    // (`kprof ingest` after loading, `kprof export --perfetto`; store_results.hpp).
    computed = compute_joins(cap);
    s.m_joins = computed->summaries;
    s.m_notes.push_back(k_join_not_stored);
  }
  FamilyRules rules = s.use_runbook(cap.run, options);
  s.m_query = std::make_unique<QueryContext>(*s.m_db, std::move(cap), std::move(rules));
  s.m_query->use_unreliable_joins(options.force_join);
  if (computed) s.m_query->use_computed_joins(std::move(*computed));
  return s;
}

FamilyRules QuerySession::use_runbook(const store::RunInfo& run, const SessionOptions& options) {
  const RunbookAnalysis from_runbook = runbook_analysis(*m_db, run);
  m_hints.layers = options.layers ? options.layers : from_runbook.layers;
  m_hints.output_tokens =
      options.output_tokens ? options.output_tokens : from_runbook.output_tokens;
  m_metric_sets = from_runbook.metric_sets;
  return run_rules(from_runbook, m_notes);
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
