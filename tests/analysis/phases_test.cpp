#include "core/analysis/structure/phases.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/analysis/outline/claims.hpp"
#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

int count_phase(const PhaseModel& pm, Phase p) {
  int n = 0;
  for (const auto& s : pm.steps) n += s.phase == p;
  return n;
}

bool has_finding(const PhaseModel& pm, Topic topic) {
  return std::any_of(pm.findings.begin(), pm.findings.end(),
                     [&](const Finding& f) { return f.topic == topic; });
}

bool note_mentions(const PhaseModel& pm, const std::string& text) {
  return std::any_of(pm.notes.begin(), pm.notes.end(),
                     [&](const Note& n) { return n.line().find(text) != std::string::npos; });
}

// Whether the model says, as a field, that it could not establish `topic`.
bool not_established_about(const PhaseModel& pm, Topic topic) {
  return std::any_of(pm.notes.begin(), pm.notes.end(), [&](const Note& n) {
    return n.kind == NoteKind::not_established && n.topic == topic;
  });
}

// The bounded first export detects phases on a copy of the main stream whose columns
// spill to a file (here in blocks of 14 dispatches and 146 names, so nearly every read pattern
// crosses blocks). Its model must be the in-memory one, field for field and word for word.
void expect_bounded_same(const PassData& p, const NameTable& names, const PhaseModel& pm) {
  constexpr size_t k_spill = 4096;
  SpillVector<Dispatch> records(k_spill);
  for (size_t i = 0; i < pm.order.size(); ++i) records.push_back(pm.order[i]);
  std::vector<int64_t> ids;
  for (const auto& d : p.dispatches)
    if (d.pid == pm.main_pid) ids.push_back(d.dispatch_id);
  std::sort(ids.begin(), ids.end());
  SpillVector<int64_t> process_ids(k_spill);
  if (ids.size() > pm.order.size())
    for (int64_t id : ids) process_ids.push_back(id);
  const PhaseModel b =
      detect_phases(p, MainStream(std::move(records)), std::move(process_ids), &names, k_spill);
  ASSERT_EQ(b.order.size(), pm.order.size());
  EXPECT_EQ(b.method, pm.method);
  EXPECT_EQ(b.step_period, pm.step_period);
  EXPECT_EQ(b.layer_period, pm.layer_period);
  EXPECT_EQ(b.layers, pm.layers);
  EXPECT_EQ(b.prefill_steps, pm.prefill_steps);
  EXPECT_EQ(b.decode_steps, pm.decode_steps);
  EXPECT_EQ(b.role_unknown_steps, pm.role_unknown_steps);
  EXPECT_EQ(b.irregular_steps, pm.irregular_steps);
  EXPECT_EQ(b.main_pid, pm.main_pid);
  EXPECT_EQ(b.main_agent, pm.main_agent);
  ASSERT_EQ(b.windows.size(), pm.windows.size());
  for (size_t i = 0; i < b.windows.size(); ++i) {
    EXPECT_EQ(b.windows[i].begin, pm.windows[i].begin);
    EXPECT_EQ(b.windows[i].end, pm.windows[i].end);
    EXPECT_EQ(b.windows[i].missing_before, pm.windows[i].missing_before);
    EXPECT_EQ(b.windows[i].gap_before_ns, pm.windows[i].gap_before_ns);
  }
  ASSERT_EQ(b.steps.size(), pm.steps.size());
  for (size_t i = 0; i < b.steps.size(); ++i) {
    EXPECT_EQ(b.steps[i].begin, pm.steps[i].begin) << i;
    EXPECT_EQ(b.steps[i].end, pm.steps[i].end) << i;
    EXPECT_EQ(b.steps[i].phase, pm.steps[i].phase) << i;
  }
  ASSERT_EQ(b.findings.size(), pm.findings.size());
  for (size_t i = 0; i < b.findings.size(); ++i) {
    EXPECT_EQ(b.findings[i].claim, pm.findings[i].claim);
    EXPECT_EQ(b.findings[i].evidence, pm.findings[i].evidence);
  }
  // The trace-level detection adds one note on other streams, after the stream's own.
  const size_t own_notes = pm.notes.size() - (pm.other_dispatches > 0 ? 1 : 0);
  ASSERT_EQ(b.notes.size(), own_notes);
  for (size_t i = 0; i < own_notes; ++i) EXPECT_EQ(b.notes[i].line(), pm.notes[i].line());
}

TEST(Period, FindsTheStepPeriodNotTheLayerPeriod) {
  // 10 steps of [head, 6 × (a b c), tail]: step period 20, layer period 3.
  std::vector<uint32_t> s;
  for (int step = 0; step < 10; ++step) {
    s.push_back(100);
    for (int l = 0; l < 6; ++l) s.insert(s.end(), {1, 2, 3});
    s.push_back(200);
  }
  EXPECT_EQ(detect_period(s, 4), 20u);
}

TEST(Period, NoPeriodInAnAperiodicSequence) {
  std::vector<uint32_t> s;
  for (uint32_t i = 0; i < 500; ++i) s.push_back(i);
  EXPECT_EQ(detect_period(s), 0u);
}

TEST(Layers, RegularAnchorGivesLayerCount) {
  std::vector<uint32_t> t = {100};
  for (int l = 0; l < 48; ++l) t.insert(t.end(), {1, 2, 1, 3, 4, 5, 4});
  t.insert(t.end(), {200, 201});
  const LayerFit f = detect_layers(t);
  EXPECT_EQ(f.layers, 48);
  EXPECT_EQ(f.period, 7u);
  EXPECT_EQ(f.anchor, 2u);  // the first kernel (by name id) that launches once per layer
  EXPECT_GT(f.match, 0.99);
}

TEST(Layers, HybridModelWithEveryFourthLayerDifferentCountsAllLayers) {
  // Like Qwen3.5: 3 linear-attention layers then 1 full-attention layer, each with one MLP
  // activation kernel (9) at a nearly regular distance.
  std::vector<uint32_t> t;
  for (int g = 0; g < 8; ++g) {
    for (int l = 0; l < 3; ++l) t.insert(t.end(), {1, 2, 2, 3, 4, 5, 9, 6, 7});
    t.insert(t.end(), {1, 2, 8, 8, 4, 5, 9, 6, 7});
  }
  const LayerFit f = detect_layers(t);
  EXPECT_EQ(f.layers, 32);
  EXPECT_EQ(f.period, 9u);
}

// Each 24-dispatch block of a step is 4 layers: 3 of one attention kind (X a1 a2 a3 a4) and 1 of
// another (X b1 ... b8). X launches once per layer but at uneven distances (5, 5, 5, 9), so it is
// no regular anchor; b1 launches once per block, regularly. "3 layers" accounts for b1 but not for
// X (12 launches, alike stretches between them): the count is not established.
std::vector<uint32_t> four_layer_blocks(int blocks) {
  std::vector<uint32_t> t = {100};
  for (int b = 0; b < blocks; ++b) {
    for (int l = 0; l < 3; ++l) t.insert(t.end(), {9, 1, 2, 3, 4});
    t.insert(t.end(), {9, 11, 12, 13, 14, 15, 16, 17, 18});
  }
  t.push_back(200);
  return t;
}

TEST(Layers, ACountThatLeavesAPerLayerKernelUnexplainedIsNotEstablished) {
  const LayerFit f = detect_layers(four_layer_blocks(3));
  EXPECT_EQ(f.layers, 3);
  EXPECT_EQ(f.period, 24u);
  EXPECT_FALSE(f.accounted());
  // The first such kernel by name id: a1 (1), 9 launches, 3 per block (X, 9, launches 12).
  EXPECT_EQ(f.conflict, 1u);
  EXPECT_EQ(f.conflict_count, 9u);
  EXPECT_TRUE(f.finer);
}

TEST(Phases, ALayerCountMustAccountForEveryKernelOfTheStep) {
  NameTable names;
  test::Workload w;
  w.layers = 3;
  w.decode_steps = 6;
  w.per_step_head = {{"embed", 4096, 256}};
  for (int l = 0; l < 3; ++l)
    for (const char* k : {"X_norm", "a1", "a2", "a3", "a4"}) w.per_layer.push_back({k, 4096, 256});
  for (const char* k : {"X_norm", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"})
    w.per_layer.push_back({k, 4096, 256});
  w.per_step_tail = {{"logits", 4096, 256}};
  const PassData p = test::build(w, names);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, 1u + 3 * 24 + 1);
  EXPECT_FALSE(has_finding(pm, Topic::layers));
  EXPECT_EQ(pm.layers, 0);
  EXPECT_TRUE(not_established_about(pm, Topic::layers));
  EXPECT_TRUE(note_mentions(pm, "X_norm launches 12 times")) << pm.notes.front().line();
}

// One whole forward pass between two cut ones (the trace starts and ends inside a pass): one
// repetition is no repeated step, whatever the period says.
TEST(Phases, OneForwardPassIsNotARepeatedStep) {
  NameTable names;
  const PassData full = test::build(test::moe_like(4, 3), names);
  const size_t per_step = 1 + 4 * 8 + 2;
  PassData p = full;
  p.dispatches.assign(full.dispatches.begin() + static_cast<long>(per_step + 5),
                      full.dispatches.end() - 5);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_FALSE(has_finding(pm, Topic::steps));
  EXPECT_TRUE(not_established_about(pm, Topic::steps));
  EXPECT_TRUE(note_mentions(pm, "one forward pass is not a repeated step"));
  EXPECT_EQ(pm.role_unknown_steps, 0);
  EXPECT_EQ(pm.step_period, 0u);
  EXPECT_EQ(count_phase(pm, Phase::step), 0);
}

// A decode trace captured one step per window (--selected-regions around single steps): no window
// holds two repetitions, but every window holds the same launches. That is no harness: the
// repetition is across windows, and steps stay not established with that reason.
TEST(Phases, WindowsOfOneIdenticalStepEachAreNotCalledAHarness) {
  NameTable names;
  const PassData full = test::build(test::moe_like(1, 10), names);
  const size_t per_step = 1 + 1 * 8 + 2;
  PassData p = full;
  p.dispatches.clear();
  for (const size_t step : {2u, 5u, 8u})
    for (size_t i = step * per_step; i < (step + 1) * per_step; ++i)
      p.dispatches.push_back(full.dispatches[i]);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  ASSERT_EQ(pm.windows.size(), 3u);
  EXPECT_FALSE(has_finding(pm, Topic::steps));
  EXPECT_TRUE(not_established_about(pm, Topic::steps));
  EXPECT_TRUE(note_mentions(pm, "3 of the 3 windows hold the same sequence of 11 launches"));
  EXPECT_FALSE(note_mentions(pm, "not a generation loop"));
}

TEST(Phases, PrefillOnShapeEvidenceAndDecodeStepsAndLayers) {
  NameTable names;
  const PassData p = test::build(test::moe_like(48, 63), names);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.method, "period+gaps");
  EXPECT_EQ(pm.step_period, 1u + 48 * 8 + 2);
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 63);
  EXPECT_EQ(pm.role_unknown_steps, 0);
  EXPECT_EQ(pm.irregular_steps, 0);
  EXPECT_EQ(pm.layers, 48);
  EXPECT_EQ(pm.layer_period, 8u);
  ASSERT_EQ(pm.steps.size(), 64u);
  EXPECT_EQ(pm.steps[0].phase, Phase::prefill);
  EXPECT_EQ(pm.steps[0].begin, 0u);
  EXPECT_EQ(pm.steps[1].begin, pm.step_period);
  EXPECT_EQ(pm.steps.back().end, p.dispatches.size());
  EXPECT_FALSE(pm.windowed());
  ASSERT_TRUE(has_finding(pm, Topic::prefill));
  for (const auto& f : pm.findings) {
    if (f.topic != Topic::prefill) continue;
    EXPECT_EQ(f.confidence, Confidence::high);
    // 8 of the 9 shared kernels launch larger grids in the prefill (argmax does not).
    EXPECT_NE(f.evidence.find("8 of the 9 kernels"), std::string::npos) << f.evidence;
    EXPECT_NE(f.evidence.find("same 48 layers"), std::string::npos) << f.evidence;
  }
  EXPECT_TRUE(pm.notes.empty()) << pm.notes.front().line();
}

// The layers claim lists only the candidates the detector weighed. Here rms_norm launches twice per
// layer at uneven distances (3 and 5 in each 8-kernel layer), so a fixed "layers of two kinds: no
// kernel launches a whole number of times per layer at uneven distances" would be false.
TEST(Phases, LayersAlternativesAreOnlyWhatTheDetectorWeighed) {
  NameTable names;
  const PassData p = test::build(test::moe_like(8, 12), names);
  const PhaseModel pm = detect_phases(p, &names);
  EXPECT_EQ(pm.layers, 8);
  ASSERT_TRUE(has_finding(pm, Topic::layers));
  for (const auto& f : pm.findings) {
    if (f.topic != Topic::layers) continue;
    for (const auto& a : f.alternatives) {
      EXPECT_EQ(a.candidate.find("two kinds"), std::string::npos) << a.candidate;
      EXPECT_EQ(a.why_lost.find("no kernel launches a whole number"), std::string::npos)
          << a.why_lost;
    }
  }
}

TEST(Phases, BeingFirstIsNoEvidenceOfPrefill) {
  // The same loop, but the first step launches the same grids as the others: nothing marks it as a
  // prefill, so no step is called prefill and the role of the steps stays open.
  NameTable names;
  auto w = test::moe_like(8, 20);
  for (auto* ks : {&w.per_step_head, &w.per_layer, &w.per_step_tail})
    for (auto& k : *ks) k.prefill_grid = k.decode_grid, k.kernel_id_prefill = k.kernel_id_decode;
  const PassData p = test::build(w, names);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.prefill_steps, 0);
  EXPECT_EQ(pm.decode_steps, 0);
  EXPECT_EQ(pm.role_unknown_steps, 21);
  EXPECT_EQ(count_phase(pm, Phase::step), 21);
  EXPECT_TRUE(note_mentions(pm, "prefill: not established")) << pm.notes.front().line();
  // The same, as fields (the structure view reads these, never the text).
  EXPECT_TRUE(not_established_about(pm, Topic::prefill));
  EXPECT_FALSE(not_established_about(pm, Topic::steps));
}

TEST(Phases, WithoutTimingStepsFallOnPeriodMultiplesWithLowConfidence) {
  NameTable names;
  auto w = test::moe_like(6, 9);
  w.in_step_gap_ns = 0;
  w.step_gap_ns = 0;
  w.kernel_ns = 0;
  const PassData p = test::build(w, names);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.method, "period");
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 9);
  EXPECT_EQ(pm.layers, 6);
  for (const auto& f : pm.findings) {
    if (f.topic == Topic::steps) {
      EXPECT_EQ(f.confidence, Confidence::low);
    }
  }
}

TEST(Phases, APrefillWithItsOwnKernelsIsStillThePrefillAndACutStepIsPartial) {
  NameTable names;
  auto w = test::moe_like(8, 12);
  PassData built = test::build(w, names);
  // A prefix-attention kernel that only the prefill runs, once per layer (so the prefill has 8
  // more dispatches than a decode step), and the run cut off in the middle of a step at the end.
  const size_t per_step = 1 + 8 * 8 + 2;
  PassData p = built;
  p.dispatches.clear();
  int64_t id = 1, shift = 0;
  for (size_t i = 0; i < built.dispatches.size(); ++i) {
    Dispatch d = built.dispatches[i];
    d.dispatch_id = id++;
    d.start_ns += shift;
    d.end_ns += shift;
    p.dispatches.push_back(d);
    if (i < per_step && d.name == names.intern("kernel_unified_attention_2d")) {
      Dispatch f = d;
      test::rename(p, f, names.intern("_fwd_kernel"));
      f.dispatch_id = id++;
      f.start_ns = d.end_ns + 200;
      f.end_ns = f.start_ns + 1000;
      shift += 1200;
      p.dispatches.push_back(f);
    }
  }
  p.dispatches.resize(p.dispatches.size() - 20);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, per_step);
  ASSERT_GE(pm.steps.size(), 3u);
  EXPECT_EQ(pm.steps.front().phase, Phase::prefill);
  EXPECT_EQ(pm.steps.front().end - pm.steps.front().begin, per_step + 8);
  EXPECT_EQ(pm.steps.back().phase, Phase::partial);
  EXPECT_EQ(pm.steps.back().end - pm.steps.back().begin, per_step - 20);
  EXPECT_EQ(pm.decode_steps, 11);  // steps 2..12 complete; the 13th is cut
  EXPECT_EQ(pm.irregular_steps, 0);
  EXPECT_EQ(pm.layers, 8);
}

TEST(Phases, AStepWithAnExtraKernelIsIrregularAndTheOthersStayRegular) {
  NameTable names;
  auto w = test::moe_like(8, 10);
  PassData p = test::build(w, names);
  const size_t per_step = 1 + 8 * 8 + 2;
  // One extra kernel inside step 5 (a sampler variant, say), ids and times shifted after it.
  const size_t at = 5 * per_step + 30;
  Dispatch extra = p.dispatches[at];
  test::rename(p, extra, names.intern("extra_kernel"));
  p.dispatches.insert(p.dispatches.begin() + static_cast<long>(at), extra);
  for (size_t i = at + 1; i < p.dispatches.size(); ++i) {
    p.dispatches[i].dispatch_id += 1;
    p.dispatches[i].start_ns += 1200;
    p.dispatches[i].end_ns += 1200;
  }
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, per_step);
  EXPECT_EQ(pm.irregular_steps, 1);
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 9);
  ASSERT_EQ(pm.steps.size(), 11u);
  EXPECT_EQ(pm.steps[5].phase, Phase::irregular);
  EXPECT_EQ(pm.steps[5].end - pm.steps[5].begin, per_step + 1);
  EXPECT_EQ(pm.steps[6].phase, Phase::decode);
  EXPECT_TRUE(note_mentions(pm, "lengths 68")) << pm.notes.front().line();
}

// The windowed case: a decode trace captured in short windows. Cut three windows out of a long
// decode loop (no prefill in any): each starts and ends inside a step.
TEST(Phases, AWindowedDecodeTraceIsReportedAsWindowsWithNoInventedPrefill) {
  NameTable names;
  auto w = test::moe_like(8, 60);
  const PassData full = test::build(w, names);
  const size_t per_step = 1 + 8 * 8 + 2;
  PassData p = full;
  p.dispatches.clear();
  const std::vector<std::pair<size_t, size_t>> keep = {{10 * per_step + 20, 16 * per_step + 5},
                                                       {30 * per_step + 40, 34 * per_step + 40},
                                                       {50 * per_step + 1, 55 * per_step + 60}};
  for (auto [b, e] : keep)
    for (size_t i = b; i < e; ++i) p.dispatches.push_back(full.dispatches[i]);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  ASSERT_EQ(pm.windows.size(), 3u);
  EXPECT_TRUE(pm.windowed());
  EXPECT_EQ(pm.windows[1].missing_before, static_cast<int64_t>(keep[1].first - keep[0].second));
  EXPECT_EQ(pm.windows[0].missing_before, static_cast<int64_t>(keep[0].first));
  EXPECT_EQ(pm.prefill_steps, 0);
  EXPECT_EQ(pm.decode_steps, 0);
  EXPECT_EQ(pm.step_period, per_step);
  // Whole steps per window: 5 (of 16-10 cut at both ends), 3, 4.
  EXPECT_EQ(pm.role_unknown_steps, 5 + 3 + 4);
  EXPECT_EQ(pm.irregular_steps, 0);
  for (const auto& s : pm.steps) {
    EXPECT_NE(s.phase, Phase::prefill);
    if (s.phase == Phase::partial) {
      EXPECT_LT(s.end - s.begin, per_step);
    }
  }
  // No step crosses a window boundary.
  for (const auto& s : pm.steps) {
    const auto& win = pm.windows[s.window];
    EXPECT_GE(s.begin, win.begin);
    EXPECT_LE(s.end, win.end);
  }
  EXPECT_TRUE(has_finding(pm, Topic::windows));
  EXPECT_EQ(pm.findings.front().claim, "windowed trace: 3 windows");
}

TEST(Phases, DispatchesOnAnotherAgentAreNotMissing) {
  // One process, two agents: the second agent's dispatches take every other id.
  NameTable names;
  auto w = test::moe_like(4, 6);
  PassData p = test::build(w, names);
  const size_t n = p.dispatches.size();
  for (auto& d : p.dispatches) d.dispatch_id *= 2;
  for (size_t i = 0; i < n / 2; ++i) {
    Dispatch d = p.dispatches[i];
    d.lane = p.intern(Lane{3, 0});
    d.dispatch_id = 2 * static_cast<int64_t>(i) + 1;
    p.dispatches.push_back(d);
  }
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.other_dispatches, n / 2);
  EXPECT_EQ(pm.order.size(), n);
  // Until the second agent stops at id n - 1, nothing is missing; after it every other id is.
  // Those are many small holes, not windows.
  EXPECT_EQ(pm.windows.size(), 1u);
  EXPECT_NE(pm.findings.front().evidence.find("small holes"), std::string::npos);
  EXPECT_TRUE(note_mentions(pm, "other process/agent stream"));
  EXPECT_EQ(pm.decode_steps, 6);
}

TEST(Phases, AKernelFilteredTraceIsNotWindowed) {
  // Every step lost its argmax launch (a kernel filter): one hole per step, all the same size.
  NameTable names;
  auto w = test::moe_like(4, 40);
  PassData p = test::build(w, names);
  const uint32_t argmax = names.intern("argmax_kernel");
  std::erase_if(p.dispatches, [&](const Dispatch& d) { return d.name == argmax; });
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.windows.size(), 1u);
  EXPECT_EQ(pm.step_period, 1u + 4 * 8 + 1);
  EXPECT_EQ(pm.prefill_steps, 1);
  EXPECT_EQ(pm.decode_steps, 40);
  EXPECT_NE(
      pm.findings.front().evidence.find("40 dispatches of the process are missing in 40 small"),
      std::string::npos)
      << pm.findings.front().evidence;
}

TEST(Phases, OneForwardPassOfManyLayersHasNoStepsOnlyLayerLikeBlocks) {
  // A prefill-only capture: one pass of 40 identical layers, no host gap between layers. The
  // repetition is the layer; nothing marks it as a step.
  NameTable names;
  auto w = test::moe_like(40, 0);
  const PassData p = test::build(w, names);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, 0u);
  EXPECT_EQ(pm.whole_steps(), 0);
  EXPECT_EQ(pm.layers, 40);
  EXPECT_EQ(count_phase(pm, Phase::unknown), 1);
  EXPECT_TRUE(note_mentions(pm, "no host gap marks its boundaries")) << pm.notes.front().line();
  EXPECT_TRUE(not_established_about(pm, Topic::steps));
  for (const auto& f : pm.findings) {
    if (f.topic == Topic::layers) {
      EXPECT_EQ(f.confidence, Confidence::low);
    }
  }
}

// A trace of one process written launch by launch: 1 us kernels 200 ns apart; a test advances `t`
// for a host gap.
struct TimedTrace {
  NameTable names;
  PassData p;
  int64_t t = 1'000'000, id = 1;
  TimedTrace() {
    p.pass_id = 1;
    p.kind = store::PassKind::trace;
  }
  void emit(const char* name, int64_t grid) {
    Dispatch d;
    d.dispatch_id = id++;
    d.pid = 7;
    d.start_ns = t;
    d.end_ns = t + 1000;
    t = d.end_ns + 200;
    KernelShape s;
    s.name = names.intern(name);
    s.grid[0] = grid;
    s.wg[0] = 256;
    p.add(d, s, 2);
  }
};

// One forward pass of 15 layers in 3 blocks of 5 (4 sliding-window layers, each attending token by
// token, then 1 full-attention layer), the host waiting 2 ms after every layer (a sync per layer,
// as an engine that reads each layer's result does) and 200 ns between kernels. The 5-layer block
// repeats and its boundary has host gaps far above the in-layer ones, but so do the 4 layer
// boundaries inside it: the gaps mark layers, not steps, and one pass is not a generation loop.
TEST(Phases, BlocksOfLayersWithAHostSyncAfterEveryLayerAreNotSteps) {
  TimedTrace tr;
  NameTable& names = tr.names;
  PassData& p = tr.p;
  int64_t& t = tr.t;
  auto emit = [&](const char* name, int64_t grid) { tr.emit(name, grid); };
  emit("embed", 4096);
  for (int block = 0; block < 3; ++block) {
    for (int layer = 0; layer < 5; ++layer) {
      emit("norm", 4096);
      emit("qkv_matmul", 8192);
      if (layer < 4) {
        for (int token = 0; token < 8; ++token) {
          emit("kv_write", 256);
          emit("sliding_attn", 256);
        }
      } else {
        emit("full_attn", 2048);
      }
      emit("o_matmul", 8192);
      emit("mlp_matmul", 8192);
      t += 2'000'000;  // the host reads the layer's result before it launches the next
    }
  }
  emit("lm_head", 4096);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, 0u);
  EXPECT_EQ(pm.whole_steps(), 0);
  EXPECT_FALSE(has_finding(pm, Topic::steps));
  EXPECT_TRUE(not_established_about(pm, Topic::steps));
  EXPECT_TRUE(note_mentions(pm, "may be a block of layers of one forward pass, not a step"))
      << (pm.notes.empty() ? std::string() : pm.notes.front().line());
}

// A decode loop whose host syncs after every layer (an eager .item() reading the router's
// choice, ~80 us) as well as between tokens (~200 us): 64 tokens of 1 + 8 x 8 + 1 = 66 dispatches.
// The step gap is only 2.5x the per-layer one, so the per-layer gaps are a close rival: the steps
// stand, at low confidence, with the rival boundaries as their alternative. 64 repetitions are far
// more than the 9 host-stop places in each could make of one pass's blocks of layers.
TEST(Phases, DecodeLoopWithAHostSyncAfterEveryLayerIsStillSteps) {
  TimedTrace tr;
  NameTable& names = tr.names;
  PassData& p = tr.p;
  int64_t& t = tr.t;
  auto emit = [&](const char* name, int64_t grid) { tr.emit(name, grid); };
  for (int token = 0; token < 64; ++token) {
    emit("embed", 4096);
    for (int layer = 0; layer < 8; ++layer) {
      emit("norm", 4096);
      emit("qkv_matmul", 8192);
      emit("attn", 2048);
      emit("norm", 4096);
      emit("topk_gating", 1024);
      emit("fused_moe", 98304);
      emit("act_and_mul", 4096);
      emit("fused_moe", 65536);
      t += 80'000;  // the host reads the router's choice before the next layer
    }
    emit("lm_head", 4096);
    t += 200'000;  // the host samples the token
  }
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.step_period, 66u);
  EXPECT_GE(pm.whole_steps(), 62);
  ASSERT_TRUE(has_finding(pm, Topic::steps))
      << (pm.notes.empty() ? std::string() : pm.notes.front().line());
  for (const auto& f : pm.findings) {
    if (f.topic != Topic::steps) continue;
    EXPECT_EQ(f.confidence, Confidence::low);
    EXPECT_TRUE(std::any_of(f.alternatives.begin(), f.alternatives.end(), [](const Alternative& a) {
      return a.candidate.find("dispatches from these (host gaps of 80") != std::string::npos;
    })) << f.alternatives.size();
  }
}

// The runner-up period may match better than the step: detect_period takes the largest distance
// that repeats at >= 50%, so a smaller one repeating inside the step can score higher. Here each
// step of 185 dispatches is 1 head + 24 layers of 7 + 16 sampling launches of kernels of its own
// (named per step, 7 apart). At 185 the head and layers repeat: 169 of 185 (91.4%); at 7 the
// layers but the last and the sampling launches but the last 7: 161 + 9 = 170 of 185 (91.9%).
// 40 steps: the 32-launch sequence from each head recurs one step later 39 times, enough for the
// step's period to be a candidate. Its "why it lost" cannot be a worse match.
TEST(Phases, ABetterMatchingSmallerPeriodLosesAsARepetitionInsideTheStep) {
  NameTable names;
  PassData p;
  p.pass_id = 1;
  p.kind = store::PassKind::trace;
  int64_t t = 1'000'000, id = 1;
  auto emit = [&](const std::string& name) {
    Dispatch d;
    d.dispatch_id = id++;
    d.pid = 7;
    d.start_ns = t;
    d.end_ns = t + 1000;
    t = d.end_ns + 200;
    KernelShape s;
    s.name = names.intern(name);
    s.grid[0] = 1024;
    s.wg[0] = 256;
    p.add(d, s, 2);
  };
  for (int step = 0; step < 40; ++step) {
    emit("head");
    for (int layer = 0; layer < 24; ++layer)
      for (int k = 0; k < 7; ++k) emit("layer_kernel_" + std::to_string(k));
    for (int k = 0; k < 16; ++k)
      emit("sample_" + std::to_string(step) + "_" + std::to_string(k % 7));
    t += 100'000;
  }
  const PhaseModel pm = detect_phases(p, &names);
  EXPECT_EQ(pm.step_period, 185u);
  ASSERT_TRUE(has_finding(pm, Topic::steps))
      << (pm.notes.empty() ? std::string() : pm.notes.front().line());
  for (const auto& f : pm.findings) {
    if (f.topic != Topic::steps) continue;
    ASSERT_FALSE(f.alternatives.empty());
    const Alternative& a = f.alternatives.front();
    EXPECT_NE(a.candidate.find("a period of 7 dispatches"), std::string::npos) << a.candidate;
    EXPECT_EQ(a.why_lost.find("it matches"), std::string::npos) << a.why_lost;
    EXPECT_NE(a.why_lost.find("largest period that repeats"), std::string::npos) << a.why_lost;
  }
}

// Warm-up before the measured work: the steps must still be found. Here 40 set-up launches
// (kernels of their own, 30 us host gaps between them, as weight uploads are), a warm-up request
// (1 prefill + 2 decode steps of 1 + 4 x 8 + 2 = 35 dispatches, 50 us host gaps between steps),
// 2 ms idle, one buffer fill, then the measured request (1 prefill + 12 decode steps). The fill
// puts the measured steps one dispatch off the warm-up's boundaries, so the offset with the
// longest host gaps one period apart (the measured steps') falls inside the set-up launches in
// the first period; the cut must start at the longest run of repetitions instead.
TEST(Phases, WarmUpBeforeTheStepsDoesNotHideThem) {
  NameTable names;
  const test::Workload w = test::moe_like(4, 12);
  test::Workload warm = w;
  warm.decode_steps = 2;
  const PassData request = test::build(warm, names);
  const PassData measured = test::build(w, names);
  PassData p;
  p.pass_id = 1;
  p.kind = store::PassKind::trace;
  int64_t id = 1, t = 1'000'000;
  auto launch = [&](const std::string& name, int64_t grid, int64_t gap_after) {
    Dispatch d;
    d.dispatch_id = id++;
    d.pid = static_cast<int32_t>(w.pid);
    d.start_ns = t;
    d.end_ns = t + 2000;
    t = d.end_ns + gap_after;
    KernelShape s;
    s.name = names.intern(name);
    s.grid[0] = grid;
    s.wg[0] = 64;
    p.add(d, s, w.agent);
  };
  for (int i = 0; i < 40; ++i)
    launch("setup_kernel_" + std::to_string(i % 7), 64 * (i + 1), 30'000);
  auto append = [&](const PassData& part) {
    const int64_t shift = t - part.dispatches.front().start_ns;
    for (Dispatch d : part.dispatches) {
      const KernelShape s = part.shape(d);
      d.dispatch_id = id++;
      d.start_ns += shift;
      d.end_ns += shift;
      t = d.end_ns;
      p.add(d, s, w.agent);
    }
  };
  append(request);
  t += 2'000'000;
  launch("fill", 1024, 200);
  append(measured);
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  const size_t per_step = 1 + 4 * 8 + 2;
  EXPECT_EQ(pm.step_period, per_step);
  // The measured request's 13 passes are whole steps, the last 12 regular ones.
  ASSERT_GE(pm.steps.size(), 13u);
  for (size_t i = pm.steps.size() - 12; i < pm.steps.size(); ++i) {
    const Step& s = pm.steps[i];
    EXPECT_TRUE(s.phase == Phase::decode || s.phase == Phase::step) << i;
    EXPECT_EQ(s.end - s.begin, per_step) << i;
  }
  EXPECT_EQ(pm.steps.back().end, pm.order.size());
  // The set-up launches belong to no step.
  EXPECT_EQ(pm.steps.front().phase, Phase::unknown);
  EXPECT_GE(pm.steps.front().end - pm.steps.front().begin, 40u);
  const Finding* steps = nullptr;
  for (const auto& f : pm.findings)
    if (f.topic == Topic::steps) steps = &f;
  ASSERT_NE(steps, nullptr);
  EXPECT_NE(steps->confidence, Confidence::low);
}

// Confidence follows counted evidence, each count able to lower it on its own.
TEST(Confidence, StepsAreHighOnlyWhenEveryCountSupportsThem) {
  StepEvidence e;
  e.timed = true;
  e.regular = 63;
  e.irregular = 0;
  e.identical = 63;
  e.explained = 53361;
  e.dispatches = 54194;
  e.gap_ratio = 40;
  e.close_periods = 0;
  EXPECT_EQ(step_confidence(e), Confidence::high);
  auto with = [&](auto change) {
    StepEvidence x = e;
    change(x);
    return step_confidence(x);
  };
  EXPECT_EQ(with([](StepEvidence& x) { x.timed = false; }), Confidence::low);
  EXPECT_EQ(with([](StepEvidence& x) { x.regular = x.identical = 2; }), Confidence::medium);
  EXPECT_EQ(with([](StepEvidence& x) { x.identical = 50; }), Confidence::medium);  // grids differ
  EXPECT_EQ(with([](StepEvidence& x) { x.explained = 20000; }), Confidence::medium);
  EXPECT_EQ(with([](StepEvidence& x) { x.close_periods = 1; }), Confidence::medium);
  EXPECT_EQ(with([](StepEvidence& x) { x.gap_ratio = 5; }), Confidence::medium);
  EXPECT_EQ(with([](StepEvidence& x) { x.gap_ratio = 2; }), Confidence::low);
  EXPECT_EQ(with([](StepEvidence& x) { x.regular = x.identical = 1; }), Confidence::low);
  EXPECT_EQ(with([](StepEvidence& x) { x.irregular = 64; }), Confidence::low);
}

TEST(Confidence, LayersNeedEveryKernelAccountedForAndNoRivalCount) {
  const LayerEvidence e{48, 0.98, 48 * 17, 847, true, 0};
  EXPECT_EQ(layer_confidence(e), Confidence::high);
  LayerEvidence x = e;
  x.accounted = false;
  EXPECT_EQ(layer_confidence(x), Confidence::low);
  x = e;
  x.rival_layers = 36;
  EXPECT_EQ(layer_confidence(x), Confidence::medium);
  x = e;
  x.covered = 400;  // the layers hold under 80% of the step
  EXPECT_EQ(layer_confidence(x), Confidence::medium);
  x = e;
  x.match = 0.6;
  EXPECT_EQ(layer_confidence(x), Confidence::medium);
}

// The period search reports the candidates it weighed: here the layer period, which fits 6 times
// in the step.
TEST(Period, ReportsTheCandidatesItWeighed) {
  std::vector<uint32_t> names;
  for (int step = 0; step < 10; ++step) {
    names.push_back(100);
    for (int l = 0; l < 6; ++l) names.insert(names.end(), {1, 2, 3});
    names.push_back(200);
  }
  const SpillVector<uint32_t> s(names);
  std::vector<PeriodCandidate> considered;
  EXPECT_EQ(detect_period(s, 0, s.size(), 4, &considered), 20u);
  const bool layer = std::any_of(considered.begin(), considered.end(),
                                 [](const PeriodCandidate& c) { return c.period == 3; });
  EXPECT_TRUE(layer);
}

// The layer fit names the kernels that agree with it and the runner-up count with why it lost.
TEST(Layers, AgreementAndTheRunnerUp) {
  // 48 layers of (1 2 1 3 4 5 4): 2, 3 and 5 launch once per layer, 7 apart; 1 and 4 twice per
  // layer at distances 2 and 5 (irregular).
  std::vector<uint32_t> t = {100};
  for (int l = 0; l < 48; ++l) t.insert(t.end(), {1, 2, 1, 3, 4, 5, 4});
  t.insert(t.end(), {200, 201});
  const LayerFit f = detect_layers(t);
  EXPECT_EQ(f.layers, 48);
  EXPECT_EQ(f.agreeing, 3u);
  EXPECT_EQ(f.rival_layers, 96);
  EXPECT_FALSE(f.rival_fits);
  EXPECT_NE(f.rival_why.find("irregular distances (2 to 5)"), std::string::npos) << f.rival_why;
}

// The claims carry the detector's alternatives, not fixed text.
TEST(Claims, AlternativesAreTheRunnerUpsTheDetectorWeighed) {
  PhaseModel pm;
  pm.main_pid = 1;
  pm.main_agent = 2;
  pm.findings.push_back({Topic::steps,
                         "5 repeated steps of 35 dispatches",
                         "counts",
                         Confidence::medium,
                         {{"a period of 7 dispatches (99% match)", "it fits 5 times in a step"},
                          {"one forward pass (no loop)", "5 whole repetitions"}},
                         "5 of the 5 regular steps alike"});
  pm.notes.push_back(not_established(Topic::layers, "why not"));
  const auto claims = claims_of(pm, {});
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].confidence, "medium");
  EXPECT_EQ(claims[0].evidence, "counts; 5 of the 5 regular steps alike");
  EXPECT_EQ(claims[0].alternatives,
            "a period of 7 dispatches (99% match): lost, it fits 5 times in a step; one forward "
            "pass (no loop): lost, 5 whole repetitions");
  EXPECT_EQ(claims[1].confidence, "unknown");
  EXPECT_EQ(claims[1].reason, "why not");
}

TEST(Phases, TooFewDispatchesSayWhy) {
  NameTable names;
  PassData p;
  for (int i = 0; i < 5; ++i) {
    Dispatch d;
    d.dispatch_id = i + 1;
    KernelShape s;
    s.name = names.intern("k");
    p.add(d, s);
  }
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.whole_steps(), 0);
  EXPECT_TRUE(note_mentions(pm, "too few")) << pm.notes.front().line();
  ASSERT_EQ(pm.notes.size(), 1u);
  EXPECT_EQ(pm.notes[0].kind, NoteKind::not_established);
  EXPECT_EQ(pm.notes[0].topic, Topic::steps);
  EXPECT_EQ(pm.notes[0].line(), "steps: not established: " + pm.notes[0].text);
}

// The uLLM probe captures: 16 launches of one kernel. The name sequence repeats trivially, so
// "does not repeat" would be false; it is a kernel benchmark, and no steps are claimed.
TEST(Phases, OneKernelLaunchedRepeatedlyIsNoGenerationLoop) {
  NameTable names;
  PassData p;
  for (int i = 0; i < 16; ++i) {
    Dispatch d;
    d.dispatch_id = i + 1;
    d.start_ns = 1000000 + i * 500000;
    d.end_ns = d.start_ns + 400000;
    KernelShape s;
    s.name = names.intern("sq8_attention_probe");
    p.add(d, s);
  }
  const PhaseModel pm = detect_phases(p, &names);
  expect_bounded_same(p, names, pm);
  EXPECT_EQ(pm.whole_steps(), 0);
  EXPECT_EQ(count_phase(pm, Phase::unknown), 1);
  EXPECT_TRUE(not_established_about(pm, Topic::steps));
  EXPECT_TRUE(note_mentions(pm, "all 16 dispatches launch one kernel (sq8_attention_probe)"))
      << pm.notes.front().line();
  EXPECT_FALSE(note_mentions(pm, "does not repeat"));
}

// rocprofv3's kernel trace has no process column: a capture written with `-o NAME` names no pid,
// and the main stream is not called "pid 0".
TEST(Phases, TheMainStreamNamesAPidOnlyWhenTheTraceGivesOne) {
  NameTable names;
  for (int32_t pid : {0, 564735}) {
    PassData p;
    for (int i = 0; i < 3; ++i) {
      Dispatch d;
      d.dispatch_id = i + 1;
      d.pid = pid;
      KernelShape s;
      s.name = names.intern("k");
      p.add(d, s, 2);
    }
    const PhaseModel pm = detect_phases(p, &names);
    expect_bounded_same(p, names, pm);
    expect_bounded_same(p, names, pm);
    if (pid == 0)
      EXPECT_EQ(pm.stream_name(),
                "agent 2 of a process the trace does not name (no Process_Id column, no <pid>_ "
                "file-name prefix)");
    else
      EXPECT_EQ(pm.stream_name(), "pid 564735, agent 2");
  }
}

TEST(Phases, NamesAndChoices) {
  for (Phase p : k_all_phases) EXPECT_EQ(parse_phase(to_string(p)), p);
  EXPECT_FALSE(parse_phase("tail"));
  EXPECT_EQ(phase_choices(), "prefill, decode, step, irregular, partial, unknown or other");
}

}  // namespace
}  // namespace kprof::analysis
