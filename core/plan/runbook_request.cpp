#include "core/plan/runbook_request.hpp"

#include <algorithm>

#include "core/base/text.hpp"

namespace kprof::plan {
namespace {

std::string agent_index_text(runbook::AgentIndex a) {
  switch (a) {
    case runbook::AgentIndex::absolute:
      return "absolute";
    case runbook::AgentIndex::relative:
      return "relative";
    case runbook::AgentIndex::type_relative:
      return "type-relative";
  }
  return "relative";
}

}  // namespace

Request request_from_runbook(const runbook::Runbook& rb, const hw::Target& target,
                             const std::vector<hw::MetricSet>& sets) {
  Request r;
  const auto& cp = rb.passes.counters;
  for (const auto& name : cp.metric_sets.value) {
    auto it = std::find_if(sets.begin(), sets.end(),
                           [&](const hw::MetricSet& s) { return s.name == name.value; });
    if (it == sets.end()) {
      std::vector<std::string> names;
      for (const auto& s : sets) names.push_back(s.name);
      throw Error(ErrorKind::input,
                  runbook::diagnostic(rb, name.pos, "unknown metric set '" + name.value + "'",
                                      did_you_mean(nearest_names(name.value, names, 3, true))));
    }
    append_metric_set(r, *it);
  }
  auto check = [&](const runbook::LocatedString& n) {
    if (target.kind_of(n.value) == hw::CounterKind::unknown)
      throw Error(
          ErrorKind::input,
          runbook::diagnostic(rb, n.pos, "unknown counter '" + n.value + "' for " + target.arch(),
                              did_you_mean(target.nearest(n.value))));
  };
  for (const auto& c : cp.counters.value) {
    check(c);
    r.counters.push_back(Requested{c.value, c.pos});
  }
  for (const auto& pin : cp.pins.value) {
    Pin p;
    p.pos = pin.pos;
    for (const auto& n : pin.value) {
      check(n);
      p.names.push_back(n.value);
    }
    r.pins.push_back(std::move(p));
  }
  return r;
}

PassCommand pass_command_from_runbook(const runbook::Runbook& rb,
                                      const std::vector<std::string>& counters,
                                      const std::filesystem::path& output_dir,
                                      const std::string& output_name,
                                      const std::optional<std::string>& kernel_include_regex) {
  PassCommand c;
  c.rocprofv3 = rb.profiler.path.value.empty() ? "rocprofv3" : rb.profiler.path.value;
  c.counters = counters;
  c.output_dir = output_dir;
  c.output_name = output_name;
  c.output_format =
      rb.profiler.output_format.value == runbook::OutputFormat::rocpd ? "rocpd" : "csv";
  const auto& k = rb.passes.counters.kernels;
  c.kernel_include_regex = kernel_include_regex ? kernel_include_regex : k.include_regex.value;
  c.kernel_exclude_regex = k.exclude_regex.value;
  c.kernel_iteration_range = rb.passes.counters.iteration_range.value;
  c.selected_regions = rb.profiler.selected_regions.value;
  c.truncate_kernels = rb.profiler.truncate_kernels.value;
  if (rb.profiler.agent_index.value)
    c.agent_index = agent_index_text(*rb.profiler.agent_index.value);
  for (const auto& e : rb.profiler.extra_args.value) c.extra_args.push_back(e.value);
  if (rb.workload.shell.value) {
    c.app = {"/bin/sh", "-c",
             rb.workload.command.value.empty() ? "" : rb.workload.command.value[0].value};
  } else {
    for (const auto& w : rb.workload.command.value) c.app.push_back(w.value);
  }
  return c;
}

}  // namespace kprof::plan
