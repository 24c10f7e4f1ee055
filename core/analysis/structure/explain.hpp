// Families, variants and the launch explanation of a trace pass:
//   fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 variants)
//                          + 3024 + 3024 (decode, 63 steps × 48 layers × 2 variants)
// A variant is one distinct (Kernel_Id, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR) of the
// trace pass; its launches in a phase factor as steps × layers × launches-per-layer when the
// counts divide, and are printed as they are when they do not (never forced to fit).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/analysis/structure/phases.hpp"

namespace kprof::analysis {

struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0, max_ns = 0;
  double mean_ns() const { return count ? static_cast<double>(total_ns) / count : 0.0; }
  void add(int64_t ns);
};

struct Variant {
  int index = 0;  // 1-based, in order of first launch
  std::string family;
  uint32_t name = 0;
  int64_t kernel_id = 0;
  int64_t grid[3] = {0, 1, 1};
  int64_t wg[3] = {0, 1, 1};
  int64_t lds = 0, scratch = 0;
  std::optional<int64_t> vgpr, agpr, sgpr;  // nullopt: the layout did not report it
  int waves_per_workgroup = 0;
  DurationStats duration;
  std::map<Phase, int64_t> launches_by_phase;
};

// Everything the views need about one trace pass.
struct TraceModel {
  const PassData* trace = nullptr;
  const NameTable* names = nullptr;
  int wave_size = 64;
  PhaseModel phases;
  std::vector<Variant> variants;
  std::vector<int> variant_of;  // per trace.dispatches index: index into variants
  std::vector<Phase> phase_of;  // per trace.dispatches index
  // A dispatch's step is phases.step_of at its place in phases.order (step_of_dispatches() maps
  // them for every dispatch; not kept here: 4 bytes per dispatch that only the export reads).
  std::vector<int> step_of_dispatches() const;  // per trace.dispatches index (-1 off the stream)
  std::vector<std::string> family_of_name;      // per NameTable id
  int64_t total_ns = 0;
};

// wave_size: Wave_Front_Size of the trace's GPU agent (64 on gfx9 when agent_info is missing).
TraceModel build_trace_model(const PassData& trace, const NameTable& names,
                             const FamilyRules& rules, int wave_size);

// A model with no variants and no phases yet: the pass, its names and their families, the wave
// size. What build_trace_model starts from, and a bounded session (QueryContext) that reads the
// trace's dispatches from the database instead of holding them.
TraceModel trace_model_base(const PassData& trace, const NameTable& names, const FamilyRules& rules,
                            int wave_size);

// The variants of a model, summed dispatch by dispatch: fed in program order ((pid, Dispatch_Id)
// order: variants are numbered by first launch), each with its phase. Holds one entry per launch
// configuration, never one per dispatch. `m` (trace_model_base's) must outlive it.
class VariantSums {
 public:
  explicit VariantSums(TraceModel& m);
  // Adds `d`'s launch to its variant (created at its first launch); returns the variant's index
  // into m.variants.
  int add(const Dispatch& d, Phase phase);
  // The same with the launch's phase counted later (count): for a caller that knows the phases
  // only after it saw every dispatch.
  int add(const Dispatch& d);
  void count(int variant, Phase phase);
  // Sets each variant's launches_by_phase and waves per workgroup (m.wave_size as it is now): call
  // once, after the last add() and count().
  void finish();
  // Per PassData::shapes index: its variant's index into m.variants (-1: not launched yet).
  const std::vector<int>& variant_of_shape() const { return m_variant_of_shape; }

 private:
  using Registers = std::optional<int64_t>;
  using Key = std::tuple<int64_t, uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, Registers, Registers, Registers>;
  TraceModel& m_model;
  std::map<Key, int> m_index;
  std::vector<int> m_variant_of_shape;
  std::vector<std::array<int64_t, k_all_phases.size()>> m_by_phase;  // per variant and Phase
};

struct ExplainGroup {
  Phase phase = Phase::unknown;
  std::vector<int64_t> counts;  // one per variant, variants in index order
  int steps = 0;                // steps of this phase (prefill, decode, step, irregular; else 0)
  int layers = 0;               // 0: not per layer
  int64_t per_step = 0;         // launches per step per variant (0: counts do not divide by steps)
  int64_t per_layer = 0;        // launches per layer per variant (0: not a multiple of layers)
};

struct FamilyExplain {
  std::string family;
  int64_t launches = 0;
  std::vector<ExplainGroup> groups;
  std::string text;  // the one-line explanation
};

struct ExplainHints {
  std::optional<int> layers;         // runbook analysis.layers
  std::optional<int> output_tokens;  // runbook analysis.output_tokens (= prefill + decode steps)
};

// Families by launches (descending), or only `family` when given.
std::vector<FamilyExplain> explain(const TraceModel& m, const std::string& family = {});

// The structure found, in one line: "1 prefill + 63 decode steps of 847 dispatches, 48 layers
// per step", "12 repeated steps of 928 dispatches (role not established), 32 layers per step",
// "no steps established".
std::string structure_summary(const PhaseModel& pm);
// That line as "found: ...", then "evidence:" with each finding, its confidence and what it rests
// on, then "not established:" with each note.
std::vector<std::string> structure_lines(const PhaseModel& pm);

// "layers: 48 found, as the runbook says" lines; a disagreement is a warning line with both
// numbers, never a change; a hint that cannot be checked says why.
std::vector<std::string> check_hints(const TraceModel& m, const ExplainHints& hints);

}  // namespace kprof::analysis
