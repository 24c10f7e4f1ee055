// What `kprof report` shows, as typed values built from the query use case
// (analysis::QuerySession): its named views as tables, and for the charts the values they are
// drawn from. The HTML writer (html_report.hpp) only lays these out; nothing here runs SQL or
// reads files, and nothing in the writer computes a figure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/views/session.hpp"
#include "core/base/table.hpp"
#include "core/report/compare.hpp"

namespace kprof::report {

struct PassRow {
  int64_t ordinal = 0;
  std::string kind, state;
  int64_t attempts = 0;
  std::vector<std::string> counters;
  std::string command;  // the profiler's argv, shell-quoted
  std::string reason;   // why it failed or was retried ("" otherwise)
  // Block occupancy of the pass's counters: block, events used, the block's per-pass limit.
  struct Use {
    std::string block;
    int used = 0, limit = 0;
  };
  std::vector<Use> occupancy;
};

struct Provenance {
  int64_t run_id = 0;
  std::string name, runbook_path, host, status, kprof_version, profiler_version;
  std::string started, finished;  // UTC, ISO 8601 ("" when not finished)
  bool simulated = false;
  std::optional<int64_t> seed;
  std::string arch, product;  // the GPU agent
  std::vector<PassRow> passes;
};

// A horizontal bar: one family and its summed trace time.
struct Bar {
  std::string label;
  double value = 0;  // ns
  double share_pct = 0;
  int64_t launches = 0;
};

// One step of the main stream laid out layer by layer: row 0 is what runs before the first layer
// (when anything does), then one row per layer, then what runs after the last layer.
struct TimelineSlice {
  std::string kernel, family;
  size_t row = 0;
  double start_us = 0;  // from the start of its row's first dispatch
  double dur_us = 0;
};
struct Timeline {
  bool found = false;
  std::string why_not;                               // when !found
  analysis::Phase phase = analysis::Phase::unknown;  // of the drawn step: decode or step
  size_t step_number = 0;                            // 1-based among the trace's steps
  size_t steps = 0;                                  // steps of the run
  std::vector<std::string> rows;                     // row labels
  std::vector<TimelineSlice> slices;
  double step_us = 0;       // first dispatch start to last dispatch end
  std::string layer_basis;  // how layers were cut ("anchor kernel X, 17 dispatches per layer")
};

struct RoofPoint {
  std::string variant, family;
  analysis::Phase phase = analysis::Phase::unknown;
  int64_t launches = 0;
  double flop_per_byte = 0, flops_per_s = 0, bytes_per_s = 0;
  bool mixed = false;       // FLOPs and bytes from different counter passes
  bool above_peak = false;  // above the HBM roof or every compute roof: not physically possible
  std::string kernel;       // the full (demangled) kernel name, for the point's details
};
struct Roof {
  std::string name;  // "matrix BF16"
  double flops_per_s = 0;
};
struct Roofline {
  bool available = false;
  std::string why_not;
  std::string arch;
  double hbm_bytes_per_s = 0;
  std::vector<Roof> compute;
  std::vector<RoofPoint> points;
  size_t rows_without_counters = 0;  // variant x phase rows with no FLOPs or no bytes
};

struct ReportModel {
  bool simulated = false;
  Provenance provenance;
  std::vector<Bar> families;  // by time, descending
  int64_t families_total_ns = 0;
  Timeline timeline;
  Roofline roofline;
  // The query views, as `kprof query DB <view>` prints them.
  Table explain, phases, claims, metrics, passes;
  // `ranks` of a trace pass with several ranks (tensor parallelism); empty with one rank.
  std::optional<Table> ranks;
  // One lane per rank around the collective of the widest arrival skew, on one time axis from
  // the window's start (rows: ranks; layer_basis: what is drawn). found = false: nothing to draw.
  Timeline rank_lanes;
  // Per metrics row: "" or why its figures cannot be physical ("above the HBM peak ...").
  std::vector<std::string> metrics_flags;
  std::vector<std::string> notes;  // the session's notes (joins computed, runbook not loaded)
  // `--baseline`: this run (B) against the baseline (A).
  std::optional<Comparison> baseline;
};

struct ReportOptions {
  std::optional<int64_t> run_id;
  size_t top_families = 15;  // bars in the families chart (the rest summed into "other")
};

// "%.4g": 4 significant digits, the precision every figure of the report is shown at.
std::string format_number(double v);

ReportModel build_report_model(analysis::QuerySession& session, const ReportOptions& options);

// Opens the session as `kprof query` does and builds the model.
ReportModel build_report_model(const std::string& db_path, const ReportOptions& options);

}  // namespace kprof::report
