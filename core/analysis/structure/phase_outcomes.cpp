// The notes and findings of phase detection's outcomes (phase_detail.hpp): why steps or layers
// are not established, the layers of a step, and the evidence and alternatives of the steps.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis::detail {
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

// The layer finding of a step whose layers account for every kernel.
Finding layer_finding(const Detector& det, const LayerFit& lf, size_t step_len) {
  // A rival count that fits as regularly and is no divisor of this one contradicts it.
  const bool rival = lf.rival_fits && lf.rival_layers > 0 && lf.layers % lf.rival_layers != 0;
  const LayerEvidence le{lf.layers, lf.match, static_cast<size_t>(lf.layers) * lf.period,
                         step_len,  true,     rival ? lf.rival_layers : 0};
  std::vector<Alternative> alts;
  if (lf.rival_layers > 0)
    alts.push_back({std::to_string(lf.rival_layers) + " layers (" + det.name_of(lf.rival_anchor) +
                        " launches " + std::to_string(lf.rival_layers) + " times, every " +
                        num(lf.rival_period) + " dispatches)",
                    lf.rival_fits && !rival
                        ? std::to_string(lf.layers / lf.rival_layers) +
                              " layers apart: a kernel of every " +
                              std::to_string(lf.layers / lf.rival_layers) + "th layer"
                        : lf.rival_why});
  return {Topic::layers,
          std::to_string(lf.layers) + " layers per step, " + num(lf.period) + " dispatches each",
          det.name_of(lf.anchor) + " launches every " + num(lf.period) + " dispatches, " +
              std::to_string(lf.layers) + " times per step; that stretch of the step repeats " +
              "with the same period (" + pct(lf.match) + " match)",
          layer_confidence(le),
          std::move(alts),
          num(lf.agreeing) + " kernel" + (lf.agreeing == 1 ? "" : "s") +
              " launch once per layer at that distance; the layers hold " + num(le.covered) +
              " of the step's " + num(step_len) + " dispatches; every kernel of the layers " +
              "accounted for; " + (rival ? "a rival count fits as regularly" : "no rival count")};
}

// One pass of many layers without host gaps: its layer-like blocks, without calling them steps.
void note_unmarked_layers(PhaseModel& pm, const Detector& det, const Repetition& rep) {
  const LayerFit lf = detect_layers(det.names.slice(rep.begin, rep.end));
  if (lf.layers <= 1) return;
  pm.layers = lf.layers;
  pm.layer_period = lf.period;
  pm.findings.push_back(
      {Topic::layers,
       std::to_string(lf.layers) + " repeating blocks of about " + num(lf.period) +
           " dispatches, without host gaps between them",
       det.name_of(lf.anchor) + " launches once every " + num(lf.period) + " dispatches, " +
           std::to_string(lf.layers) + " times; the stretch repeats with that period (" +
           pct(lf.match) + " match). These may be the layers of one forward pass or an inner loop",
       Confidence::low,
       {{"steps of " + num(rep.period) + " dispatches", "no host gap marks their boundaries"}},
       ""});
}

}  // namespace

void note_no_repetition(PhaseModel& pm, const Detector& det) {
  const size_t n = det.names.size();
  // A windowed trace whose windows each hold the same launches (names, grids, workgroups): the
  // repetition is across windows, one per window, which the period search inside a window cannot
  // see. Not a step (the cuts are the windows', not host gaps), but no harness either.
  size_t len = 0;
  if (const size_t same = alike_windows(pm, det, len); same >= 2) {
    pm.notes.push_back(not_established(
        Topic::steps, std::to_string(same) + " of the " + num(pm.windows.size()) +
                          " windows hold the same sequence of " + num(len) +
                          " launches (kernel names, grids and workgroups), one repetition per "
                          "window: the trace repeats across its windows (a generation loop "
                          "captured a step at a time is possible), but the window cuts, not "
                          "host gaps, bound each repetition, so steps are not established"));
    return;
  }
  std::unordered_map<uint32_t, int> distinct;
  for (size_t i = 0; i < n; ++i) ++distinct[det.names[i]];
  // One kernel launched over and over (a kernel benchmark) repeats trivially, but a period of
  // one launch is no forward pass: say what it is rather than "does not repeat".
  pm.notes.push_back(not_established(
      Topic::steps,
      distinct.size() == 1
          ? "all " + num(n) + " dispatches launch one kernel (" + det.name_of(det.names.front()) +
                "): a kernel launched repeatedly, as a kernel benchmark does, not the many "
                "kernels of a forward pass"
          : "the kernel-name sequence does not repeat (" + num(n) + " dispatches of " +
                num(distinct.size()) +
                " kernels); this looks like set-up or a test harness, not a generation loop"));
}

void note_unmarked_repetition(PhaseModel& pm, const Detector& det, const Repetition& rep,
                              const GapStats& gs, size_t repetitions, bool layer_blocks) {
  const std::string what = "the kernel-name sequence repeats every " + num(rep.period) +
                           " dispatches (" + pct(rep.match) + " match)";
  if (rep.end - rep.begin < 2 * rep.period) {
    pm.notes.push_back(
        not_established(Topic::steps, what + ", but no window holds two repetitions to compare"));
  } else if (layer_blocks) {
    // The host stops as long at another place of each repetition: its gaps cut smaller units
    // (the layers of one pass, each followed by a host sync), and one pass's blocks of alike
    // layers repeat like steps.
    pm.notes.push_back(not_established(
        Topic::steps,
        what + ", but host gaps as long as those at its best boundary (" + fmt_ns(gs.between) +
            ") also sit " + num(gs.rival_distance) + " dispatches from it (" + fmt_ns(gs.rival) +
            ", against " + fmt_ns(gs.inside) + " inside); the host stops at " +
            num(gs.rival_places + 1) +
            " places of each repetition and its longest run holds only " + num(repetitions) +
            " repetitions (a generation loop turns more often than the units each turn is cut "
            "into): the gaps mark smaller units within each repetition, not its boundaries; "
            "the repeating unit may be a block of layers of one forward pass, not a step"));
  } else {
    pm.notes.push_back(not_established(
        Topic::steps, what + ", but no host gap marks its boundaries (median " +
                          fmt_ns(gs.between) + " at the best boundary vs " + fmt_ns(gs.inside) +
                          " inside); the repeating unit may be a layer or an inner loop of one "
                          "pass, not a step"));
    note_unmarked_layers(pm, det, rep);
  }
}

void note_step_layers(PhaseModel& pm, const Detector& det, const std::vector<Seg>& segs, size_t ref,
                      size_t step_len) {
  std::vector<const Seg*> regular;
  for (const auto& s : segs)
    if (s.kind == SegKind::step && is_regular_step(det.names, s, ref, step_len))
      regular.push_back(&s);
  const Seg* middle = regular[regular.size() / 2];
  const LayerFit lf = detect_layers(det.names.slice(middle->begin, middle->end));
  pm.layers = lf.accounted() ? lf.layers : 0;
  pm.layer_period = lf.accounted() ? lf.period : 0;
  if (lf.layers > 0 && !lf.accounted())
    pm.notes.push_back(not_established(Topic::layers, layer_conflict(det, lf)));
  else if (lf.layers > 0)
    pm.findings.push_back(layer_finding(det, lf, step_len));
  else
    pm.notes.push_back(not_established(Topic::layers,
                                       "no kernel launches at a regular distance over at least "
                                       "half of a step"));
}

bool demote_single_pass(PhaseModel& pm, const Repetition& rep, size_t step_len, bool have_prefill) {
  // A step is a claim about a loop, and a loop needs two turns to show (the rest, cut by the
  // trace's ends, proves nothing).
  if (have_prefill || pm.decode_steps + pm.role_unknown_steps >= 2) return false;
  size_t partial = 0;
  for (const auto& st : pm.steps) partial += st.phase == Phase::partial ? st.end - st.begin : 0;
  const int whole = pm.role_unknown_steps;
  pm.prefill_steps = pm.decode_steps = pm.role_unknown_steps = pm.irregular_steps = 0;
  mark_windows_unknown(pm);
  pm.step_period = 0;
  pm.method = "none";
  pm.notes.push_back(not_established(
      Topic::steps, "the kernel-name sequence repeats every " + num(rep.period) + " dispatches (" +
                        pct(rep.match) + " match), but only " + std::to_string(whole) +
                        " whole repetition" + (whole == 1 ? "" : "s") + " of " + num(step_len) +
                        " dispatches lies between host gaps (" + num(partial) +
                        " more in repetitions cut by the trace's ends): one forward pass is "
                        "not a repeated step"));
  // Layers of that one pass may be right, but one pass cannot confirm them.
  for (auto& f : pm.findings)
    if (f.topic == Topic::layers) f.confidence = Confidence::low;
  return true;
}

StepEvidence step_evidence(const PhaseModel& pm, const Detector& det, const Repetition& rep,
                           const GapStats& gs, const std::vector<PeriodCandidate>& considered,
                           size_t ref, size_t step_len) {
  StepEvidence se;
  se.timed = det.timed;
  se.regular = static_cast<size_t>(pm.decode_steps + pm.role_unknown_steps);
  se.irregular = static_cast<size_t>(pm.irregular_steps);
  se.dispatches = det.names.size();
  for (const auto& st : pm.steps) {
    if (st.phase != Phase::decode && st.phase != Phase::step) continue;
    se.explained += st.end - st.begin;
    se.identical += aligned_match(det.ids_as_names, ref, st.begin, step_len) >= 0.9;
  }
  se.gap_ratio = det.timed ? gs.between / std::max({gs.inside, gs.rival, 1.0}) : 0;
  // A rival step length: not a repetition inside the step (a divisor, or a stretch of layers
  // shorter than half of it), and nearly as good a match.
  for (const auto& c : considered)
    if (2 * c.period > rep.period && rep.period % c.period != 0 &&
        std::abs(c.match - rep.match) <= 0.05)
      ++se.close_periods;
  return se;
}

std::vector<Alternative> step_alternatives(bool timed, const Repetition& rep, const GapStats& gs,
                                           const std::vector<PeriodCandidate>& considered,
                                           size_t regular_steps) {
  const size_t P = rep.period;
  const PeriodCandidate* runner_up = nullptr;
  for (const auto& c : considered)
    if (!runner_up || c.match > runner_up->match) runner_up = &c;
  std::vector<Alternative> alts;
  if (runner_up) {
    const size_t d = runner_up->period;
    alts.push_back(
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
                   pct(runner_up->match) + " against the step's " + pct(rep.match)});
  }
  if (timed && gs.rival_distance > 0)
    alts.push_back({"boundaries " + num(gs.rival_distance) +
                        " dispatches from these (host gaps of " + fmt_ns(gs.rival) + ")",
                    "the gaps at these are " + times(gs.between, gs.rival) + " as long (" +
                        fmt_ns(gs.between) + ")"});
  alts.push_back(timed
                     ? Alternative{"one forward pass (no loop)",
                                   num(regular_steps) + " whole repetitions lie between host gaps"}
                     : Alternative{"a layer or an inner loop of one pass",
                                   "not ruled out: the trace has no timestamps to show host gaps"});
  return alts;
}

}  // namespace kprof::analysis::detail
