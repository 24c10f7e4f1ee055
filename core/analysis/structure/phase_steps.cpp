// The steps of phase detection that shape the model (phase_detail.hpp): launches, the period, the
// reference run, the regular step length and the phases of the segments.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {

void read_launches(Detector& det, const std::vector<Window>& windows) {
  // Launch identity (name, grid, workgroup) packed into one hash key.
  std::unordered_map<uint64_t, uint64_t> intern;
  size_t window = 0;
  int64_t previous_end = 0;
  for (size_t i = 0; i < det.order.size(); ++i) {
    const Dispatch d = det.order[i];
    det.names.push_back(d.name);
    const KernelShape& shape = det.pass.shape(d);
    const uint64_t key = (static_cast<uint64_t>(d.name) * 0x9E3779B97F4A7C15ull) ^
                         (static_cast<uint64_t>(shape.grid_product()) * 0xC2B2AE3D27D4EB4Full) ^
                         static_cast<uint64_t>(shape.wg_product());
    det.ids_as_names.push_back(
        static_cast<uint32_t>(intern.try_emplace(key, intern.size()).first->second));
    while (window + 1 < windows.size() && windows[window + 1].begin <= i) ++window;
    if (i > windows[window].begin) det.timed |= d.start_ns > previous_end;
    previous_end = d.end_ns;
  }
}

PeriodChoice choose_period(const SpillVector<uint32_t>& names, const std::vector<Window>& windows) {
  auto length = [&](size_t w) { return windows[w].end - windows[w].begin; };
  PeriodChoice choice;
  for (size_t i = 1; i < windows.size(); ++i)
    if (length(i) > length(choice.window)) choice.window = i;
  if (names.size() < 8) return choice;
  std::vector<size_t> longest_first(windows.size());
  for (size_t i = 0; i < longest_first.size(); ++i) longest_first[i] = i;
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [&](size_t a, size_t b) { return length(a) > length(b); });
  for (size_t w : longest_first) {
    if (length(w) < 8) break;
    choice.considered.clear();
    choice.period = detect_period(names, windows[w].begin, windows[w].end, 0, &choice.considered);
    if (choice.period) {
      choice.window = w;
      break;
    }
  }
  return choice;
}

ReferenceRun find_reference_run(const SpillVector<uint32_t>& names, size_t period, size_t b,
                                size_t e, bool timed, const std::function<bool(size_t)>& at_gap) {
  // Not the first repeated stretch: warm-up (a warm-up request, set-up launches) may repeat a few
  // times before the measured steps, at other boundaries. With a host gap at every layer each
  // layer's offset starts a run as long as the steps' own (a period shifted by a layer repeats
  // too), hence the cap on comparisons; the steps' own run is weighed first (a step's start comes
  // before its layers'), and the 1024 spare comparisons are for warm-up runs and boundaries that
  // do not repeat before it.
  ReferenceRun ref;
  ref.begin = b;
  size_t budget = (e - b) / period + 1024;
  auto repeats = [&](size_t i) {
    if (budget == 0) return false;
    --budget;
    return aligned_match(names, i, i + period, period) >= 0.9;
  };
  auto boundary = [&](size_t i) { return i == b || !timed || at_gap(i); };
  std::unordered_map<size_t, size_t> weighed;  // offset modulo period -> end of the run weighed
  size_t runs = 0;
  for (size_t i = b; i + 2 * period <= e && runs < 256 && budget > 0; ++i) {
    if (!boundary(i)) continue;
    const auto w = weighed.find(i % period);
    if (w != weighed.end() && i < w->second) continue;  // inside a run already weighed
    if (!repeats(i)) continue;
    ref.starts_run = true;
    if (!timed) {
      ref.begin = i;
      break;
    }
    ++runs;
    size_t run = 1, j = i + period;
    for (; j + 2 * period <= e && boundary(j) && repeats(j); j += period) ++run;
    weighed[i % period] = j + 1;
    if (run > ref.run) ref.run = run, ref.begin = i;
  }
  return ref;
}

bool gaps_cut_layer_blocks(const GapStats& gs, bool timed, size_t repetitions) {
  // A pass has few such blocks: the gemma4 reader's pass repeats its block of 5 layers 3 times (5
  // host-stop places each), a decode loop repeats its step once a token, tens of times.
  return timed && gs.marks_steps && gs.close_rival() &&
         (repetitions <= 2 || repetitions < gs.rival_places + 1);
}

StepLength most_common_step_length(const std::vector<Seg>& segs, size_t period) {
  std::map<size_t, size_t> lengths;
  for (const auto& s : segs)
    if (s.kind == SegKind::step) ++lengths[s.end - s.begin];
  StepLength best;
  for (auto [length, count] : lengths)
    if (count > best.count || (count == best.count && length == period)) best = {length, count};
  return best;
}

size_t regular_reference(const SpillVector<uint32_t>& ids, const std::vector<Seg>& segs,
                         size_t step_len, size_t fallback) {
  auto regular_length = [&](const Seg& s) {
    return s.kind == SegKind::step && s.end - s.begin == step_len;
  };
  const Seg* prev = nullptr;
  for (const auto& s : segs) {
    if (!regular_length(s)) {
      prev = nullptr;
      continue;
    }
    if (prev && aligned_match(ids, prev->begin, s.begin, step_len) >= 0.9) return prev->begin;
    prev = &s;
  }
  for (const auto& s : segs)
    if (regular_length(s)) return s.begin;
  return fallback;
}

bool is_regular_step(const SpillVector<uint32_t>& names, const Seg& s, size_t ref,
                     size_t step_len) {
  return s.end - s.begin == step_len && aligned_match(names, ref, s.begin, step_len) >= 0.9;
}

void mark_windows_unknown(PhaseModel& pm) {
  pm.steps.clear();
  for (size_t w = 0; w < pm.windows.size(); ++w)
    pm.steps.push_back(
        {pm.windows[w].begin, pm.windows[w].end, Phase::unknown, static_cast<int>(w)});
}

void count_phases(PhaseModel& pm) {
  for (const auto& s : pm.steps) {
    pm.prefill_steps += s.phase == Phase::prefill;
    pm.decode_steps += s.phase == Phase::decode;
    pm.role_unknown_steps += s.phase == Phase::step;
    pm.irregular_steps += s.phase == Phase::irregular;
  }
}

void assign_phases(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs,
                   const PrefillChoice& prefill, size_t ref, size_t step_len) {
  const bool have_prefill = prefill.seg.has_value();
  for (size_t si = 0; si < segs.size(); ++si) {
    const Seg& s = segs[si];
    auto push = [&](size_t b, size_t e, Phase p) {
      if (e > b) pm.steps.push_back({b, e, p, s.window});
    };
    if (prefill.seg && si == *prefill.seg) {
      const size_t start = prefill.split.value_or(s.begin);
      push(s.begin, start, Phase::unknown);
      push(start, s.end, Phase::prefill);
      continue;
    }
    const size_t len = s.end - s.begin;
    switch (s.kind) {
      case SegKind::step:
        push(s.begin, s.end,
             is_regular_step(det.names, s, ref, step_len)
                 ? (have_prefill ? Phase::decode : Phase::step)
                 : Phase::irregular);
        break;
      case SegKind::lead: {
        // A lead shorter than a step that matches the end of a step: the window cut a step.
        const bool partial =
            len < step_len && aligned_match(det.names, ref + step_len - len, s.begin, len) >= 0.9;
        push(s.begin, s.end, partial ? Phase::partial : Phase::unknown);
        break;
      }
      case SegKind::trail: {
        const bool partial = len < step_len && aligned_match(det.names, ref, s.begin, len) >= 0.9;
        push(s.begin, s.end, partial ? Phase::partial : Phase::unknown);
        break;
      }
    }
  }
}

}  // namespace kprof::analysis::detail
