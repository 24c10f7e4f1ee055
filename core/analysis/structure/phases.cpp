// Phase detection (phases.hpp): the orchestration. The pieces: phase_steps.cpp (launches, the
// period, the reference run, step lengths, phases), phase_outcomes.cpp (the notes and findings of
// each outcome), periods.cpp (period, layers), step_cuts.cpp (windows, gap statistics, steps),
// prefill.cpp (the prefill candidates and their evidence), trailing_loops.cpp (a loop of its own
// after the last step), phase_findings.cpp (finding sentences), phase_names.cpp (Phase and
// Confidence as words).
#include "core/analysis/structure/phases.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis {

using namespace detail;

PhaseModel detect_phases(const PassData& trace, const NameTable* names) {
  // Streams are counted first and only the main one's dispatches are collected: the model holds
  // one pointer per main-stream dispatch, never one per stream and dispatch.
  std::map<std::pair<int64_t, int64_t>, size_t> streams;  // (pid, agent) -> dispatches
  for (const auto& d : trace.dispatches) ++streams[{d.pid, trace.agent(d)}];
  std::optional<std::pair<int64_t, int64_t>> main;
  size_t main_size = 0, main_pid_size = 0;
  for (const auto& [key, size] : streams)
    if (!main || size > main_size) main = key, main_size = size;
  std::vector<uint32_t> index;  // into trace.dispatches
  index.reserve(main_size);
  if (main) {
    for (size_t i = 0; i < trace.dispatches.size(); ++i) {
      const Dispatch& d = trace.dispatches[i];
      if (d.pid != main->first) continue;
      ++main_pid_size;
      if (trace.agent(d) == main->second) index.push_back(static_cast<uint32_t>(i));
    }
  }
  std::sort(index.begin(), index.end(), [&](uint32_t a, uint32_t b) {
    return trace.dispatches[a].dispatch_id < trace.dispatches[b].dispatch_id;
  });
  // Ids of the main process on other agents are not missing from the stream; without such ids
  // the stream's own are the process's (find_windows takes an empty list for that).
  std::vector<int64_t> process_ids;
  if (main_pid_size > index.size()) {
    process_ids.reserve(main_pid_size);
    for (const auto& d : trace.dispatches)
      if (d.pid == main->first) process_ids.push_back(d.dispatch_id);
    std::sort(process_ids.begin(), process_ids.end());
  }
  MainStream order(trace.dispatches, std::move(index));
  PhaseModel pm =
      detect_phases(trace, std::move(order), SpillVector<int64_t>(std::move(process_ids)), names);
  note_other_streams(pm, trace.dispatches.size(), streams.size());
  return pm;
}

void note_other_streams(PhaseModel& pm, size_t dispatches, size_t streams) {
  pm.other_dispatches = dispatches - pm.order.size();
  if (pm.other_dispatches > 0) {
    pm.notes.push_back(observation(Topic::windows,
                                   num(pm.other_dispatches) + " dispatches on " + num(streams - 1) +
                                       " other process/agent stream" + (streams > 2 ? "s" : "") +
                                       " are not analysed (phase other); the main stream is " +
                                       pm.stream_name()));
  }
}

size_t PhaseModel::step_index(size_t order_index) const {
  const auto it = std::upper_bound(steps.begin(), steps.end(), order_index,
                                   [](size_t i, const Step& s) { return i < s.begin; });
  return static_cast<size_t>(it - steps.begin()) - 1;
}

PhaseModel detect_phases(const PassData& pass, MainStream order, SpillVector<int64_t> process_ids,
                         const NameTable* names_table, size_t spill_bytes) {
  PhaseModel pm;
  pm.order = std::move(order);
  const size_t n = pm.order.size();
  pm.method = "none";
  if (n == 0) {
    pm.notes.push_back(not_established(Topic::steps, "the stream has no dispatches"));
    return pm;
  }
  pm.main_pid = pm.order[0].pid;
  pm.main_agent = pass.agent(pm.order[0]);
  Detector det{pm.order,
               pass,
               names_table,
               SpillVector<uint32_t>(spill_bytes),
               SpillVector<uint32_t>(spill_bytes),
               {},
               false};
  det.names.reserve(n);
  det.ids_as_names.reserve(n);

  const WindowScan scan = find_windows(pm.order, process_ids);
  det.gap.order = &pm.order;
  for (const auto& w : scan.windows) det.gap.window_begins.push_back(w.begin);
  process_ids = {};  // freed before the detector's own arrays peak
  pm.windows = scan.windows;
  read_launches(det, pm.windows);
  pm.findings.push_back(windows_finding(pm.windows, scan));
  detect_steps(pm, det);
  return pm;
}

// The steps of the stream whose windows and launches `det` holds: the repetition, whether host
// gaps mark its boundaries, the steps cut at them, their layers and phases, and the evidence.
void detail::detect_steps(PhaseModel& pm, const Detector& det) {
  const size_t n = det.names.size();
  auto not_steps = [&](auto&& note) {
    mark_windows_unknown(pm);
    note();
    count_phases(pm);
  };
  if (n < 8)
    return not_steps([&] {
      pm.notes.push_back(not_established(
          Topic::steps, num(n) + " dispatches are too few to show a repeating structure"));
    });
  const PeriodChoice period = choose_period(det.names, pm.windows);
  if (period.period == 0) return not_steps([&] { note_no_repetition(pm, det); });

  // Do host gaps mark the repetition's boundaries? Statistics on the window it was found in.
  const Window& window = pm.windows[period.window];
  const Repetition rep{period.period,
                       match_rate(det.names, period.period, window.begin, window.end), window.begin,
                       window.end};
  const GapStats gs = gap_stats(det, rep.period, rep.begin, rep.end);
  ReferenceRun run;
  run.begin = rep.begin;
  if (gs.marks_steps)
    run = find_reference_run(det.names, rep.period, rep.begin, rep.end, det.timed,
                             [&](size_t i) { return det.gap[i] >= gs.threshold; });
  // Host gaps nearly as long at other places of each repetition make it either a step of a loop
  // that syncs inside it (after every layer, say) or a block of layers of one forward pass, each
  // followed by a host wait. Only the latter refuses the steps; the former keeps them, at lower
  // confidence, with the rival boundaries as their alternative.
  const bool layer_blocks = gaps_cut_layer_blocks(gs, det.timed, run.repetitions());
  if (!gs.marks_steps || layer_blocks)
    return not_steps(
        [&] { note_unmarked_repetition(pm, det, rep, gs, run.repetitions(), layer_blocks); });

  std::vector<Seg> segs;
  for (size_t w = 0; w < pm.windows.size(); ++w) {
    auto cut = cut_window(det, pm.windows[w].begin, pm.windows[w].end, rep.period, gs.threshold,
                          static_cast<int>(w), run.begin, run.starts_run);
    segs.insert(segs.end(), cut.begin(), cut.end());
  }
  const StepLength step = most_common_step_length(segs, rep.period);
  if (step.count == 0)
    return not_steps([&] {
      pm.notes.push_back(not_established(
          Topic::steps, "the kernel-name sequence repeats every " + num(rep.period) +
                            " dispatches, but no stretch between host gaps is a whole step"));
    });
  pm.step_period = step.length;
  pm.method = det.timed ? "period+gaps" : "period";
  const size_t ref = regular_reference(det.ids_as_names, segs, step.length, run.begin);
  note_step_layers(pm, det, segs, ref, step.length);

  // Prefill: the first window's lead, or its first step, on evidence only (prefill.cpp).
  const PrefillChoice prefill = find_prefill(det, segs, ref, step.length, pm.layers);
  const bool have_prefill = prefill.seg.has_value();
  assign_phases(pm, det, segs, prefill, ref, step.length);
  count_phases(pm);
  if (demote_single_pass(pm, rep, step.length, have_prefill)) {
    order_findings(pm);
    return;
  }
  const StepEvidence se = step_evidence(pm, det, rep, gs, period.considered, ref, step.length);
  step_findings(pm, det.timed, rep.period, step.length, rep.match, gs, se,
                step_alternatives(det.timed, rep, gs, period.considered, se.regular),
                have_prefill ? &prefill.why : nullptr, prefill.why, prefill.confidence,
                prefill.rejected);
  note_trailing_loops(pm, det, segs, rep.period, step.length, ref);
  order_findings(pm);
}

}  // namespace kprof::analysis
