#include "core/exec/passes/kernel_selection.hpp"

#include <algorithm>
#include <regex>
#include <string_view>

#include "core/base/error.hpp"
#include "core/store/analysis_reads.hpp"

namespace kprof::exec {

std::string regex_escape(const std::string& name) {
  static constexpr std::string_view k_meta = R"(\^$.|?*+()[]{})";
  std::string out;
  out.reserve(name.size() + 8);
  for (char c : name) {
    if (k_meta.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string exact_names_regex(const std::vector<std::string>& names) {
  std::string re = "^(?:";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) re += '|';
    re += regex_escape(names[i]);
  }
  return re + ")$";
}

std::vector<KernelTotal> kernel_totals(store::CaptureDb& db, int64_t trace_pass_id) {
  std::vector<KernelTotal> out;
  for (auto& t : store::kernel_name_totals(db, trace_pass_id))
    out.push_back({std::move(t.name), t.calls, t.total_ns});
  return out;
}

std::function<bool(const std::string& name)> kernel_regex_filter(
    const runbook::KernelSelection& rules) {
  // ECMAScript and regex_search, as rocprofv3 applies them (ROCm/rocm-systems
  // projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp).
  std::optional<std::regex> include, exclude;
  if (rules.include_regex.value)
    include.emplace(*rules.include_regex.value, std::regex::ECMAScript);
  if (rules.exclude_regex.value)
    exclude.emplace(*rules.exclude_regex.value, std::regex::ECMAScript);
  return [include = std::move(include), exclude = std::move(exclude)](const std::string& name) {
    if (include && !std::regex_search(name, *include)) return false;
    return !(exclude && std::regex_search(name, *exclude));
  };
}

bool selection_needs_trace(const runbook::KernelSelection& rules) {
  return rules.from_trace.has_value();
}

Selection select_kernels(const runbook::KernelSelection& rules,
                         const std::vector<KernelTotal>& totals) {
  const bool include = rules.include_regex.value.has_value();
  const bool exclude = rules.exclude_regex.value.has_value();
  const auto passes = kernel_regex_filter(rules);
  std::vector<KernelTotal> kept;
  for (const auto& t : totals)
    if (passes(t.name)) kept.push_back(t);

  Selection sel;
  if (!rules.from_trace) {
    // The runbook's regexes go to rocprofv3 unchanged; record what they match in this trace.
    if (!include && !exclude) return sel;
    std::sort(kept.begin(), kept.end(), [](const KernelTotal& a, const KernelTotal& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    std::string reason;
    if (include) reason = "include_regex '" + *rules.include_regex.value + "'";
    if (exclude)
      reason += std::string(reason.empty() ? "" : ", ") + "exclude_regex '" +
                *rules.exclude_regex.value + "'";
    for (size_t i = 0; i < kept.size(); ++i) {
      sel.kernels.push_back({kept[i].name, static_cast<int64_t>(i + 1), reason});
    }
    return sel;
  }

  const auto& ft = *rules.from_trace;
  const bool by_calls = ft.by.value == runbook::RankBy::calls;
  std::sort(kept.begin(), kept.end(), [&](const KernelTotal& a, const KernelTotal& b) {
    const int64_t ka = by_calls ? a.calls : a.total_ns;
    const int64_t kb = by_calls ? b.calls : b.total_ns;
    return ka != kb ? ka > kb : a.name < b.name;  // ties by name: the same trace, the same choice
  });
  if (kept.empty()) {
    throw Error::runtime("no kernel of the trace pass passes passes.counters.kernels' regexes",
                         "check include_regex/exclude_regex against 'kprof status' or the trace");
  }
  const size_t n = std::min(kept.size(), static_cast<size_t>(std::max(ft.top.value, 0)));
  const std::string reason =
      "top " + std::to_string(ft.top.value) + " by " + std::string(runbook::to_string(ft.by.value));
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    sel.kernels.push_back({kept[i].name, static_cast<int64_t>(i + 1), reason});
    names.push_back(kept[i].name);
  }
  sel.include_regex = exact_names_regex(names);
  return sel;
}

}  // namespace kprof::exec
