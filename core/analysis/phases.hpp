// The repeating structure of a measured region, found from the dispatch sequence alone:
//  * steps: the period P of the kernel-name sequence (every forward pass of a decode loop launches
//    the same kernels in the same order). Candidate periods are the distances at which each k-gram
//    of names last occurred (linear time); the step period is the largest distance that explains a
//    sizeable part of the sequence. Step boundaries sit where the host gap before a dispatch is
//    largest, searched one period after the previous boundary (so slightly uneven steps still cut
//    right); without timing information they fall at exact multiples of P.
//  * the initial step: whatever precedes the first periodic step, or the first step itself when
//    its launch identities (name, grid, workgroup) differ from the later steps' (prefill processes
//    the whole prompt, so its grids are larger). Steps are then labelled "prefill" and "decode";
//    dispatches after the last full step are "tail".
//  * layers: within a decode step, the largest count of a kernel that launches at a regular
//    distance d (within 15%) and whose stretch of the step repeats with period d (match rate
//    >= 0.5, which accepts hybrid models where every 4th layer differs: Qwen3.5's 3 linear-
//    attention + 1 full-attention layers match at about 0.6).
// Runbook hints (layers, output tokens) are checked against these results, never used for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/capture.hpp"

namespace kprof::analysis {

struct Step {
  size_t begin = 0, end = 0;  // [begin, end) into PhaseModel::order
  std::string phase;          // "prefill" | "decode" | "tail"
};

struct PhaseModel {
  std::vector<const Dispatch*> order;  // the main stream in program order
  std::vector<Step> steps;             // covering order completely, in order
  std::vector<int> step_of;            // per order index: index into steps
  size_t step_period = 0;              // dispatches per decode step (0: no period found)
  size_t layer_period = 0;             // dispatches per layer (0: none)
  int layers = 0;                      // layers per decode step (0: none)
  int prefill_steps = 0, decode_steps = 0;
  std::string method;  // how steps were found: "period+gaps", "period", "none"
  int64_t main_pid = 0, main_agent = 0;

  const std::string& phase_of(size_t order_index) const {
    return steps[step_of[order_index]].phase;
  }
};

// Detects the structure of the largest (pid, agent) stream of `trace`. Dispatches of other
// streams are not in `order` (a caller reports them as phase "other").
PhaseModel detect_phases(const PassData& trace);

// Same, on an already ordered stream (tests).
PhaseModel detect_phases(std::vector<const Dispatch*> order);

// Period detection alone, on a name sequence (tests and the real-capture pin): the largest
// distance at which k-grams repeat often enough, or 0.
size_t detect_period(const std::vector<uint32_t>& names, size_t k = 0);

// Layers of one step's name sequence: {layers, layer period}, {0, 0} when none.
std::pair<int, size_t> detect_layers(const std::vector<uint32_t>& step_names);

}  // namespace kprof::analysis
