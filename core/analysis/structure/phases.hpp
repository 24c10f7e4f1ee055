// The repeating structure of a trace, found from the dispatch sequence alone, with the evidence for
// each finding and what could not be established. Nothing is assumed: a step is called "prefill"
// only when the data shows it, and a trace that was captured in windows is reported as windows.
//
//  * windows: the main stream (largest process and agent) is split wherever Dispatch_Ids are
//    missing. rocprofv3 numbers the dispatches of a process from 1 as they are enqueued
//    (ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp writes dispatch_info.dispatch_id), so
//    a jump means dispatches that ran but were not traced (--selected-regions, --collection-period,
//    a kernel filter, or rows cut out of the file). Ids taken by the same process on other agents
//    are not a jump.
//  * steps: the period P of the kernel-name sequence (every forward pass of a generation loop
//    launches the same kernels in the same order). Candidate periods are the distances at which
//    k-grams of names last occurred (linear time); P is the largest one that explains a sizeable
//    part of the sequence. With timestamps, a repetition is called a step only when host gaps mark
//    its boundaries (the host samples and schedules between forward passes): the gap one period
//    apart must be several times the gaps inside. Without that evidence the repeating unit may be a
//    layer or an inner loop, and no steps are reported. Boundaries are then taken, step by step, at
//    the large host gap nearest to one period after the previous boundary, so a step with an extra
//    or missing kernel is found as it is and reported as irregular.
//  * prefill: only on evidence. The candidate is what precedes the first repeated step in the
//    first window (or the first step itself): it must come first, run the same layer structure as
//    the repeated steps and launch larger grids for most kernels it shares with them (prefill
//    processes the whole prompt, a decode step one token per sequence). Being first is never
//    enough. Repeated steps are "decode" only after an established prefill; otherwise their role
//    is "step" (not established).
//  * layers: within a regular step, the largest count of a kernel that launches at a regular
//    distance d (within 15%) and whose stretch of the step repeats with period d (match rate
//    >= 0.5, which accepts hybrid models where every 4th layer differs: Qwen3.5's 3 linear-
//    attention + 1 full-attention layers match at about 0.6). The count must account for the
//    kernels of that stretch: one that launches several times per claimed layer, unevenly,
//    between alike stretches, splits each "layer" into layers of two kinds, and the count is then
//    not established.
// Runbook hints (layers, output tokens) are checked against these results, never used for them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/analysis/structure/main_stream.hpp"
#include "core/base/spill_vector.hpp"

namespace kprof::analysis {

// What a dispatch of the trace is part of.
enum class Phase : uint8_t {
  prefill,    // a step established as the prefill (evidence in PhaseModel::findings)
  decode,     // a regular repeated step of a trace whose prefill was established
  step,       // a regular repeated step whose role (decode, repeated forward pass) is not known
  irregular,  // a step between two step boundaries that differs from the regular steps
  partial,    // part of a step, cut by the start or end of a window or of the trace
  unknown,    // in no step: before the first step (set-up, warm-up), or no steps were found
  other,      // not on the main stream (another process or agent)
};
inline constexpr std::array<Phase, 7> k_all_phases = {
    Phase::prefill, Phase::decode,  Phase::step, Phase::irregular,
    Phase::partial, Phase::unknown, Phase::other};
std::string_view to_string(Phase p);
std::optional<Phase> parse_phase(std::string_view s);
// "prefill, decode, step, irregular, partial, unknown or other"
std::string phase_choices();

enum class Confidence : uint8_t { high, medium, low };
std::string_view to_string(Confidence c);

// What a finding is about, in reading order: how the trace was cut, then steps, their roles, then
// layers (PhaseModel::findings is sorted by it).
enum class Topic : uint8_t { windows, steps, prefill, decode, layers };
std::string_view to_string(Topic t);

// A candidate the analysis weighed against a finding, and why it lost.
struct Alternative {
  std::string candidate;  // "a period of 35 dispatches (98% match)"
  std::string why_lost;   // "it fits 24 times in a step: the layer inside it"
};

// One thing the analysis established, with what it rests on.
struct Finding {
  Topic topic;
  std::string claim;     // "63 repeated steps of 847 dispatches"
  std::string evidence;  // "the kernel sequence repeats every 847 dispatches (100% match) ..."
  Confidence confidence = Confidence::medium;
  std::vector<Alternative> alternatives;  // the runner-up candidates, best first
  std::string counts;  // the counts the confidence follows from (StepEvidence, LayerEvidence)
};

// The counted evidence for repeated steps, from which their confidence follows (step_confidence):
//   high    timed; at least 3 regular steps, at most one irregular per 10; at least 9 in 10 of
//           them launch the reference step's kernels with its grids and workgroups; boundary gaps
//           10 times the larger of the in-step median and the best gaps elsewhere in the period;
//           half the stream in regular steps; no other period within 5 points of the match
//   medium  timed; at least 2 regular steps, no more irregular ones; boundary gaps 3 times that
//   low     otherwise (an untimed trace's boundaries are assumed, never seen)
struct StepEvidence {
  bool timed = false;
  size_t regular = 0, irregular = 0;
  size_t identical = 0;      // regular steps whose launches (names, grids) match the reference's
  size_t explained = 0;      // main-stream dispatches in regular steps
  size_t dispatches = 0;     // main-stream dispatches
  double gap_ratio = 0;      // boundary gap / max(median gap, rival boundary's gap, 1 ns)
  size_t close_periods = 0;  // other step lengths (over half the step, no divisor of it) within
                             // 5 match points
};
Confidence step_confidence(const StepEvidence& e);

// The counted evidence for a layer count (layer_confidence):
//   high    every kernel of the layers accounted for; the layer stretch repeats at >= 90%; at
//           least 4 layers; the layers cover at least 80% of the step; no other count fits
//   medium  every kernel accounted for; >= 50% repetition
//   low     otherwise
struct LayerEvidence {
  int layers = 0;
  double match = 0;
  size_t covered = 0;  // dispatches of the step inside the layers (layers x period)
  size_t step = 0;     // dispatches of the step
  bool accounted = false;
  int rival_layers = 0;  // another count that fits as regularly (0: none)
};
Confidence layer_confidence(const LayerEvidence& e);

// What the analysis could not establish, or an observation about the trace. The kind and the topic
// are fields, so a view (structure) or a machine reader never has to parse the text.
enum class NoteKind : uint8_t {
  not_established,  // `topic` could not be established; `text` says why
  observation,      // a fact that is no finding (dispatches in no step, another loop, ...)
};
struct Note {
  NoteKind kind = NoteKind::observation;
  std::optional<Topic> topic;  // always set for not_established; what an observation is about
  std::string text;            // the reason, or the observation
  // As explain and phases print it: "<topic>: not established: <text>", or the text.
  std::string line() const;
};
Note not_established(Topic topic, std::string why);
Note observation(std::optional<Topic> topic, std::string text);

// A stretch of the main stream with no missing Dispatch_Id inside.
struct Window {
  size_t begin = 0, end = 0;  // [begin, end) into PhaseModel::order
  int64_t first_id = 0, last_id = 0;
  int64_t missing_before = 0;  // ids of this process not in the trace just before this window
  int64_t gap_before_ns = 0;   // idle time after the previous window (0 for the first)
};

// A segment of the main stream: a step, or dispatches that belong to no step.
struct Step {
  size_t begin = 0, end = 0;  // [begin, end) into PhaseModel::order
  Phase phase = Phase::unknown;
  int window = 0;
};

struct PhaseModel {
  MainStream order;             // the main stream in program order
  std::vector<Window> windows;  // covering order, in order
  std::vector<Step> steps;      // segments covering order completely, in order
  size_t step_period = 0;       // dispatches per regular step (0: no steps)
  size_t layer_period = 0;      // dispatches per layer (0: none)
  int layers = 0;               // layers per regular step (0: none)
  int prefill_steps = 0, decode_steps = 0, role_unknown_steps = 0, irregular_steps = 0;
  std::string method;                    // how steps were found: "period+gaps", "period", "none"
  int64_t main_pid = 0, main_agent = 0;  // main_pid 0: the trace names no process (see stream_name)
  size_t other_dispatches = 0;           // dispatches off the main stream
  std::vector<Finding> findings;         // what was established, with evidence
  std::vector<Note> notes;               // what could not be established and why; observations

  // The index into steps of the step holding order position i (steps cover order, in order).
  size_t step_index(size_t order_index) const;
  Phase phase_of(size_t order_index) const { return steps[step_index(order_index)].phase; }
  // Steps that ran a forward pass as a whole: prefill + decode + role-unknown (not irregular).
  int whole_steps() const { return prefill_steps + decode_steps + role_unknown_steps; }
  bool windowed() const { return windows.size() > 1; }
  // "pid 564735, agent 2"; "agent 2 of a process the trace does not name" when main_pid is 0:
  // rocprofv3's kernel_trace.csv has no process column (ROCm/rocm-systems
  // projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp), the pid is only the %pid% of the
  // default `-o %hostname%/%pid%` file name (source/docs/how-to/using-rocprofv3.rst), so a capture
  // written with `-o NAME` names none; pid 0 (the idle task) is never a profiled process.
  std::string stream_name() const;
};

// Detects the structure of the largest (pid, agent) stream of `trace`. Dispatches of other
// streams are not in `order` (they are phase "other").
// `names` (optional) lets the evidence name kernels.
PhaseModel detect_phases(const PassData& trace, const NameTable* names = nullptr);

// Same, on an already ordered main stream of `pass` (its launch shapes and lanes; its dispatches
// need not be loaded). `process_ids`: every Dispatch_Id of the stream's process in the trace,
// sorted (ids on other agents are not missing); empty = only `order`'s. `spill_bytes`: 0 keeps
// the detector's per-dispatch columns in memory; otherwise each holds about that many bytes and
// spills the rest (the bounded export; the results are the same).
PhaseModel detect_phases(const PassData& pass, MainStream order,
                         SpillVector<int64_t> process_ids = SpillVector<int64_t>{},
                         const NameTable* names = nullptr, size_t spill_bytes = 0);

// Sets pm.other_dispatches (of a trace of `dispatches` in `streams` (pid, agent) streams) and,
// when there are any, the observation that they are not analysed, as detect_phases(trace) does:
// for a caller that detected the phases of a main stream it read itself.
void note_other_streams(PhaseModel& pm, size_t dispatches, size_t streams);

// A period candidate and the share of positions it matches.
struct PeriodCandidate {
  size_t period = 0;
  double match = 0;
};

// Period detection alone, on a name sequence (tests and the real-capture pin): the largest
// distance at which k-grams repeat often enough, or 0.
size_t detect_period(const std::vector<uint32_t>& names, size_t k = 0);
// The same on [b, e) of `names`. `considered` (optional) receives the other candidates weighed,
// those tried before the chosen one (larger, under 50% match) and a few smaller ones after it.
size_t detect_period(const SpillVector<uint32_t>& names, size_t b, size_t e, size_t k = 0,
                     std::vector<PeriodCandidate>* considered = nullptr);

// Layers of one step's name sequence.
struct LayerFit {
  int layers = 0;       // 0: none found
  size_t period = 0;    // dispatches per layer
  uint32_t anchor = 0;  // the kernel name that launches once per layer
  double match = 0;     // share of the layer stretch that repeats with the layer period
  // A kernel of the layer stretch the count does not account for (conflict_count launches; with
  // `finer`, a whole number m > 1 per layer at uneven distances between alike neighbouring
  // stretches, so each "layer" may be m layers of two kinds): the count is unknown.
  uint32_t conflict = 0;
  size_t conflict_count = 0;
  bool finer = false;
  bool accounted() const { return conflict_count == 0; }
  // Agreement and the runner-up: kernels that launch once per layer at the same distance (the
  // anchor among them), and the best other count with its anchor and why it lost.
  size_t agreeing = 0;
  int rival_layers = 0;
  size_t rival_period = 0;
  uint32_t rival_anchor = 0;
  bool rival_fits = false;  // it launches regularly over the layers too (a kernel of every k-th)
  std::string rival_why;    // "launches at irregular distances (5 to 9)", "fewer launches", ...
};
LayerFit detect_layers(std::vector<uint32_t> step_names);

}  // namespace kprof::analysis
