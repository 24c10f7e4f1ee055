// Internals of phase detection (phases.hpp), shared by phases.cpp, periods.cpp, step_cuts.cpp,
// prefill.cpp, trailing_loops.cpp and phase_findings.cpp. Not part of the analysis API.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/capture.hpp"
#include "core/analysis/phases.hpp"

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
                         size_t P, size_t step_len, size_t ref);

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
