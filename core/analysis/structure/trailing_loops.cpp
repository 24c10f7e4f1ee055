// After the last step of the loop whose steps were established (phases.cpp), a trace may run a
// loop of its own (a benchmark's second phase, with other kernels). It is named in the notes with
// where it starts, its period and the kernels it launches that the steps do not; its dispatches
// stay phase unknown.
#include <algorithm>
#include <set>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {

void note_trailing_loops(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs,
                         size_t period, size_t step_len, size_t ref) {
  // What follows the last step may be a loop of its own (a benchmark's second phase, with other
  // kernels): its steps ended because it is not this step with a few kernels more or less. Say
  // that it repeats, with which kernels, rather than leaving it as anonymous "unknown" or calling
  // it irregular steps of the first loop. Only one loop's steps are established per trace, so it
  // keeps the phase unknown.
  for (const Seg& s : segs) {
    if (s.kind != SegKind::trail || s.end - s.begin < 2 * std::max<size_t>(period / 4, 8)) continue;
    // A trail that is the start of a step cut by the window's end is a partial step (its layers
    // repeat with a period of their own, but that is the step's inside, not another loop).
    if (s.end - s.begin < step_len &&
        aligned_match(det.names, ref, s.begin, s.end - s.begin) >= 0.9)
      continue;
    // The trail is read in place (it may be long: a loop of its own up to the trace's end).
    const auto& names = det.names;
    const size_t tb = s.begin, t_size = s.end - s.begin;
    const size_t p2 = detect_period(names, s.begin, s.end);
    if (p2 == 0 || p2 == step_len || 2 * p2 > t_size) continue;
    // Where that loop starts: the first position whose period-long stretch repeats one period
    // later exactly (98%), else at least 80%. Loops of one program share most kernels (copies
    // between launches), so a loose match also fires a little before the loop's true start.
    size_t start = t_size;
    for (double need : {0.98, 0.8}) {
      for (start = 0; start + 2 * p2 <= t_size; ++start)
        if (aligned_match(names, tb + start, tb + start + p2, p2) >= need) break;
      if (start + 2 * p2 <= t_size) break;
    }
    if (start + 2 * p2 > t_size) continue;
    const size_t loop_len = t_size - start;
    std::set<uint32_t> in_step;
    for (size_t i = ref; i < ref + step_len; ++i) in_step.insert(names[i]);
    std::set<uint32_t> own;
    for (size_t i = tb + start; i < s.end; ++i)
      if (!in_step.count(names[i])) own.insert(names[i]);
    std::string kernels;
    for (uint32_t x : own) {
      if (kernels.size() > 160) {
        kernels += ", ...";
        break;
      }
      kernels += (kernels.empty() ? "" : ", ") + det.name_of(x);
    }
    std::string before;
    if (start > 0)
      before = "; the " + num(start) + " dispatches between the last step and it " +
               (start < step_len && aligned_match(det.names, ref, s.begin, start) >= 0.9
                    ? "match the start of a step (a step left unfinished)"
                    : "are neither");
    pm.notes.push_back(observation(
        Topic::steps,
        "after the last step, from Dispatch_Id " +
            std::to_string(pm.order[s.begin + start].dispatch_id) + ", " + num(loop_len) +
            " dispatches repeat with a period of their own: " + num(p2) + " dispatches (" +
            pct(match_rate(names, p2, tb + start, s.end - p2)) + " match, about " +
            num(loop_len / p2) + " repetitions)" +
            (own.empty() ? std::string(", with the step's kernels in another order")
                         : ", with kernels the steps do not launch (" + kernels + ")") +
            ": another loop, not steps of this one; its role is not established (phase unknown)" +
            before));
  }
}

}  // namespace kprof::analysis::detail
