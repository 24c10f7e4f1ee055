// Internals of phase detection (phases.hpp), shared by phases.cpp, periods.cpp, step_cuts.cpp,
// prefill.cpp, trailing_loops.cpp and phase_findings.cpp. Not part of the analysis API.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis::detail {

// Share of positions i in [lo, hi) with s[i] == s[i + p].
double match_rate(const SpillVector<uint32_t>& s, size_t p, size_t lo, size_t hi);
// Share of positions where [a, a + len) and [b, b + len) hold the same value.
double aligned_match(const SpillVector<uint32_t>& s, size_t a, size_t b, size_t len);
// Multiset overlap of two segments' values over the larger one: 1 same kernels, 0 disjoint.
// Order-free, so a step with one extra kernel still scores close to 1.
double multiset_similarity(const SpillVector<uint32_t>& s, size_t a0, size_t a1, size_t b0,
                           size_t b1);
std::string fmt_ns(double ns);  // "180 us", "1.25 ms"
std::string pct(double share);  // "98%"
inline std::string num(size_t n) { return std::to_string(n); }

template <class T>
T median_of(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}
// The value 40% of the way down from the largest: large when at least 40% of `v` is large. Used
// for the host gaps one period apart: one long stall cannot make an offset look like a boundary,
// and a step with an extra kernel (which shifts the later boundaries by one) cannot hide it.
int64_t upper_quantile(std::vector<int64_t> v);

// The main stream prepared for detection.
struct Detector {
  const MainStream& order;
  const PassData& pass;  // the pass of `order` (launch shapes)
  const NameTable* names_table = nullptr;
  SpillVector<uint32_t> names;         // kernel name id per dispatch
  SpillVector<uint32_t> ids_as_names;  // launch identity (name, grid, workgroup), interned
  // Host gap before each dispatch; -1 at a window's first dispatch. Computed from the times on
  // each read rather than stored: 8 bytes per dispatch at the detector's peak.
  struct Gaps {
    const MainStream* order = nullptr;
    std::vector<size_t> window_begins;  // sorted
    int64_t operator[](size_t i) const {
      if (std::binary_search(window_begins.begin(), window_begins.end(), i)) return -1;
      return std::max<int64_t>(0, (*order)[i].start_ns - (*order)[i - 1].end_ns);
    }
  } gap;
  bool timed = false;

  // A kernel name short enough for a sentence: no return type, arguments or long templates.
  std::string name_of(uint32_t id) const;
};

// Windows of the main stream (see phases.hpp), and the Dispatch_Ids missing in holes too small
// and too many to be window boundaries (a kernel filter).
struct WindowScan {
  std::vector<Window> windows;
  int64_t scattered_missing = 0, scattered_holes = 0;
};
WindowScan find_windows(const MainStream& order, const SpillVector<int64_t>& process_ids);

// Whether host gaps one period apart mark the repetition's boundaries, on [b, e).
// The gaps at the best offset must stand out from the median gap and from the largest gaps at any
// other offset of the period (the rival boundary, which a host that stops after every layer makes
// as large).
struct GapStats {
  double between = 0;         // the boundary gap (upper quantile at the best offset)
  double inside = 0;          // the median gap elsewhere
  double rival = 0;           // the same upper quantile at the best other offset
  size_t offset = 0;          // the best offset, from the start of [b, e), modulo the period
  size_t rival_offset = 0;    // the rival's, likewise
  size_t rival_distance = 0;  // dispatches between the two offsets (the shorter way round)
  // Other places of the period where the host stops nearly as long (over a third of the boundary
  // gap), at least a few dispatches apart: each one a unit (a layer) inside the repetition.
  size_t rival_places = 0;
  bool close_rival() const { return rival_places > 0; }
  int64_t threshold = 0;
  bool marks_steps = false;
};
GapStats gap_stats(const Detector& det, size_t period, size_t b, size_t e);

// What the per-window cutting finds before phases are assigned.
enum class SegKind { lead, step, trail };
struct Seg {
  size_t begin = 0, end = 0;
  SegKind kind = SegKind::lead;
  int window = 0;
};
// Splits [b, e) into a lead, steps (boundaries at host gaps >= threshold one period apart, or at
// period multiples without timing) and a trail. `ref_begin`: a step-long stretch to compare with;
// `ref_starts_run`: it starts the longest run of repetitions (the cut starts there when the window
// holds it).
std::vector<Seg> cut_window(const Detector& det, size_t b, size_t e, size_t period,
                            int64_t threshold, int window, size_t ref_begin, bool ref_starts_run);

struct PrefillTest {
  bool established = false;
  Confidence confidence = Confidence::low;
  std::string evidence;  // for the finding, or the reason it failed
};
// Is [s0, s1) a prefill, compared with the regular step [r0, r1) of `step_layers` layers?
PrefillTest test_prefill(const Detector& det, size_t s0, size_t s1, size_t r0, size_t r1,
                         int step_layers);

// The prefill among the first window's lead (whole, or after its largest host gap) and its first
// step, each compared with the regular step starting at `ref`: the first candidate established,
// else the reason the first one failed.
struct PrefillChoice {
  std::optional<size_t> seg;    // index into segs of the prefill's segment
  std::optional<size_t> split;  // where in that segment the prefill starts, when not at its begin
  std::string why;              // the evidence, or why the best candidate failed ("": none)
  Confidence confidence = Confidence::low;
  std::vector<Alternative> rejected;  // the candidates that failed, with why
};
PrefillChoice find_prefill(const Detector& det, const std::vector<Seg>& segs, size_t ref,
                           size_t step_len, int layers);

// Notes on a loop of its own after the last step (trailing_loops.cpp).
void note_trailing_loops(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs,
                         size_t period, size_t step_len, size_t ref);

// The steps of the stream whose windows and launches `det` holds (phases.cpp): the repetition,
// whether host gaps mark its boundaries, the steps cut at them, their layers and phases, and the
// evidence; each named below.
void detect_steps(PhaseModel& pm, const Detector& det);

// The steps of detect_steps, in the order it takes them (phase_steps.cpp).

// Fills the detector's kernel names and launch identities (name, grid and workgroup, interned in
// order of first appearance) from its stream, and whether the stream is timed: some dispatch
// starts after the previous one of its window ended.
void read_launches(Detector& det, const std::vector<Window>& windows);

// The repeating unit's length, from the longest window that has one (a period across a window
// boundary means nothing): windows are tried longest first (the earlier of equal ones first), down
// to 8 dispatches. `window`: the window it was found in; the longest window when none was found.
struct PeriodChoice {
  size_t period = 0;  // 0: no window repeats
  size_t window = 0;
  std::vector<PeriodCandidate> considered;  // the other periods weighed in that window
};
PeriodChoice choose_period(const SpillVector<uint32_t>& names, const std::vector<Window>& windows);

// The reference stretch the steps are cut against: on [b, e), the start of the longest run of
// `period`-long stretches, each starting at a boundary and repeated (>= 90%) one period later.
// `at_gap(i)`: whether dispatch i follows a host gap long enough to cut there. Untimed, every
// position is a boundary and the first repeated stretch is taken. Each offset modulo the period
// is weighed once per run, and the comparisons are capped at the window's periods plus 1024 (at
// most 256 runs), so the search costs O(window + 1024 period) name compares.
struct ReferenceRun {
  size_t begin = 0;         // b when no stretch repeats
  bool starts_run = false;  // a repeated stretch starts at `begin`
  size_t run = 0;           // repetitions after the first in that run (timed only)
  // Repetitions in the run, the first included; 0 without one.
  size_t repetitions() const { return starts_run ? run + 1 : 0; }
};
ReferenceRun find_reference_run(const SpillVector<uint32_t>& names, size_t period, size_t b,
                                size_t e, bool timed, const std::function<bool(size_t)>& at_gap);

// Whether host gaps nearly as long at other places of each repetition make it a block of layers
// of one pass rather than a step: the longest run holds no more than 2 repetitions, or fewer than
// the host-stop places in each.
bool gaps_cut_layer_blocks(const GapStats& gs, bool timed, size_t repetitions);

// The most common length among the step segments, and how many steps have it; a tie goes to
// `period`, else to the shorter length. {0, 0} without steps.
struct StepLength {
  size_t length = 0, count = 0;
};
StepLength most_common_step_length(const std::vector<Seg>& segs, size_t period);

// The regular reference: the first step of `step_len` whose launch identities (`ids`) match the
// next step's at >= 90%, so that a first step with other grids (a prefill) is not it; else the
// first step of that length; else `fallback`.
size_t regular_reference(const SpillVector<uint32_t>& ids, const std::vector<Seg>& segs,
                         size_t step_len, size_t fallback);

// A step of the regular length whose names match the reference's at >= 90%.
bool is_regular_step(const SpillVector<uint32_t>& names, const Seg& s, size_t ref, size_t step_len);

// One step per window, of unknown phase: what the model holds when steps are not established.
void mark_windows_unknown(PhaseModel& pm);
// The model's counts of steps by phase, from its steps.
void count_phases(PhaseModel& pm);
// The steps of each segment by phase: the prefill's segment (unknown before its split), regular
// steps (decode after a prefill, else step), irregular ones, and leads and trails that match a
// step's end or start (partial) or not (unknown).
void assign_phases(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs,
                   const PrefillChoice& prefill, size_t ref, size_t step_len);

// Notes and findings of detect_phases's outcomes (phase_outcomes.cpp).

// Why steps are not established when no window repeats (n >= 8): windows alike as a whole, one
// kernel launched over and over, or a sequence that does not repeat.
void note_no_repetition(PhaseModel& pm, const Detector& det);
// The repetition found, for the sentences about it.
struct Repetition {
  size_t period = 0;
  double match = 0;           // match_rate over the window it was found in
  size_t begin = 0, end = 0;  // that window
};
// Why a repetition is not taken for steps: no window holds two, host gaps cut smaller units
// (`layer_blocks`), or no host gap marks its boundaries (then the layer-like blocks of the window
// are reported, without calling them steps).
void note_unmarked_repetition(PhaseModel& pm, const Detector& det, const Repetition& rep,
                              const GapStats& gs, size_t repetitions, bool layer_blocks);
// The layers of a regular step in the middle of the steps (the first and last may carry warm-up
// or drain work): a finding, or why the count is not established.
void note_step_layers(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs, size_t ref,
                      size_t step_len);
// Whether the steps are one whole repetition (one forward pass, not a loop); if so the model is
// reset to unknown windows with a note saying so, and its layer findings drop to low confidence.
bool demote_single_pass(PhaseModel& pm, const Repetition& rep, size_t step_len, bool have_prefill);
// The counted evidence for the steps (step_confidence) and the candidates they were preferred to.
StepEvidence step_evidence(const PhaseModel& pm, const Detector& det, const Repetition& rep,
                           const GapStats& gs, const std::vector<PeriodCandidate>& considered,
                           size_t ref, size_t step_len);
std::vector<Alternative> step_alternatives(bool timed, const Repetition& rep, const GapStats& gs,
                                           const std::vector<PeriodCandidate>& considered,
                                           size_t regular_steps);

// Finding texts.
Finding windows_finding(const std::vector<Window>& windows, const WindowScan& scan);
void order_findings(PhaseModel& pm);
// The steps, prefill and decode findings and the notes on irregular, partial and unknown
// stretches, once phases are assigned. `prefill_evidence` is null when no prefill was established;
// `prefill_why` then says why the best candidate failed (empty: there was none).
// `se` and `step_alts`: the counted evidence and runner-ups of the steps finding;
// `prefill_alts`: the prefill candidates that failed.
void step_findings(PhaseModel& pm, bool timed, size_t period, size_t step_len, double period_match,
                   const GapStats& gs, const StepEvidence& se, std::vector<Alternative> step_alts,
                   const std::string* prefill_evidence, const std::string& prefill_why,
                   Confidence prefill_conf, std::vector<Alternative> prefill_alts);

}  // namespace kprof::analysis::detail
