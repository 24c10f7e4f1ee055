// The join mapping in the capture database: computed per counter pass (join.hpp), stored in the
// analysis tables, read back, and redone when a pass's dispatch count changed since or a pass was
// ingested again after the join.
#include <algorithm>
#include <functional>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/join/join.hpp"
#include "core/analysis/structure/phases.hpp"
#include "core/store/analysis_results.hpp"

namespace kprof::analysis {
namespace {

// Whether the stored mapping was made from the files `pass` holds now: `kprof ingest --replace`
// reloads a pass under the same id, and a re-run's capture often has as many dispatches (the same
// workload) but other dispatch ids, so equal counts do not make a stored join current. The pass's
// ingest_stats rows (pass_files_fingerprint) as they were at the join must still be there; no clock
// is compared, so a database copied between machines or a clock set back changes nothing.
bool same_files(store::CaptureDb& db, int64_t counter_pass_id, int64_t pass_id) {
  const auto files = store::join_files(db, counter_pass_id, pass_id);
  return files && *files == pass_files_fingerprint(db, pass_id);
}

}  // namespace

int64_t join_jump_bound(size_t step_period, int64_t trace_dispatches) {
  return step_period > 0 ? static_cast<int64_t>(step_period)
                         : std::max<int64_t>(64, trace_dispatches / 20);
}

bool joins_current(store::CaptureDb& db, const Capture& cap) {
  return joins_current(db, run_counts(cap));
}

bool pass_join_current(store::CaptureDb& db, const PassCount& counter, const PassCount& trace) {
  const auto j = store::read_join(db, counter.pass_id);
  if (!j || !j->proof || j->counter_dispatches != counter.dispatches ||
      j->trace_dispatches != trace.dispatches || j->trace_pass_id != trace.pass_id)
    return false;
  return same_files(db, counter.pass_id, counter.pass_id) &&
         same_files(db, counter.pass_id, trace.pass_id);
}

bool joins_current(store::CaptureDb& db, const RunCounts& counts) {
  for (const auto& c : counts.counters)
    if (!pass_join_current(db, c, counts.trace)) return false;
  return true;
}

namespace {

int64_t capture_jump_bound(const Capture& cap) {
  if (cap.counters.empty()) return 0;
  const PhaseModel pm = detect_phases(cap.trace, &cap.names);
  return analysis::join_jump_bound(pm.step_period,
                                   static_cast<int64_t>(cap.trace.dispatches.size()));
}

// A join's result as the store keeps it (analysis_join_passes and its proof).
store::StoredJoin stored_join_of(const PassCount& trace, const PassCount& c, const JoinResult& r) {
  store::StoredJoin j;
  j.counter_pass_id = c.pass_id;
  j.trace_pass_id = trace.pass_id;
  j.counter_dispatches = c.dispatches;
  j.trace_dispatches = trace.dispatches;
  j.trace_considered = static_cast<int64_t>(r.trace_considered);
  j.matched = static_cast<int64_t>(r.matches.size());
  j.matched_share = r.matched_share();
  j.filtered = r.filtered;
  j.streams = static_cast<int64_t>(r.streams.size());
  j.unmatched_counter = static_cast<int64_t>(r.unmatched_counter.size());
  j.unmatched_trace = static_cast<int64_t>(r.unmatched_trace.size());
  j.proof = store::JoinProof{r.method,
                             r.monotone,
                             r.reliable(),
                             r.jump_bound,
                             r.jumps,
                             r.max_jump,
                             static_cast<int64_t>(r.offset_streams),
                             r.offset};
  return j;
}

// What the views show of counter pass `c`'s join, from its stored form.
JoinSummary summary_of(const store::StoredJoin& j, const PassCount& c) {
  JoinSummary s;
  s.counter_pass_id = c.pass_id;
  s.ordinal = c.ordinal;
  s.trace_pass_id = j.trace_pass_id;
  s.counter_dispatches = j.counter_dispatches;
  s.trace_considered = j.trace_considered;
  s.matched = j.matched;
  s.matched_share = j.matched_share;
  s.filtered = j.filtered;
  s.streams = j.streams;
  s.unmatched_counter = j.unmatched_counter;
  s.unmatched_trace = j.unmatched_trace;
  if (const auto& p = j.proof) {
    s.method = p->method;
    s.monotone = p->monotone;
    s.jump_bound = p->jump_bound;
    s.jumps = p->jumps;
    s.max_jump = p->max_jump;
    s.reliable = p->reliable;
    s.offset_streams = p->offset_streams;
    s.offset = p->id_offset;
  }
  return s;
}

JoinSummary summarize(const PassCount& trace, const PassCount& c, const JoinResult& r) {
  JoinSummary s = summary_of(stored_join_of(trace, c, r), c);
  s.computed_now = true;
  return s;
}

// Replaces the stored mapping of one counter pass (the caller holds the transaction).
void store_join(store::CaptureDb& db, const PassCount& trace, const PassCount& c,
                const JoinResult& r) {
  store::JoinWriter w(db, c.pass_id);
  for (const auto& m : r.matches)
    w.pair({m.counter.pid, m.counter.dispatch_id}, trace.pass_id,
           {m.trace.pid, m.trace.dispatch_id});
  for (const auto& d : r.unmatched_counter) w.unmatched_counter({d.pid, d.dispatch_id});
  for (const auto& d : r.unmatched_trace) w.unmatched_trace({d.pid, d.dispatch_id});
  w.finish(stored_join_of(trace, c, r),
           {{c.pass_id, pass_files_fingerprint(db, c.pass_id)},
            {trace.pass_id, pass_files_fingerprint(db, trace.pass_id)}});
}

// Runs `write` in one transaction if the write lock is free right now (store::try_write_now).
bool try_write_joins(store::CaptureDb& db, const std::function<void()>& write) {
  return store::try_write_now(db, [&] {
    write();
    return true;
  });
}

}  // namespace

std::vector<JoinSummary> ensure_joins(store::CaptureDb& db, const Capture& cap) {
  const int64_t jump_bound = capture_jump_bound(cap);
  // The stale passes are joined first (reads only); then the analysis tables and every new
  // mapping are written in one transaction: a failure or a kill leaves the joins as they were.
  const RunCounts counts = run_counts(cap);
  std::vector<std::pair<PassCount, JoinResult>> stale;
  for (size_t i = 0; i < cap.counters.size(); ++i) {
    const PassCount& c = counts.counters[i];
    if (pass_join_current(db, c, counts.trace) &&
        store::dispatch_count(db, c.pass_id) == c.dispatches)
      continue;
    stale.emplace_back(c, join_pass(cap.trace, cap.counters[i], jump_bound));
  }
  {
    store::WriteTransaction tx(db);
    for (const auto& [c, r] : stale) store_join(db, counts.trace, c, r);
    tx.commit();
  }
  return read_joins(db, cap);
}

ComputedJoins compute_joins(const Capture& cap) {
  ComputedJoins out;
  const int64_t jump_bound = capture_jump_bound(cap);
  const RunCounts counts = run_counts(cap);
  for (size_t i = 0; i < cap.counters.size(); ++i) {
    JoinResult r = join_pass(cap.trace, cap.counters[i], jump_bound);
    out.summaries.push_back(summarize(counts.trace, counts.counters[i], r));
    out.results.emplace(cap.counters[i].pass_id, std::move(r));
  }
  return out;
}

bool try_store_joins(store::CaptureDb& db, const Capture& cap, const ComputedJoins& joins) {
  const RunCounts counts = run_counts(cap);
  return try_write_joins(db, [&] {
    for (const auto& c : counts.counters) {
      auto it = joins.results.find(c.pass_id);
      if (it != joins.results.end()) store_join(db, counts.trace, c, it->second);
    }
  });
}

std::optional<std::vector<JoinSummary>> try_join_stored(store::CaptureDb& db,
                                                        const RunCounts& counts, int64_t jump_bound,
                                                        size_t memory_bytes) {
  // Joined first with reads only (the results spill past memory_bytes), then stored in one
  // transaction, as ensure_joins does: the write lock is held for the inserts, not the alignment.
  NameTable names;
  const auto trace = stored_join_input(db, counts.trace, names);
  std::vector<std::pair<PassCount, JoinResult>> stale;
  std::vector<JoinSummary> out;
  for (const auto& c : counts.counters) {
    if (pass_join_current(db, c, counts.trace)) continue;
    JoinResult r = join_pass(*trace, *stored_join_input(db, c, names), jump_bound, memory_bytes);
    out.push_back(summarize(counts.trace, c, r));
    stale.emplace_back(c, std::move(r));
  }
  if (!try_write_joins(db, [&] {
        for (const auto& [c, r] : stale) store_join(db, counts.trace, c, r);
      }))
    return std::nullopt;
  return out;
}

std::vector<JoinSummary> read_joins(store::CaptureDb& db, const Capture& cap) {
  return read_joins(db, run_counts(cap));
}

std::vector<JoinSummary> read_joins(store::CaptureDb& db, const RunCounts& counts) {
  std::vector<JoinSummary> out;
  for (const auto& c : counts.counters) {
    const auto j = store::read_join(db, c.pass_id);
    if (!j) continue;
    out.push_back(summary_of(*j, c));
  }
  return out;
}

std::string join_check_text(const JoinSummary& j) {
  std::string out;
  if (j.method == store::JoinMethod::by_id)
    out = "matched by Dispatch_Id: the trace's own invocation (same ids, pids and times)";
  else if (j.method == store::JoinMethod::offset)
    out = "matched exactly by a constant Dispatch_Id offset (trace id = counter id " +
          std::string(j.offset < 0 ? "- " : "+ ") +
          std::to_string(j.offset < 0 ? -j.offset : j.offset) +
          "): every matched pair has the same kernel, grid and workgroup";
  else
    out =
        "aligned by launch order: another run of the application (no constant Dispatch_Id "
        "offset matches it exactly)";
  if (!j.reliable) {
    out += "; UNRELIABLE: ";
    if (!j.monotone) out += "matches leave program order; ";
    if (j.jumps > 0)
      out += std::to_string(j.jumps) + " match(es) skip more than " + std::to_string(j.jump_bound) +
             " trace dispatches beyond the counter pass's own gap, up to " +
             std::to_string(j.max_jump) +
             " (the pairs before and after disagree on where the counter pass is in the trace): " +
             "its counters are not used for metrics (--force-join uses them)";
  }
  return out;
}

}  // namespace kprof::analysis
