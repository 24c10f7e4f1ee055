// The hardware target: blocks and their per-pass counter limits, base and derived counters,
// accumulate pairs and peaks, loaded from configs/hw/<arch>.yaml. Depends on nothing of ours but
// core/base. Used by the planner, by the analysis (evaluating derived metrics) and by the test
// double (refusing over-subscribed passes, computing counter values).
//
// CONTRACT: the declarations below are used by several subsystems; extend, don't change them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::hw {

// What a counter name is on a target (Target::kind_of).
enum class CounterKind { unknown, base, derived, channel };
// "base", "derived", "channel" or "unknown".
const char* to_string(CounterKind kind);

class Expr;  // parsed derived-counter expression (core/hw/expr.hpp)
namespace detail {
struct TargetData;  // core/hw/target_impl.hpp
}

struct Block {
  std::string name;           // "SQ", "TCC", ...
  int counters_per_pass = 0;  // simultaneous hardware counters (gfx942 SQ 8, TCC 4, ...)
  int instances = 1;          // per XCD (ROCm/aqlprofile gfxip/gfx9/gfx9_block_table.h)
  std::string description;
  SourcePos pos;
  // How many per-dimension values (XCD x INSTANCE x SE) rocprofv3 sums into one per-dispatch value;
  // reduce(X, avr|max|min) of a summed value divides by it (see evaluate()).
  int values_per_dispatch = 1;
};

struct BaseCounter {
  std::string name;   // "SQ_WAVES"
  std::string block;  // "SQ"
  std::string description;
  SourcePos pos;
  int event_id = -1;  // the block's select value (counter_defs.yaml `event`)
};

struct DerivedCounter {
  std::string name;        // "FETCH_SIZE"
  std::string expression;  // as written in the catalog
  std::string description;
  std::shared_ptr<const Expr> expr;
  SourcePos pos;
};

// One hardware event a pass must program: a base counter, possibly with the accumulate flag
// (`accumulate(SQ_LEVEL_WAVES, HIGH_RES)` is a different event than plain SQ_LEVEL_WAVES).
struct Event {
  std::string counter;
  std::string flag;  // "" or "HIGH_RES" / "LOW_RES"
  auto operator<=>(const Event&) const = default;
  std::string str() const;  // "SQ_LEVEL_WAVES" or "SQ_LEVEL_WAVES:HIGH_RES"
};

struct Peaks {
  double hbm_bytes_per_s = 0;
  double l2_bytes_per_s = 0;
  double matrix_bf16_flops = 0;  // also FP16
  double matrix_fp8_flops = 0;
  double matrix_fp32_flops = 0;  // also FP64 matrix
  double vector_fp64_flops = 0;
  double vector_fp32_flops = 0;
  int cus = 0;
  int xcds = 0;
  double clock_mhz = 0;
  int wave_size = 64;
};

// Slots used per block by a set of requested counters, and whether it fits one pass.
struct Occupancy {
  std::map<std::string, int> used;       // block -> distinct events
  std::vector<std::string> over_blocks;  // blocks whose limit is exceeded, sorted
  bool fits() const { return over_blocks.empty(); }
  // Accumulate-flagged events in the set. More than Target::accumulate_per_pass() also puts the
  // accumulated counter's block (SQ) into over_blocks: its one accumulator is then oversubscribed.
  int accumulate_events = 0;
};

class Target {
 public:
  // Loads and validates a hardware file. Errors (unknown block, counter defined twice, expression
  // naming an unknown counter, bad YAML) carry the file:line:col of the offending entry.
  // The file is read only if it is a regular file of at most k_max_file_bytes (a FIFO or
  // /dev/zero named as a hardware file is refused at once, core/base/input_file.hpp).
  static Target load(const std::filesystem::path& yaml_file);
  // The same from bytes already read; `source_name` names them in positions.
  static Target parse(std::string_view yaml_text, const std::string& source_name);
  static constexpr std::uint64_t k_max_file_bytes = 16u << 20;  // gfx942.yaml is 95 KB
  // configs/hw/<arch>.yaml under kprof::config_dir().
  static Target load_arch(std::string_view arch);

  const std::string& arch() const;
  const std::string& source_path() const;
  const std::vector<Block>& blocks() const;
  const Block* block(std::string_view name) const;
  const BaseCounter* base(std::string_view name) const;
  const DerivedCounter* derived(std::string_view name) const;
  bool known(std::string_view name) const { return base(name) || derived(name); }
  // All counter names (base and derived), sorted.
  std::vector<std::string> counter_names() const;
  // Three nearest known names for an unknown one (for "unknown counter" errors).
  std::vector<std::string> nearest(std::string_view name, size_t n = 3) const;

  // Hardware events needed to collect `name` (itself if base, the expansion if derived).
  // Throws Error(input) "unknown counter 'X'" with the nearest names as hint.
  // accumulate(X, F) expands to both X:F and plain X: the accumulator sums the previous SQ counter,
  // so X must be programmed in the same pass (ROCm/aqlprofile
  // src/core/counters.cpp HandleSQFlagsBlock). Channel names X[n]
  // expand to X.
  std::vector<Event> events_of(std::string_view name) const;
  // Occupancy of collecting all `names` together in one pass (events deduplicated across names).
  Occupancy occupancy(const std::vector<std::string>& names) const;

  // Value of counter `name` for one dispatch. `base_value` gives the dispatch's summed value of a
  // base event (nullopt if not collected). Returns nullopt when an input is missing; NaN/inf never.
  std::optional<double> evaluate(
      std::string_view name,
      const std::function<std::optional<double>(const Event&)>& base_value) const;

  const Peaks& peaks() const;

  // --- additions beyond the first contract ---

  // Like events_of, but an unknown-counter error carries `pos` (e.g. the runbook line naming it).
  std::vector<Event> events_at(std::string_view name, const std::optional<SourcePos>& pos) const;
  // Hardware events of a parsed expression (metric formulas of metric sets, analysis formulas).
  std::vector<Event> events_of(const Expr& expr) const;
  // Value of a parsed expression for one dispatch, with the same semantics as evaluate(name).
  std::optional<double> evaluate(
      const Expr& expr, const std::function<std::optional<double>(const Event&)>& base_value) const;
  // The same for a formula of the caller's (a metric set's) whose own names may have values of
  // the caller's: rocprofv3 writes derived counters' values beside the base ones, and the value a
  // capture holds is the figure to use. A name of the formula's arithmetic (+ - * / and negation,
  // outside any function call) takes `own_value(name node)` first, then a derived counter's
  // definition over `base_value`; a name neither gives has no value. Function calls (reduce,
  // accumulate, select, max, min) and derived definitions are evaluated as evaluate() does.
  std::optional<double> evaluate_formula(
      const Expr& expr, const std::function<std::optional<double>(const Event&)>& base_value,
      const std::function<std::optional<double>(const Expr&)>& own_value) const;
  // base, derived, channel (X[n]: one channel of base counter X; costs X's slot) or unknown.
  // Channel names are accepted by events_of/occupancy but not by known().
  CounterKind kind_of(std::string_view name) const;
  // Block a hardware event is programmed on (nullptr for an event of an unknown counter).
  const Block* block_of(const Event& event) const;
  // Agent constants used by derived expressions (simd_count, wave_front_size, ...).
  const std::map<std::string, double>& constants() const;
  // Accumulate-flagged events one pass may hold, and the counters that may be accumulated.
  int accumulate_per_pass() const;
  const std::vector<std::string>& accumulate_counters() const;
  // Derived counter names, sorted.
  std::vector<std::string> derived_names() const;
  std::vector<std::string> base_names() const;

 private:
  static Target from_data(detail::TargetData data);
  struct Impl;
  std::shared_ptr<const Impl> m_impl;
};

}  // namespace kprof::hw
