#include "core/analysis/view_helpers.hpp"

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

Cell reg(int64_t v) { return v < 0 ? Cell() : Cell(v); }

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

}  // namespace kprof::analysis
