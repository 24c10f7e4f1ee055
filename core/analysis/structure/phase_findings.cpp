// The sentences of phase detection's findings.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>

#include "core/analysis/structure/phase_detail.hpp"

namespace kprof::analysis {

std::string_view to_string(Topic t) {
  switch (t) {
    case Topic::windows:
      return "windows";
    case Topic::steps:
      return "steps";
    case Topic::prefill:
      return "prefill";
    case Topic::decode:
      return "decode";
    case Topic::layers:
      return "layers";
  }
  return "steps";
}

std::string Note::line() const {
  if (kind == NoteKind::not_established && topic)
    return std::string(to_string(*topic)) + ": not established: " + text;
  return text;
}

Note not_established(Topic topic, std::string why) {
  return {NoteKind::not_established, topic, std::move(why)};
}

Note observation(std::optional<Topic> topic, std::string text) {
  return {NoteKind::observation, topic, std::move(text)};
}

Confidence step_confidence(const StepEvidence& e) {
  if (!e.timed) return Confidence::low;
  if (e.regular >= 3 && e.irregular * 10 <= e.regular && e.identical * 10 >= e.regular * 9 &&
      e.gap_ratio >= 10 && e.explained * 2 >= e.dispatches && e.close_periods == 0)
    return Confidence::high;
  if (e.regular >= 2 && e.irregular <= e.regular && e.gap_ratio >= 3) return Confidence::medium;
  return Confidence::low;
}

Confidence layer_confidence(const LayerEvidence& e) {
  if (!e.accounted || e.layers < 2) return Confidence::low;
  if (e.match >= 0.9 && e.layers >= 4 && e.covered * 10 >= e.step * 8 && e.rival_layers == 0)
    return Confidence::high;
  return e.match >= 0.5 ? Confidence::medium : Confidence::low;
}

std::string PhaseModel::stream_name() const {
  const std::string agent = "agent " + std::to_string(main_agent);
  return main_pid == 0 ? agent +
                             " of a process the trace does not name (no Process_Id column, "
                             "no <pid>_ file-name prefix)"
                       : "pid " + std::to_string(main_pid) + ", " + agent;
}

}  // namespace kprof::analysis

namespace kprof::analysis::detail {

Finding windows_finding(const std::vector<Window>& windows, const WindowScan& scan) {
  std::string ev;
  Finding f{Topic::windows, "", "", Confidence::high, {}, ""};
  const auto& w0 = windows.front();
  const int64_t scattered_holes = scan.scattered_holes, scattered_missing = scan.scattered_missing;
  {
    if (windows.size() > 1) {
      int64_t missing = 0;
      for (size_t i = 1; i < windows.size(); ++i) missing += windows[i].missing_before;
      f.claim = "windowed trace: " + num(windows.size()) + " windows";
      for (size_t i = 0; i < windows.size() && i < 6; ++i) {
        const auto& w = windows[i];
        ev += (i ? "; " : "") + std::string("Dispatch_Id ") + std::to_string(w.first_id) + "-" +
              std::to_string(w.last_id) + " (" + num(w.end - w.begin) + " dispatches" +
              (i ? ", after " + fmt_ns(static_cast<double>(w.gap_before_ns)) + " idle" : "") + ")";
      }
      if (windows.size() > 6) ev += "; ...";
      f.evidence = ev + ". " + std::to_string(missing) +
                   " dispatches between the windows ran but are not in the trace";
    } else {
      f.claim = "one window: Dispatch_Id " + std::to_string(w0.first_id) + "-" +
                std::to_string(w0.last_id) +
                (scattered_holes ? std::string(" with scattered holes") : " with none missing");
      f.evidence =
          scattered_holes
              ? std::string("no large run of Dispatch_Ids is missing")
              : "every Dispatch_Id of the process between the first and the last is traced";
    }
    if (scattered_holes > 0) {
      f.evidence += "; " + std::to_string(scattered_missing) + " dispatches of the process are " +
                    "missing in " + std::to_string(scattered_holes) +
                    " small holes spread over the trace (a kernel filter, not windows)";
    }
    // The other reading of the same ids, and why it lost.
    if (windows.size() > 1) {
      int64_t smallest = INT64_MAX;
      for (size_t i = 1; i < windows.size(); ++i)
        smallest = std::min(smallest, windows[i].missing_before);
      f.alternatives.push_back(
          {"one continuous trace", std::to_string(windows.size() - 1) +
                                       " runs of missing Dispatch_Ids, the smallest of " +
                                       std::to_string(smallest) + ", cut it"});
    } else {
      f.alternatives.push_back(
          {"a windowed trace",
           scattered_holes ? std::to_string(scattered_holes) + " holes of " +
                                 std::to_string(scattered_missing) +
                                 " ids in all, spread over the trace, none large enough to cut it"
                           : std::string("no Dispatch_Id of the process is missing")});
    }
    if (w0.missing_before > 0) {
      f.evidence += "; the trace starts at Dispatch_Id " + std::to_string(w0.first_id) + ": " +
                    std::to_string(w0.missing_before) +
                    " earlier dispatches were not traced (--selected-regions, a kernel filter or "
                    "a cut file)";
    }
  }
  return f;
}

// Findings in reading order: how the trace was cut, then steps, their roles, then layers.
void order_findings(PhaseModel& pm) {
  std::stable_sort(pm.findings.begin(), pm.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.topic < b.topic; });
}

void step_findings(PhaseModel& pm, bool timed, size_t P, size_t step_len, double period_match,
                   const GapStats& gs, const StepEvidence& se, std::vector<Alternative> step_alts,
                   const std::string* prefill_evidence, const std::string& prefill_why,
                   Confidence prefill_conf, std::vector<Alternative> prefill_alts) {
  const bool have_prefill = prefill_evidence != nullptr;
  const size_t regular = pm.decode_steps + pm.role_unknown_steps;
  std::string ev = "the kernel-name sequence repeats every " + num(P) + " dispatches (" +
                   pct(period_match) + " match)";
  if (timed) {
    ev += "; step boundaries sit at host gaps (about " + fmt_ns(gs.between) + " between steps vs " +
          fmt_ns(gs.inside) + " inside a step)";
  } else {
    ev += "; the trace has no timestamps, so boundaries are assumed at period multiples";
  }
  std::string counts = num(se.identical) + " of the " + num(regular) +
                       " regular steps launch the reference step's kernels with its grids and "
                       "workgroups; " +
                       num(se.explained) + " of the stream's " + num(se.dispatches) +
                       " dispatches lie in regular steps; " + num(se.irregular) + " irregular";
  if (timed) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", se.gap_ratio);
    counts += "; boundary gaps " + std::string(ratio) +
              "x the larger of the in-step median and the next-best boundary's";
  }
  counts += "; " + num(se.close_periods) + " other period" + (se.close_periods == 1 ? "" : "s") +
            " within 5 points of the match";
  pm.findings.push_back({Topic::steps,
                         num(regular) + " repeated steps of " + num(step_len) + " dispatches" +
                             (pm.windowed() ? " in " + num(pm.windows.size()) + " windows" : ""),
                         ev, step_confidence(se), std::move(step_alts), counts});
  if (have_prefill) {
    const auto& p = *std::find_if(pm.steps.begin(), pm.steps.end(),
                                  [](const Step& s) { return s.phase == Phase::prefill; });
    pm.findings.push_back({Topic::prefill,
                           "1 prefill step of " + num(p.end - p.begin) + " dispatches", prefill_why,
                           prefill_conf, std::move(prefill_alts), ""});
    pm.findings.push_back(
        {Topic::decode,
         num(pm.decode_steps) + " decode steps",
         "the regular repeated steps after the prefill (one forward pass per generated token)",
         prefill_conf,
         {{"repeated forward passes of separate requests",
           "the " + num(pm.decode_steps) + " steps follow the established prefill"}},
         ""});
  } else {
    pm.notes.push_back(not_established(
        Topic::prefill,
        (prefill_why.empty()
             ? std::string("nothing precedes the first repeated step")
             : "what precedes the repeated steps does not qualify: " + prefill_why) +
            ". So the role of the " + num(regular) +
            " repeated steps is not established either (decode steps of a generation, or "
            "repeated forward passes): they are reported as 'step'"));
  }
  if (pm.irregular_steps > 0) {
    std::map<size_t, int> lens;
    for (const auto& s : pm.steps)
      if (s.phase == Phase::irregular) ++lens[s.end - s.begin];
    std::string l;
    for (auto [len, c2] : lens) l += (l.empty() ? "" : ", ") + num(len);
    pm.notes.push_back(observation(
        Topic::steps, std::to_string(pm.irregular_steps) + " step" +
                          (pm.irregular_steps > 1 ? "s differ" : " differs") +
                          " from the regular " + num(step_len) + "-dispatch step (lengths " + l +
                          "): reported as irregular, with no role"));
  }
  size_t partial = 0, unknown = 0;
  for (const auto& s : pm.steps) {
    partial += s.phase == Phase::partial ? s.end - s.begin : 0;
    unknown += s.phase == Phase::unknown ? s.end - s.begin : 0;
  }
  if (partial)
    pm.notes.push_back(observation(
        Topic::steps,
        num(partial) + " dispatches belong to steps cut by a window or trace boundary (partial)"));
  if (unknown)
    pm.notes.push_back(observation(
        Topic::steps, num(unknown) + " dispatches belong to no step (unknown: set-up, warm-up or "
                                     "other work before or after the repeated steps)"));
}

}  // namespace kprof::analysis::detail
