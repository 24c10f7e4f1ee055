// Kernels of interest: chosen from the trace pass by the runbook's `passes.counters.kernels`
// (include/exclude regexes and/or the top N by total duration or calls), then handed to rocprofv3
// as one `--kernel-include-regex` that matches exactly those names.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct KernelTotal {
  std::string name;
  int64_t calls = 0;
  int64_t total_ns = 0;
};

struct Selection {
  std::vector<store::SelectedKernel> kernels;  // what is recorded in the database, by rank
  // The include regex for counter passes: nullopt = the runbook's own include_regex (or none).
  std::optional<std::string> include_regex;
};

// Escapes every ECMAScript metacharacter so the regex matches `name` literally.
std::string regex_escape(const std::string& name);
// "^(?:a|b)$" for names a and b, each escaped: rocprofv3 uses regex_search, so the anchors keep
// `gemm` from also selecting `gemm_splitk`.
std::string exact_names_regex(const std::vector<std::string>& names);

// The runbook's include/exclude regexes as rocprofv3 applies them to a kernel name (ECMAScript,
// regex_search): whether `name` passes both. Without either regex every name passes. The one
// reading of those regexes for the selection, the rotation preview and the model's estimate.
std::function<bool(const std::string& name)> kernel_regex_filter(
    const runbook::KernelSelection& rules);

// Per-kernel totals of a trace pass, by name (store::kernel_name_totals: one scan of the narrow
// rows summed per variant, each name read once).
std::vector<KernelTotal> kernel_totals(store::CaptureDb& db, int64_t trace_pass_id);

// Applies the selection rules. Throws Error (runtime) when from_trace asks for kernels and the
// trace has none that pass the regexes.
Selection select_kernels(const runbook::KernelSelection& rules,
                         const std::vector<KernelTotal>& totals);

// True when the selection needs the trace pass (from_trace).
bool selection_needs_trace(const runbook::KernelSelection& rules);

}  // namespace kprof::exec
