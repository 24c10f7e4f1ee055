#include "core/report/perfetto_outline.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "core/analysis/session.hpp"
#include "core/base/error.hpp"
#include "core/report/start_order.hpp"

namespace kprof::report {
namespace {

namespace an = kprof::analysis;
using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool is_step(an::Phase p) {
  return p == an::Phase::prefill || p == an::Phase::decode || p == an::Phase::step ||
         p == an::Phase::irregular;
}

// The phases (runs of segments of one phase) and the steps inside them as enclosing slices, and
// each segment's first Dispatch_Id and step number for the dispatches streamed later.
void outline_steps(const an::PhaseModel& pm, bool simulated, PerfettoOutline& o) {
  auto step_end = [&](size_t i) {
    const auto& s = pm.steps[i];
    int64_t end = 0;
    for (size_t k = s.begin; k < s.end; ++k) end = std::max(end, pm.order[k]->end_ns);
    // Slices of one thread must nest: a step ends where the next begins when kernels overlap.
    if (i + 1 < pm.steps.size()) end = std::min(end, pm.order[pm.steps[i + 1].begin]->start_ns);
    return end;
  };
  o.main_pid = pm.main_pid;
  o.main_agent = pm.main_agent;
  int64_t step_no = 0;
  for (size_t i = 0; i < pm.steps.size();) {
    size_t j = i;
    while (j < pm.steps.size() && pm.steps[j].phase == pm.steps[i].phase) ++j;
    const std::string phase(an::to_string(pm.steps[i].phase));
    const int64_t start = pm.order[pm.steps[i].begin]->start_ns, end = step_end(j - 1);
    o.enclosing.push_back({phase, "phase", start - o.base_ns, std::max<int64_t>(end - start, 0),
                           dump(json{{"steps", j - i}, {"simulated", simulated}})});
    for (size_t k = i; k < j; ++k) {
      const auto& s = pm.steps[k];
      PerfettoOutline::Segment seg{pm.order[s.begin]->dispatch_id, s.phase, 0};
      if (is_step(s.phase)) {
        seg.step = ++step_no;
        const int64_t ss = pm.order[s.begin]->start_ns, se = step_end(k);
        o.enclosing.push_back(
            {phase + " step " + std::to_string(step_no), "step", ss - o.base_ns,
             std::max<int64_t>(se - ss, 0),
             dump(json{{"step", step_no}, {"dispatches", s.end - s.begin}, {"window", s.window}})});
      }
      o.segments.push_back(seg);
    }
    i = j;
  }
}

// The file and its folder are writable (SQLite needs both for the WAL and its index).
bool writable_file(const std::filesystem::path& db) {
  const std::filesystem::path dir = db.has_parent_path() ? db.parent_path() : ".";
  return ::access(db.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

// The counters joined onto trace dispatches, as analysis::QuerySession::open joins them (computed
// and stored when missing or stale), kept only for the dispatches that have some.
void outline_counters(store::CaptureDb& db, const an::Capture& cap, PerfettoOutline& o) {
  if (cap.counters.empty()) return;
  std::optional<an::ComputedJoins> computed;
  if (!an::joins_current(db, cap)) {
    computed = an::compute_joins(cap);
    o.joins_computed = computed->summaries;
    bool stored = false;
    if (writable_file(db.path())) {
      store::CaptureDb rw(db.path(), store::OpenMode::read_write);
      stored = an::try_store_joins(rw, cap, *computed);
    }
    if (!stored)
      o.notes.push_back("the counter join was computed for this export only and not stored");
  }
  an::JoinedCounters all =
      computed ? an::load_joined_counters(db, cap, *computed) : an::load_joined_counters(db, cap);
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

}  // namespace

const PerfettoOutline::Segment* PerfettoOutline::segment_of(int64_t pid, int64_t agent,
                                                            int64_t dispatch_id) const {
  if (pid != main_pid || agent != main_agent || segments.empty()) return nullptr;
  auto it = std::upper_bound(segments.begin(), segments.end(), dispatch_id,
                             [](int64_t id, const Segment& s) { return id < s.first_id; });
  return it == segments.begin() ? nullptr : &*(it - 1);
}

int64_t PerfettoOutline::joined_index(int64_t pid, int64_t dispatch_id) const {
  const std::pair<int64_t, int64_t> key{pid, dispatch_id};
  auto it = std::lower_bound(joined_keys.begin(), joined_keys.end(), key);
  return it != joined_keys.end() && *it == key ? it - joined_keys.begin() : -1;
}

PerfettoOutline outline_run(store::CaptureDb& db, std::optional<int64_t> run_id) {
  PerfettoOutline o;
  {
    an::Capture cap = an::load_capture(db, run_id);
    o.run = cap.run;
    o.trace_pass_id = cap.trace.pass_id;
    o.arch = cap.arch;
    o.product = cap.product;
    o.simulated = cap.run.simulated || cap.product.find("(simulated)") != std::string::npos;
    int64_t base = INT64_MAX;
    for (const auto& d : cap.trace.dispatches) base = std::min(base, d.start_ns);
    o.base_ns = base == INT64_MAX ? 0 : base;
    outline_steps(an::detect_phases(cap.trace, &cap.names), o.simulated, o);
    o.trace_window = reorder_window(cap.trace.dispatches);
    for (const auto& c : cap.counters) {
      int64_t cbase = INT64_MAX;
      for (const auto& d : c.dispatches) cbase = std::min(cbase, d.start_ns);
      o.counter_passes.push_back({c.pass_id, c.ordinal, cbase, reorder_window(c.dispatches)});
    }
    outline_counters(db, cap, o);
  }  // the capture is freed here
  const an::RunbookAnalysis from_runbook = an::runbook_analysis(o.run);
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
