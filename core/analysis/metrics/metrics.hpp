// Derived metrics of joined dispatches: FLOPs by type, bytes moved, arithmetic intensity,
// achieved rates against the target's peaks, and the roofline bound.
//
// The FLOP and byte formulas are the metrics of configs/metrics/roofline.yaml tagged with
// `measures:` (rocprofiler-compute's src/utils/roofline_calc.py formulas, repository
// ROCm/rocm-systems, projects/rocprofiler-compute): FLOPs per type, HBM bytes read and written
// (FETCH_SIZE/WRITE_SIZE, in KiB, first when a pass collected them).
// A counter collected directly (rocprofv3 writes derived counters such as FETCH_SIZE as rows) is
// used as it is; otherwise a derived counter is evaluated from its base counters with the target's
// expressions (hw::Target::evaluate). Rates divide by TRACE-pass durations: counter collection
// serializes kernels and stretches their durations, so a counter pass's own durations are not the
// workload's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/hw/metric_set.hpp"
#include "core/hw/target.hpp"

namespace kprof::analysis {

struct CounterSample {
  uint32_t counter = 0;  // JoinedCounters::counters id
  double value = 0;
  int64_t pass_id = 0;
  // The counter-pass launch the value was read on (unique within one JoinedCounters). A trace
  // dispatch holds samples of several launches when a rotated pass repeated the request: each of
  // them counted one group (core/exec/passes/rotated_pass.hpp).
  int64_t launch = -1;
};

// Counter values moved onto trace dispatches through the stored join mapping.
struct JoinedCounters {
  NameTable counters;
  std::vector<std::vector<CounterSample>> by_dispatch;  // index: trace PassData::dispatches
  std::vector<int64_t> excluded_passes;  // pass ids left out: their join failed its self-check
  // True when some trace dispatch holds samples of more than one launch of the same pass (a
  // rotated run's repeats): a formula over one dispatch's samples then mixes launches.
  bool repeated_launches = false;
};

struct DispatchMetrics {
  std::optional<double> mfma_flops, valu_flops, bytes_read, bytes_written;
  std::string dominant_type;                   // "MFMA_BF16", "VALU_F32", ... (largest FLOP share)
  std::set<int64_t> flop_passes, byte_passes;  // passes the inputs came from
  bool has_flops() const { return mfma_flops || valu_flops; }
  double flops() const { return mfma_flops.value_or(0) + valu_flops.value_or(0); }
  bool has_bytes() const { return bytes_read || bytes_written; }
  double bytes() const { return bytes_read.value_or(0) + bytes_written.value_or(0); }
};

DispatchMetrics dispatch_metrics(const hw::Target& target, const JoinedCounters& joined,
                                 size_t dispatch_index);

// dispatch_metrics with the same results, for a caller that evaluates many dispatches (the
// Perfetto export: one per slice). Finding the sample of each name a formula writes (counter name
// -> id -> the first sample of that id) depends only on which counters a dispatch holds, in which
// order, so it is done once per distinct sequence of counter ids and kept; each dispatch then only
// evaluates. One cache serves one target and one JoinedCounters' name table (it may grow: ids
// already resolved keep their names).
class DispatchMetricsCache {
 public:
  DispatchMetricsCache();
  ~DispatchMetricsCache();
  DispatchMetricsCache(const DispatchMetricsCache&) = delete;
  DispatchMetricsCache& operator=(const DispatchMetricsCache&) = delete;
  DispatchMetrics operator()(const hw::Target& target, const JoinedCounters& joined,
                             size_t dispatch_index);

  struct Plan;

 private:
  std::map<std::vector<uint32_t>, std::unique_ptr<Plan>> m_plans;
  const Plan* m_last = nullptr;  // the plan of the previous dispatch (runs share one)
  std::vector<uint32_t> m_last_key;
  std::vector<int64_t> m_passes;  // scratch: one formula's input passes
};

// One metric-set formula (configs/metrics/*.yaml) for one dispatch, through core/hw's expression
// engine: its `prefer:` formula first when every input was collected, else its expression. A name
// resolves to a collected value (base or derived, as rocprofv3 wrote it), else to the target's
// derived expression over collected base values. Empty when an input is missing or a divisor is 0.
struct FormulaValue {
  std::optional<double> value;
  std::set<int64_t> passes;  // counter passes the inputs came from (> 1: mixed application runs)
};
FormulaValue evaluate_formula(const hw::Target& target, const JoinedCounters& joined,
                              size_t dispatch_index, const hw::MetricFormula& formula);

// Aggregate over a group of dispatches (a variant, family or phase).
struct GroupMetrics {
  int64_t dispatches = 0;
  int64_t with_flops = 0, with_bytes = 0;
  double flops = 0, bytes_read = 0, bytes_written = 0;  // sums
  double duration_ns_flops = 0, duration_ns_bytes = 0;  // trace durations of those dispatches
  std::set<int64_t> flop_passes, byte_passes;
  std::map<std::string, double> flops_by_type;

  void add(const DispatchMetrics& m, int64_t trace_duration_ns);
  std::optional<double> mean_flops() const;
  std::optional<double> mean_bytes() const;
  std::optional<double> intensity() const;  // FLOP per byte
  std::optional<double> flops_per_s() const;
  std::optional<double> bytes_per_s() const;
  std::string dominant_type() const;
  // True when FLOPs and bytes came from more than one counter pass: a ratio of them compares two
  // different runs of the application and is flagged in every output.
  bool mixed_passes() const;
  std::string passes_text() const;  // "2" or "2+3 (mixed)"
};

// The peak FLOP/s for a dominant type on this target (matrix or vector, by precision).
double peak_flops_for(const hw::Peaks& peaks, const std::string& type);

// One figure no hardware can produce: what it is, what is wrong with it (a fixed word, for machine
// readers), and the sentence a table shows.
struct SuspectFigure {
  std::string figure;   // "tflops", "tbps", "flops", "bytes", or a metric set's metric
  std::string problem;  // above_peak | above_hbm_peak | negative | outside_0_100
  std::string text;     // "tbps 6.10 > HBM peak 5.32"
  std::string code() const { return figure + ":" + problem; }  // "tbps:above_hbm_peak"
};
// The `suspect` column (the texts, "; ") and its machine form `suspect_flags` (the codes, ";").
std::string suspect_text(const std::vector<SuspectFigure>& s);
std::string suspect_codes(const std::vector<SuspectFigure>& s);

// What a group's figures claim that the hardware cannot do: a FLOP rate above the peak of its
// dominant type, an HBM rate above the HBM peak (so a percentage of a peak above 100), or a
// negative count. Each entry names the figure, its value and the limit; empty when every figure
// is physically possible. Such a figure is never printed plain: the views put these in a
// `suspect` column with suspect_reason().
std::vector<SuspectFigure> impossible_figures(const GroupMetrics& g, const hw::Peaks& peaks);
// Why such figures arise, for the rows that have them: FLOPs and bytes from different counter
// passes (different application runs), counted work divided by the trace pass's durations (another
// run), or a join that matched the wrong launches.
std::string suspect_reason(const GroupMetrics& g);
// The same as a fixed word: mixed_passes | other_run_durations.
std::string suspect_cause(const GroupMetrics& g);

}  // namespace kprof::analysis
