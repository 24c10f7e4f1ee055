// Metric sets (configs/metrics/<name>.yaml): a named list of counters to
// collect, plus formulas computed offline from them per dispatch. The planner
// keeps each formula's counters in one pass when that costs no extra pass, so a
// ratio comes from one run of the workload.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/hw/expr.hpp"
#include "core/hw/target.hpp"

namespace kprof::hw {

// What a metric measures, from its `measures:` tag; the analysis takes its FLOP
// and byte formulas from the metrics so tagged (written "flops MFMA_BF16",
// "bytes L2", "bytes HBM read").
enum class Quantity { none, flops, bytes };
struct Measure {
  Quantity quantity = Quantity::none;
  std::string flop_type;  // flops: "MFMA_F16|BF16|F32|F64|F8" or "VALU_F16|F32|F64"
  std::string level;      // bytes: "LDS", "L1", "L2" or "HBM"
  std::string direction;  // bytes: "read", "write", or "" for both
  bool mfma() const { return flop_type.rfind("MFMA_", 0) == 0; }
};

struct MetricFormula {
  std::string name;        // "hbm_read_bytes"
  std::string expression;  // as written
  std::string unit;
  std::string description;
  Measure measures;
  std::shared_ptr<const Expr> expr;
  // `prefer:`, a formula over a derived counter rocprofv3 may write as a row of
  // its own (e.g. "1024*FETCH_SIZE"): evaluated before `expr` and never added
  // to what the set collects.
  std::string prefer;
  std::shared_ptr<const Expr> prefer_expr;
  // Counter names the expression refers to (constants left out), in order of
  // appearance.
  std::vector<std::string> counters;
  SourcePos pos;
};

struct MetricSet {
  std::string name;
  std::string description;
  std::string source_path;
  // What to collect: `counters` as written, then any counter a formula names
  // that is not listed.
  std::vector<std::string> counters;
  std::vector<SourcePos> counter_pos;  // parallel to counters (formula position for added ones)
  std::vector<MetricFormula> metrics;
};

// Loads and validates one set against `target` (unknown counters: error at
// file:line:col with the three nearest names).
MetricSet load_metric_set(const std::filesystem::path& file, const Target& target);
// The same from text already read: `source_path` names it in errors,
// `default_name` is the set's name when it has no name: key. Any input ends in
// a MetricSet or an Error(input) with a position.
MetricSet parse_metric_set(std::string_view text, const std::string& source_path,
                           const std::string& default_name, const Target& target);
// configs/metrics/<name>.yaml under `dir` (default
// kprof::config_dir()/metrics). Unknown name: error listing the nearest set
// names.
MetricSet load_metric_set_named(std::string_view name, const Target& target,
                                const std::optional<std::filesystem::path>& dir = std::nullopt);
// Names of the sets in `dir` (default config_dir()/metrics), sorted.
std::vector<std::string> metric_set_names(
    const std::optional<std::filesystem::path>& dir = std::nullopt);

}  // namespace kprof::hw
