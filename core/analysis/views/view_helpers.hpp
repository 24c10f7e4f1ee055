// Helpers shared by the view builders (the *_view.cpp files of QueryContext): how a pass, a
// launch shape and a missing register count are written, and --limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/metrics/metrics.hpp"
#include "core/analysis/structure/phases.hpp"
#include "core/analysis/views/table.hpp"

namespace kprof::analysis {

// One pass numbering everywhere: the ordinal (0 = trace, 1.. = counter passes in plan order), as
// `kprof plan`, `status` and the progress lines print it; never the database's row id.
int64_t ordinal_in(const Capture& cap, int64_t pass_id);

// "2" or "2+3 (mixed)": the counter passes a row's FLOPs and bytes came from.
std::string passes_in(const Capture& cap, const GroupMetrics& g);

std::string dims(const int64_t v[3]);  // "1024x1x1"

Cell reg(std::optional<int64_t> v);  // a register count; empty when the trace did not give it

void apply_limit(Table& t, size_t limit);

// The finding a phase's steps rest on (prefill, decode; the repeated steps otherwise), or nullptr.
const Finding* finding_for(const PhaseModel& pm, Phase p);
// What a phase rests on, as one text: the finding's claim and evidence, or why its dispatches are
// in no step ("" when there is nothing to say).
std::string phase_evidence(const PhaseModel& pm, Phase p);

// The note of a counter view with no joined value.
extern const char* const k_no_joined_counters;

// The note on a counter that reads 0 on every one of its `n` joined dispatches (none when n < 2
// or any value is not 0): a plain 0 is no evidence that nothing was counted.
std::optional<std::string> all_zero_note(const std::string& counter, int64_t pass_ordinal,
                                         int64_t n, double min, double max);

}  // namespace kprof::analysis
