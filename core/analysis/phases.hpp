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

#include "core/analysis/capture.hpp"
#include "core/analysis/main_stream.hpp"
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

// One thing the analysis established, with what it rests on.
struct Finding {
  Topic topic;
  std::string claim;     // "63 repeated steps of 847 dispatches"
  std::string evidence;  // "the kernel sequence repeats every 847 dispatches (100% match) ..."
  Confidence confidence = Confidence::medium;
};

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

// Period detection alone, on a name sequence (tests and the real-capture pin): the largest
// distance at which k-grams repeat often enough, or 0.
size_t detect_period(const std::vector<uint32_t>& names, size_t k = 0);
// The same on [b, e) of `names`.
size_t detect_period(const SpillVector<uint32_t>& names, size_t b, size_t e, size_t k = 0);

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
};
LayerFit detect_layers(std::vector<uint32_t> step_names);

}  // namespace kprof::analysis
