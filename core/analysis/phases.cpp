// Phase detection (phases.hpp): the orchestration. The pieces: periods.cpp (period, layers),
// step_cuts.cpp (windows, gap statistics, steps), prefill.cpp (the prefill candidates and their
// evidence), trailing_loops.cpp (a loop of its own after the last step), phase_findings.cpp
// (finding sentences), phase_names.cpp (Phase and Confidence as words).
#include "core/analysis/phases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/analysis/phase_detail.hpp"

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
  pm.other_dispatches = trace.dispatches.size() - pm.order.size();
  if (pm.other_dispatches > 0) {
    pm.notes.push_back(observation(
        Topic::windows, num(pm.other_dispatches) + " dispatches on " + num(streams.size() - 1) +
                            " other process/agent stream" + (streams.size() > 2 ? "s" : "") +
                            " are not analysed (phase other); the main stream is " +
                            pm.stream_name()));
  }
  return pm;
}

size_t PhaseModel::step_index(size_t order_index) const {
  const auto it = std::upper_bound(steps.begin(), steps.end(), order_index,
                                   [](size_t i, const Step& s) { return i < s.begin; });
  return static_cast<size_t>(it - steps.begin()) - 1;
}

namespace {

// The most windows that hold exactly the same launches (names, grids, workgroups), and their
// `length`; 0 when no two do. Windows are compared whole.
size_t alike_windows(const PhaseModel& pm, const Detector& det, size_t& length) {
  size_t best = 0;
  for (size_t a = 0; a < pm.windows.size(); ++a) {
    const Window& wa = pm.windows[a];
    const size_t len = wa.end - wa.begin;
    if (len < 2) continue;
    size_t same = 1;
    for (size_t b = a + 1; b < pm.windows.size(); ++b) {
      const Window& wb = pm.windows[b];
      if (wb.end - wb.begin != len) continue;
      bool eq = true;
      for (size_t i = 0; i < len && eq; ++i)
        eq = det.ids_as_names[wa.begin + i] == det.ids_as_names[wb.begin + i];
      same += eq;
    }
    if (same > best) best = same, length = len;
  }
  return best >= 2 ? best : 0;
}

// "12x": how many times `a` is `b`, for a sentence.
std::string times(double a, double b) {
  char buf[32];
  const double r = a / std::max(b, 1.0);
  std::snprintf(buf, sizeof buf, r >= 10 ? "%.0fx" : "%.1fx", r);
  return buf;
}

// Why a layer count that does not account for every kernel is not established: the count, the
// kernel it leaves unexplained and the alternative that kernel suggests.
std::string layer_conflict(const Detector& det, const LayerFit& lf) {
  const std::string claim = det.name_of(lf.anchor) + " launches every " + num(lf.period) +
                            " dispatches, " + std::to_string(lf.layers) + " times per step";
  if (lf.finer)
    return claim + ", but " + det.name_of(lf.conflict) + " launches " + num(lf.conflict_count) +
           " times (" + num(lf.conflict_count / static_cast<size_t>(lf.layers)) +
           " per block, at uneven distances, between alike stretches): each block may be " +
           num(lf.conflict_count / static_cast<size_t>(lf.layers)) +
           " layers of more than one kind, so the step may hold " + std::to_string(lf.layers) +
           " or " + num(lf.conflict_count) + " layers; the data does not decide";
  return claim + ", but " + det.name_of(lf.conflict) + " launches " + num(lf.conflict_count) +
         " times: " + std::to_string(lf.layers) + " layers do not account for it";
}

}  // namespace

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
  {
    // Launch identity (name, grid, workgroup) packed into one hash key.
    std::unordered_map<uint64_t, uint64_t> intern;
    size_t wi = 0;
    int64_t previous_end = 0;
    for (size_t i = 0; i < n; ++i) {
      const Dispatch d = pm.order[i];
      det.names.push_back(d.name);
      const KernelShape& shape = pass.shape(d);
      const uint64_t key = (static_cast<uint64_t>(d.name) * 0x9E3779B97F4A7C15ull) ^
                           (static_cast<uint64_t>(shape.grid_product()) * 0xC2B2AE3D27D4EB4Full) ^
                           static_cast<uint64_t>(shape.wg_product());
      det.ids_as_names.push_back(
          static_cast<uint32_t>(intern.try_emplace(key, intern.size()).first->second));
      while (wi + 1 < pm.windows.size() && pm.windows[wi + 1].begin <= i) ++wi;
      if (i > pm.windows[wi].begin) det.timed |= d.start_ns > previous_end;
      previous_end = d.end_ns;
    }
  }
  pm.findings.push_back(windows_finding(pm.windows, scan));

  auto set_all_unknown = [&] {
    pm.steps.clear();
    for (size_t wi = 0; wi < pm.windows.size(); ++wi)
      pm.steps.push_back(
          {pm.windows[wi].begin, pm.windows[wi].end, Phase::unknown, static_cast<int>(wi)});
  };
  auto finish = [&] {
    for (const auto& s : pm.steps) {
      pm.prefill_steps += s.phase == Phase::prefill;
      pm.decode_steps += s.phase == Phase::decode;
      pm.role_unknown_steps += s.phase == Phase::step;
      pm.irregular_steps += s.phase == Phase::irregular;
    }
  };

  size_t longest = 0;
  for (size_t i = 1; i < pm.windows.size(); ++i)
    if (pm.windows[i].end - pm.windows[i].begin >
        pm.windows[longest].end - pm.windows[longest].begin)
      longest = i;

  // The period from the longest window (a period across a window boundary means nothing), else
  // from the next longest that has one.
  size_t P = 0;
  std::vector<PeriodCandidate> considered;  // the other periods weighed in the chosen window
  if (n >= 8) {
    std::vector<size_t> by_size(pm.windows.size());
    for (size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
    std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b2) {
      return pm.windows[a].end - pm.windows[a].begin > pm.windows[b2].end - pm.windows[b2].begin;
    });
    for (size_t wi : by_size) {
      const auto& w = pm.windows[wi];
      if (w.end - w.begin < 8) break;
      considered.clear();
      P = detect_period(det.names, w.begin, w.end, 0, &considered);
      if (P) {
        longest = wi;
        break;
      }
    }
  }
  const size_t LB = pm.windows[longest].begin, LE = pm.windows[longest].end;
  if (n < 8) {
    set_all_unknown();
    pm.notes.push_back(not_established(
        Topic::steps, num(n) + " dispatches are too few to show a repeating structure"));
    finish();
    return pm;
  }
  if (P == 0) {
    set_all_unknown();
    std::unordered_map<uint32_t, int> distinct;
    for (size_t i = 0; i < n; ++i) ++distinct[det.names[i]];
    // One kernel launched over and over (a kernel benchmark) repeats trivially, but a period of
    // one launch is no forward pass: say what it is rather than "does not repeat".
    // A windowed trace whose windows each hold the same launches (names, grids, workgroups):
    // the repetition is across windows, one per window, which the period search inside a window
    // cannot see. Not a step (the cuts are the windows', not host gaps), but no harness either.
    size_t len = 0;
    if (const size_t same = alike_windows(pm, det, len); same >= 2) {
      pm.notes.push_back(not_established(
          Topic::steps, std::to_string(same) + " of the " + num(pm.windows.size()) +
                            " windows hold the same sequence of " + num(len) +
                            " launches (kernel names, grids and workgroups), one repetition per "
                            "window: the trace repeats across its windows (a generation loop "
                            "captured a step at a time is possible), but the window cuts, not "
                            "host gaps, bound each repetition, so steps are not established"));
      finish();
      return pm;
    }
    pm.notes.push_back(not_established(
        Topic::steps,
        distinct.size() == 1
            ? "all " + num(n) + " dispatches launch one kernel (" + det.name_of(det.names.front()) +
                  "): a kernel launched repeatedly, as a kernel benchmark does, not the many "
                  "kernels of a forward pass"
            : "the kernel-name sequence does not repeat (" + num(n) + " dispatches of " +
                  num(distinct.size()) +
                  " kernels); this looks like set-up or a test harness, not a generation loop"));
    finish();
    return pm;
  }

  // Do host gaps mark the repetition's boundaries? Statistics on the longest window.
  const double period_match = match_rate(det.names, P, LB, LE);
  const GapStats gs = gap_stats(det, P, LB, LE);
  const int64_t threshold = gs.threshold;
  const double gb = gs.between, gi = gs.inside;
  // Reference step: the start of the longest run of P-long stretches of the longest window, each
  // starting at a boundary and repeated one period later. Not the first: warm-up (a warm-up
  // request, set-up launches) may repeat a few times before the measured steps, at other
  // boundaries. Without timing every position is a boundary, so the first repeated stretch is
  // taken (its steps fall on period multiples from there). A run is weighed once: its later
  // members are skipped by their offset modulo the period, so each position is compared at most
  // once, as a run's start or member. With a host gap at every layer each layer's offset still
  // starts a run as long as the steps' own (a period shifted by a layer repeats too), so the
  // comparisons (each of P names) are also capped at the window's periods plus 1024: the search
  // costs O(window + 1024 P) name compares however many boundaries the window has, where weighing
  // every layer's run would cost layers x window. The steps' own run is weighed first (a step's
  // start comes before its layers'); the 1024 spare comparisons are for warm-up runs and
  // boundaries that do not repeat before it.
  size_t ref_begin = LB;
  bool ref_starts_run = false;
  size_t best_run = 0;
  if (gs.marks_steps) {
    size_t budget = (LE - LB) / P + 1024;
    auto repeats = [&](size_t i) {
      if (budget == 0) return false;
      --budget;
      return aligned_match(det.names, i, i + P, P) >= 0.9;
    };
    auto boundary = [&](size_t i) { return i == LB || !det.timed || det.gap[i] >= threshold; };
    std::unordered_map<size_t, size_t> weighed;  // offset modulo P -> end of the run weighed there
    size_t runs = 0;
    for (size_t i = LB; i + 2 * P <= LE && runs < 256 && budget > 0; ++i) {
      if (!boundary(i)) continue;
      const auto w = weighed.find(i % P);
      if (w != weighed.end() && i < w->second) continue;  // inside a run already weighed
      if (!repeats(i)) continue;
      ref_starts_run = true;
      if (!det.timed) {
        ref_begin = i;
        break;
      }
      ++runs;
      size_t run = 1, j = i + P;
      for (; j + 2 * P <= LE && boundary(j) && repeats(j); j += P) ++run;
      weighed[i % P] = j + 1;
      if (run > best_run) best_run = run, ref_begin = i;
    }
  }
  // Host gaps nearly as long at other places of each repetition make it either a step of a loop
  // that syncs inside it (after every layer, say) or a block of layers of one forward pass, each
  // followed by a host wait. A pass has few such blocks: the gemma4 reader's pass repeats its block
  // of 5 layers 3 times (5 host-stop places each), a decode loop repeats its step once a token,
  // tens of times. So the repetition is refused as a step only when its longest run holds no more
  // than 2 repetitions, or fewer repetitions than host-stop places in each (fewer repetitions
  // than the units it is cut into); otherwise the steps stand, at lower confidence, with the
  // rival boundaries as their alternative.
  const size_t repetitions = ref_starts_run ? best_run + 1 : 0;
  const bool blocks_of_layers = det.timed && gs.marks_steps && gs.close_rival() &&
                                (repetitions <= 2 || repetitions < gs.rival_places + 1);
  const bool gaps_mark_steps = gs.marks_steps && !blocks_of_layers;
  if (!gaps_mark_steps) {
    set_all_unknown();
    const std::string what = "the kernel-name sequence repeats every " + num(P) + " dispatches (" +
                             pct(period_match) + " match)";
    if (LE - LB < 2 * P) {
      pm.notes.push_back(
          not_established(Topic::steps, what + ", but no window holds two repetitions to compare"));
    } else if (blocks_of_layers) {
      // The host stops as long at another place of each repetition: its gaps cut smaller units
      // (the layers of one pass, each followed by a host sync), and one pass's blocks of alike
      // layers repeat like steps.
      pm.notes.push_back(not_established(
          Topic::steps,
          what + ", but host gaps as long as those at its best boundary (" + fmt_ns(gb) +
              ") also sit " + num(gs.rival_distance) + " dispatches from it (" + fmt_ns(gs.rival) +
              ", against " + fmt_ns(gi) + " inside); the host stops at " +
              num(gs.rival_places + 1) +
              " places of each repetition and its longest run holds only " + num(repetitions) +
              " repetitions (a generation loop turns more often than the units each turn is cut "
              "into): the gaps mark smaller units within each repetition, not its boundaries; "
              "the repeating unit may be a block of layers of one forward pass, not a step"));
    } else {
      pm.notes.push_back(not_established(
          Topic::steps, what + ", but no host gap marks its boundaries (median " + fmt_ns(gb) +
                            " at the best boundary vs " + fmt_ns(gi) +
                            " inside); the repeating unit may be a layer or an inner loop of one "
                            "pass, not a step"));
      // One pass of many layers: report the layer-like blocks, without calling them steps.
      const LayerFit lf = detect_layers(det.names.slice(LB, LE));
      if (lf.layers > 1) {
        pm.layers = lf.layers;
        pm.layer_period = lf.period;
        pm.findings.push_back(
            {Topic::layers,
             std::to_string(lf.layers) + " repeating blocks of about " + num(lf.period) +
                 " dispatches, without host gaps between them",
             det.name_of(lf.anchor) + " launches once every " + num(lf.period) + " dispatches, " +
                 std::to_string(lf.layers) + " times; the stretch repeats with that period (" +
                 pct(lf.match) +
                 " match). These may be the layers of one forward pass or an inner loop",
             Confidence::low,
             {{"steps of " + num(P) + " dispatches", "no host gap marks their boundaries"}},
             ""});
      }
    }
    finish();
    return pm;
  }

  std::vector<Seg> segs;
  for (size_t wi = 0; wi < pm.windows.size(); ++wi) {
    auto s = cut_window(det, pm.windows[wi].begin, pm.windows[wi].end, P, threshold,
                        static_cast<int>(wi), ref_begin, ref_starts_run);
    segs.insert(segs.end(), s.begin(), s.end());
  }
  // The regular step length: the most common step length.
  std::map<size_t, size_t> lengths;
  for (const auto& s : segs)
    if (s.kind == SegKind::step) ++lengths[s.end - s.begin];
  size_t step_len = 0, step_count = 0;
  for (auto [len, c] : lengths)
    if (c > step_count || (c == step_count && len == P)) step_len = len, step_count = c;
  if (step_count == 0) {
    set_all_unknown();
    pm.notes.push_back(not_established(
        Topic::steps, "the kernel-name sequence repeats every " + num(P) +
                          " dispatches, but no stretch between host gaps is a whole step"));
    finish();
    return pm;
  }
  pm.step_period = step_len;
  pm.method = det.timed ? "period+gaps" : "period";
  // The regular reference: the first step of that length whose launch identities (name, grid,
  // workgroup) match the next step's; so a first step with other grids (a prefill) is not it.
  size_t ref = ref_begin;
  {
    const Seg* prev = nullptr;
    bool found = false;
    for (const auto& s : segs) {
      if (s.kind != SegKind::step || s.end - s.begin != step_len) {
        prev = nullptr;
        continue;
      }
      if (prev && aligned_match(det.ids_as_names, prev->begin, s.begin, step_len) >= 0.9) {
        ref = prev->begin;
        found = true;
        break;
      }
      prev = &s;
    }
    if (!found)
      for (const auto& s : segs)
        if (s.kind == SegKind::step && s.end - s.begin == step_len) {
          ref = s.begin;
          break;
        }
  }
  auto is_regular = [&](const Seg& s) {
    return s.end - s.begin == step_len && aligned_match(det.names, ref, s.begin, step_len) >= 0.9;
  };
  // Layers of a regular step in the middle of the longest window (the first and last may carry
  // warm-up or drain work).
  {
    std::vector<const Seg*> regular;
    for (const auto& s : segs)
      if (s.kind == SegKind::step && is_regular(s)) regular.push_back(&s);
    const Seg* rep = regular[regular.size() / 2];
    const LayerFit lf = detect_layers(det.names.slice(rep->begin, rep->end));
    pm.layers = lf.accounted() ? lf.layers : 0;
    pm.layer_period = lf.accounted() ? lf.period : 0;
    if (lf.layers > 0 && !lf.accounted()) {
      pm.notes.push_back(not_established(Topic::layers, layer_conflict(det, lf)));
    } else if (lf.layers > 0) {
      // A rival count that fits as regularly and is no divisor of this one contradicts it.
      const bool rival = lf.rival_fits && lf.rival_layers > 0 && lf.layers % lf.rival_layers != 0;
      const LayerEvidence le{lf.layers, lf.match, static_cast<size_t>(lf.layers) * lf.period,
                             step_len,  true,     rival ? lf.rival_layers : 0};
      std::vector<Alternative> alts;
      if (lf.rival_layers > 0)
        alts.push_back(
            {std::to_string(lf.rival_layers) + " layers (" + det.name_of(lf.rival_anchor) +
                 " launches " + std::to_string(lf.rival_layers) + " times, every " +
                 num(lf.rival_period) + " dispatches)",
             lf.rival_fits && !rival ? std::to_string(lf.layers / lf.rival_layers) +
                                           " layers apart: a kernel of every " +
                                           std::to_string(lf.layers / lf.rival_layers) + "th layer"
                                     : lf.rival_why});
      pm.findings.push_back(
          {Topic::layers,
           std::to_string(lf.layers) + " layers per step, " + num(lf.period) + " dispatches each",
           det.name_of(lf.anchor) + " launches every " + num(lf.period) + " dispatches, " +
               std::to_string(lf.layers) + " times per step; that stretch of the step repeats " +
               "with the same period (" + pct(lf.match) + " match)",
           layer_confidence(le), std::move(alts),
           num(lf.agreeing) + " kernel" + (lf.agreeing == 1 ? "" : "s") +
               " launch once per layer at that distance; the layers hold " + num(le.covered) +
               " of the step's " + num(step_len) + " dispatches; every kernel of the layers " +
               "accounted for; " + (rival ? "a rival count fits as regularly" : "no rival count")});
    } else {
      pm.notes.push_back(
          not_established(Topic::layers,
                          "no kernel launches at a regular distance over at least half "
                          "of a step"));
    }
  }

  // Prefill: the first window's lead, or its first step, on evidence only (prefill.cpp).
  const PrefillChoice prefill = find_prefill(det, segs, ref, step_len, pm.layers);
  const std::optional<size_t>& prefill_seg = prefill.seg;
  const std::optional<size_t>& prefill_split = prefill.split;
  const std::string& prefill_why = prefill.why;
  const Confidence prefill_conf = prefill.confidence;

  // Phases of the segments.
  const bool have_prefill = prefill_seg.has_value();
  for (size_t si = 0; si < segs.size(); ++si) {
    const Seg& s = segs[si];
    auto push = [&](size_t b, size_t e, Phase p) {
      if (e > b) pm.steps.push_back({b, e, p, s.window});
    };
    if (prefill_seg && si == *prefill_seg) {
      const size_t start = prefill_split.value_or(s.begin);
      push(s.begin, start, Phase::unknown);
      push(start, s.end, Phase::prefill);
      continue;
    }
    switch (s.kind) {
      case SegKind::step:
        push(s.begin, s.end,
             is_regular(s) ? (have_prefill ? Phase::decode : Phase::step) : Phase::irregular);
        break;
      case SegKind::lead: {
        // A lead shorter than a step that matches the end of a step: the window cut a step.
        const size_t len = s.end - s.begin;
        const bool partial =
            len < step_len && aligned_match(det.names, ref + step_len - len, s.begin, len) >= 0.9;
        push(s.begin, s.end, partial ? Phase::partial : Phase::unknown);
        break;
      }
      case SegKind::trail: {
        const size_t len = s.end - s.begin;
        const bool partial = len < step_len && aligned_match(det.names, ref, s.begin, len) >= 0.9;
        push(s.begin, s.end, partial ? Phase::partial : Phase::unknown);
        break;
      }
    }
  }
  finish();
  // One whole repetition is one forward pass, not a repeated step: a step is a claim about a loop,
  // and a loop needs two turns to show (the rest, cut by the trace's ends, proves nothing).
  if (!have_prefill && pm.decode_steps + pm.role_unknown_steps < 2) {
    size_t partial = 0;
    for (const auto& st : pm.steps) partial += st.phase == Phase::partial ? st.end - st.begin : 0;
    const int whole = pm.role_unknown_steps;
    pm.prefill_steps = pm.decode_steps = pm.role_unknown_steps = pm.irregular_steps = 0;
    set_all_unknown();
    finish();
    pm.step_period = 0;
    pm.method = "none";
    pm.notes.push_back(not_established(
        Topic::steps, "the kernel-name sequence repeats every " + num(P) + " dispatches (" +
                          pct(period_match) + " match), but only " + std::to_string(whole) +
                          " whole repetition" + (whole == 1 ? "" : "s") + " of " + num(step_len) +
                          " dispatches lies between host gaps (" + num(partial) +
                          " more in repetitions cut by the trace's ends): one forward pass is "
                          "not a repeated step"));
    // Layers of that one pass may be right, but one pass cannot confirm them.
    for (auto& f : pm.findings)
      if (f.topic == Topic::layers) f.confidence = Confidence::low;
    order_findings(pm);
    return pm;
  }

  // The counted evidence for the steps, and the candidates they were preferred to.
  StepEvidence se;
  se.timed = det.timed;
  se.regular = static_cast<size_t>(pm.decode_steps + pm.role_unknown_steps);
  se.irregular = static_cast<size_t>(pm.irregular_steps);
  se.dispatches = n;
  for (const auto& st : pm.steps) {
    if (st.phase != Phase::decode && st.phase != Phase::step) continue;
    se.explained += st.end - st.begin;
    se.identical += aligned_match(det.ids_as_names, ref, st.begin, step_len) >= 0.9;
  }
  se.gap_ratio = det.timed ? gb / std::max({gi, gs.rival, 1.0}) : 0;
  const PeriodCandidate* runner_up = nullptr;
  for (const auto& c : considered) {
    // A rival step length: not a repetition inside the step (a divisor, or a stretch of layers
    // shorter than half of it), and nearly as good a match.
    if (2 * c.period > P && P % c.period != 0 && std::abs(c.match - period_match) <= 0.05)
      ++se.close_periods;
    if (!runner_up || c.match > runner_up->match) runner_up = &c;
  }
  std::vector<Alternative> step_alts;
  if (runner_up) {
    const size_t d = runner_up->period;
    step_alts.push_back(
        {"a period of " + num(d) + " dispatches (" + pct(runner_up->match) + " match)",
         P % d == 0 ? "it fits " + num(P / d) +
                          " times in a step: a repetition inside the step (layers), and the "
                          "largest period that repeats is the step"
         : runner_up->match < 0.5
             ? std::string("under the 50% match a period needs")
             // detect_period takes the largest distance that repeats at >= 50%, and weighs only
             // smaller ones after it: such a one may match better or worse, and loses either way
             // as a shorter repetition.
             : "the step is the largest period that repeats at 50% or more (" + num(P) +
                   "): a smaller one repeats at a shorter distance (a layer or an inner loop), "
                   "here " +
                   pct(runner_up->match) + " against the step's " + pct(period_match)});
  }
  if (det.timed && gs.rival_distance > 0)
    step_alts.push_back(
        {"boundaries " + num(gs.rival_distance) + " dispatches from these (host gaps of " +
             fmt_ns(gs.rival) + ")",
         "the gaps at these are " + times(gb, gs.rival) + " as long (" + fmt_ns(gb) + ")"});
  step_alts.push_back(
      det.timed ? Alternative{"one forward pass (no loop)",
                              num(se.regular) + " whole repetitions lie between host gaps"}
                : Alternative{"a layer or an inner loop of one pass",
                              "not ruled out: the trace has no timestamps to show host gaps"});
  step_findings(pm, det.timed, P, step_len, period_match, gs, se, std::move(step_alts),
                have_prefill ? &prefill_why : nullptr, prefill_why, prefill_conf, prefill.rejected);
  note_trailing_loops(pm, det, segs, P, step_len, ref);
  order_findings(pm);
  return pm;
}

}  // namespace kprof::analysis
