#include "core/report/perfetto_outline.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/analysis/views/session.hpp"
#include "core/base/error.hpp"
#include "core/base/spill_vector.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;
using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// What the export keeps of an outline, stored or just computed.
void apply(an::RunOutline ro, PerfettoOutline& o) {
  o.trace_pass_id = ro.trace.pass_id;
  o.arch = std::move(ro.arch);
  o.product = std::move(ro.product);
  o.simulated = o.run.simulated;
  o.base_ns = ro.trace.base_ns;
  o.trace_window = static_cast<size_t>(ro.trace.reorder_window);
  for (const auto& c : ro.counters)
    o.counter_passes.push_back(
        {c.pass_id, c.ordinal, c.base_ns, static_cast<size_t>(c.reorder_window)});
  o.main_pid = ro.main_pid;
  o.main_agent = ro.main_agent;
  o.segments = std::move(ro.segments);
}

// The counters joined onto trace dispatches, as analysis::QuerySession::open joins them (computed
// and stored in `rw` when missing or stale). Once the mapping is stored (now or before), they are
// streamed from it while the slices are written, as every later export does: about 190 bytes per
// dispatch of samples and keys are never held (export_bench --counters 1 at 1M: the first export
// held 345.9 MiB with them in memory). Only a join that could not be stored (a read-only file,
// another writer) keeps the counters of the joined dispatches in memory.
void outline_counters(store::CaptureDb& db, store::CaptureDb* rw, const an::Capture& cap,
                      PerfettoOutline& o) {
  if (cap.counters.empty()) return;
  if (an::joins_current(db, cap)) {
    o.stream_joined = true;
    return;
  }
  const an::ComputedJoins computed = an::compute_joins(cap);
  o.joins_computed = computed.summaries;
  if (!rw || !an::try_store_joins(*rw, cap, computed)) {
    o.notes.push_back("the counter join was computed for this export only and not stored");
  } else if (an::joins_current(db, o.counts)) {
    o.stream_joined = true;
    return;
  }
  an::JoinedCounters all = an::load_joined_counters(db, cap, computed);
  o.joined.counters = std::move(all.counters);
  o.joined.excluded_passes = std::move(all.excluded_passes);
  o.joined.repeated_launches = all.repeated_launches;
  // The loader returns the trace in (pid, Dispatch_Id) order, so the keys come out sorted.
  for (size_t k = 0; k < all.by_dispatch.size(); ++k) {
    if (all.by_dispatch[k].empty()) continue;
    const auto& d = cap.trace.dispatches[k];
    o.joined_keys.emplace_back(d.pid, d.dispatch_id);
    o.joined.by_dispatch.push_back(std::move(all.by_dispatch[k]));
  }
  if (!std::is_sorted(o.joined_keys.begin(), o.joined_keys.end()))
    throw Error::runtime("the trace pass was not loaded in (pid, Dispatch_Id) order",
                         "a kprof bug: analysis::load_capture changed its order");
}

// Loads the capture, outlines it and joins its counters; stores both when it can.
void outline_from_capture(store::CaptureDb& db, std::optional<int64_t> run_id, PerfettoOutline& o) {
  an::Capture cap = an::load_capture(db, run_id);
  o.run = cap.run;
  o.counts = an::run_counts(cap);
  std::optional<store::CaptureDb> rw;
  if (an::writable_database(db.path())) rw.emplace(db.path(), store::OpenMode::read_write);
  outline_counters(db, rw ? &*rw : nullptr, cap, o);
  const an::PhaseModel pm = an::detect_phases(cap.trace, &cap.names);
  o.structure_claims = an::claims_of(pm, {});
  an::RunOutline ro = an::compute_outline(cap, pm);
  // Stored only once the join is: a stored outline is used only with a current join.
  if (!rw || !an::joins_current(*rw, o.counts) || !an::try_store_outline(*rw, ro))
    o.notes.push_back(
        "the run's phases and steps were found for this export only and not stored (the file is "
        "read-only, or another kprof is writing it), so the next export loads the capture again");
  apply(std::move(ro), o);
}  // the capture is freed here

// Without the capture: the phases and steps and each pass's clock read from the
// database in bounded memory, and stored when `rw` (the file is writable) and no other kprof
// writes. With `join_first`, the counter passes whose join is missing or stale are joined from the
// database before and their mapping stored (the outline's step is the join's jump bound), so the
// slices stream the counters from the stored mapping as every later export does; false, having
// stored no join, when that cannot be done (no `rw`, or another kprof holds the write lock).
bool outline_bounded(store::CaptureDb& db, store::CaptureDb* rw, const an::RunTrace& rt,
                     an::RunCounts counts, bool join_first, PerfettoOutline& o) {
  const size_t memory = spill_memory_bytes(size_t{4} << 20);
  size_t step_period = 0;
  an::RunOutline ro =
      an::compute_outline_bounded(db, rt, counts, memory, &step_period, &o.structure_claims);
  if (join_first) {
    const auto joined =
        rw ? an::try_join_stored(*rw, counts,
                                 an::join_jump_bound(step_period, counts.trace.dispatches), memory)
           : std::nullopt;
    if (!joined || !an::joins_current(db, counts)) return false;
    o.joins_computed = *joined;
  }
  o.run = rt.run;
  o.stream_joined = !counts.counters.empty();
  o.counts = std::move(counts);
  if (!rw || !an::try_store_outline(*rw, ro))
    o.notes.push_back(
        "the run's phases and steps were found for this export only and not stored (the file is "
        "read-only, or another kprof is writing it), so the next export finds them again");
  apply(std::move(ro), o);
  return true;
}

}  // namespace

void for_each_enclosing(const PerfettoOutline& o,
                        const std::function<void(const EnclosingSlice&)>& f) {
  const auto& segs = o.segments;
  for (size_t i = 0; i < segs.size();) {
    size_t j = i;
    while (j < segs.size() && segs[j].phase == segs[i].phase) ++j;
    const std::string phase(an::to_string(segs[i].phase));
    const int64_t start = segs[i].start_ns, end = segs[j - 1].end_ns;
    f({phase, "phase", start - o.base_ns, std::max<int64_t>(end - start, 0),
       dump(json{{"steps", j - i}, {"simulated", o.simulated}})});
    for (size_t k = i; k < j; ++k) {
      const auto& s = segs[k];
      if (s.step == 0) continue;
      f({phase + " step " + std::to_string(s.step), "step", s.start_ns - o.base_ns,
         std::max<int64_t>(s.end_ns - s.start_ns, 0),
         dump(json{{"step", s.step}, {"dispatches", s.dispatches}, {"window", s.window}})});
    }
    i = j;
  }
}

const an::OutlineSegment* PerfettoOutline::segment_of(int64_t pid, int64_t agent,
                                                      int64_t dispatch_id) const {
  if (pid != main_pid || agent != main_agent || segments.empty()) return nullptr;
  auto it =
      std::upper_bound(segments.begin(), segments.end(), dispatch_id,
                       [](int64_t id, const an::OutlineSegment& s) { return id < s.first_id; });
  return it == segments.begin() ? nullptr : &*(it - 1);
}

int64_t PerfettoOutline::joined_index(int64_t pid, int64_t dispatch_id) const {
  const std::pair<int64_t, int64_t> key{pid, dispatch_id};
  auto it = std::lower_bound(joined_keys.begin(), joined_keys.end(), key);
  return it != joined_keys.end() && *it == key ? it - joined_keys.begin() : -1;
}

PerfettoOutline outline_run(store::CaptureDb& db, std::optional<int64_t> run_id, bool use_stored) {
  PerfettoOutline o;
  const an::RunTrace rt = an::find_run_trace(db, run_id);
  an::RunCounts counts = an::run_counts(db, rt);
  if (counts.trace.dispatches == 0) an::no_dispatches(db, rt.run, rt.trace.id);
  std::optional<an::RunOutline> stored;
  if (use_stored && an::joins_current(db, counts)) stored = an::read_outline(db, counts);
  if (stored) {
    o.run = rt.run;
    o.from_store = true;
    o.stream_joined = !counts.counters.empty();
    // The stored outline holds the segments, not the phase model its claims come from: the
    // detection runs again, in the same bounded memory as the first export (one read of the
    // trace's rows, as the slices take anyway), for the claims alone.
    (void)an::compute_outline_bounded(db, rt, counts, spill_memory_bytes(size_t{4} << 20), nullptr,
                                      &o.structure_claims);
    o.counts = std::move(counts);
    apply(std::move(*stored), o);
  } else {
    // Joining first when a counter pass's join is missing or stale: from the database when the
    // join can be stored, else (a read-only file, another writer) from the loaded capture, whose
    // joined counters the export then holds.
    const bool join_first = !counts.counters.empty() && !an::joins_current(db, counts);
    std::optional<store::CaptureDb> rw;
    if (an::writable_database(db.path())) rw.emplace(db.path(), store::OpenMode::read_write);
    if (!outline_bounded(db, rw ? &*rw : nullptr, rt, std::move(counts), join_first, o)) {
      rw.reset();
      outline_from_capture(db, run_id, o);
    }
  }
  const an::RunbookAnalysis from_runbook = an::runbook_analysis(db, o.run);
  if (!from_runbook.not_used_because.empty())
    o.notes.push_back("the run's runbook does not load here, so its family rules are not used: " +
                      from_runbook.not_used_because);
  o.rules = an::FamilyRules::load_default();
  o.rules.prepend(from_runbook.rules);
  if (!o.arch.empty()) {
    try {
      o.target = hw::Target::load_arch(o.arch);
    } catch (const Error&) {
      // No hardware file for this arch: counters are written, derived metrics are not.
    }
  }
  return o;
}

}  // namespace kprof::report
