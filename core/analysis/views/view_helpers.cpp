#include "core/analysis/views/view_helpers.hpp"

#include <set>

namespace kprof::analysis {

int64_t ordinal_in(const Capture& cap, int64_t pass_id) {
  for (const auto& p : cap.passes)
    if (p.id == pass_id) return p.ordinal;
  return pass_id;  // a test's hand-made capture without pass records
}

std::string passes_in(const Capture& cap, const GroupMetrics& g) {
  std::set<int64_t> all;
  for (auto id : g.flop_passes) all.insert(ordinal_in(cap, id));
  for (auto id : g.byte_passes) all.insert(ordinal_in(cap, id));
  std::string s;
  for (auto p : all) s += (s.empty() ? "" : "+") + std::to_string(p);
  if (all.size() > 1) s += " (mixed)";
  return s;
}

std::string dims(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

Cell reg(std::optional<int64_t> v) { return v ? Cell(*v) : Cell(); }

void apply_limit(Table& t, size_t limit) {
  if (limit && t.rows.size() > limit) {
    t.rows_omitted = t.rows.size() - limit;
    t.rows.resize(limit);
    for (auto& [column, texts] : t.brief)
      if (texts.size() > limit) texts.resize(limit);
  }
}

const Finding* finding_for(const PhaseModel& pm, Phase p) {
  std::optional<Topic> topic;
  if (p == Phase::prefill)
    topic = Topic::prefill;
  else if (p == Phase::decode)
    topic = Topic::decode;
  else if (p == Phase::step || p == Phase::irregular || p == Phase::partial)
    topic = Topic::steps;
  if (!topic) return nullptr;
  for (const auto& f : pm.findings)
    if (f.topic == *topic) return &f;
  return nullptr;
}

std::string phase_evidence(const PhaseModel& pm, Phase p) {
  if (const Finding* f = finding_for(pm, p)) return f->claim + ": " + f->evidence;
  if (p == Phase::unknown) return "in no step: set-up, warm-up or work outside the repeated steps";
  if (p == Phase::other) return "outside the main stream (another process or agent)";
  return "";
}

const char* const k_no_joined_counters =
    "no joined counter values: the run has no counter pass, none of its dispatches matched "
    "a trace dispatch, or its join failed the self-check (the passes view says which)";

// Whether the agent counts an event is not in the capture. In a real one
// (tests/data/captures/uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler/counters,
// gfx1201) FETCH_SIZE and GL2C_EA_RDREQ_128B_sum are 0 on all 22 dispatches of their passes,
// 1M-work-item cache eviction kernels among them, while SQ_WAVES_sum counts: so say what 0 may
// mean rather than print it as a finding.
std::optional<std::string> all_zero_note(const std::string& counter, int64_t pass_ordinal,
                                         int64_t n, double min, double max) {
  if (n < 2 || min != 0 || max != 0) return std::nullopt;
  return counter + " (pass " + std::to_string(pass_ordinal) + ") is 0 on all " + std::to_string(n) +
         " dispatches: either none of them did what it counts, or the agent does not count it "
         "(`rocprofv3 -L` on the node lists the counters it has)";
}

}  // namespace kprof::analysis
