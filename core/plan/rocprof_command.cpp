#include "core/plan/rocprof_command.hpp"

namespace kprof::plan {

std::vector<std::string> rocprof_argv(const PassCommand& c) {
  std::vector<std::string> a{c.rocprofv3};
  const bool trace = c.mode == PassMode::trace;
  if (trace) {
    a.push_back("--kernel-trace");
    if (c.stats) a.push_back("--stats");
    if (c.marker_trace) a.push_back("--marker-trace");
  } else if (c.input_file) {
    a.insert(a.end(), {"-i", c.input_file->string()});
  } else if (!c.replay_groups.empty()) {
    for (const auto& g : c.replay_groups) {
      a.push_back("--pmc");
      a.insert(a.end(), g.begin(), g.end());
    }
    a.insert(a.end(), {"--replay-mode", "kernel", "--kernel-replay-beta-enabled"});
  } else {
    a.push_back("--pmc");
    a.insert(a.end(), c.counters.begin(), c.counters.end());
  }
  a.insert(a.end(), {"-d", c.output_dir.string(), "-o", c.output_name, c.output_format_option,
                     c.output_format});
  if (!trace) {
    if (c.kernel_include_regex)
      a.insert(a.end(), {"--kernel-include-regex", *c.kernel_include_regex});
    if (c.kernel_exclude_regex)
      a.insert(a.end(), {"--kernel-exclude-regex", *c.kernel_exclude_regex});
    if (c.kernel_iteration_range)
      a.insert(a.end(), {"--kernel-iteration-range", *c.kernel_iteration_range});
    if (c.marker_trace) a.push_back("--marker-trace");
  }
  if (c.selected_regions) a.push_back("--selected-regions");
  if (c.truncate_kernels) a.push_back("--truncate-kernels");
  if (c.agent_index) a.insert(a.end(), {"--agent-index", *c.agent_index});
  a.insert(a.end(), c.extra_args.begin(), c.extra_args.end());
  a.push_back("--");
  a.insert(a.end(), c.app.begin(), c.app.end());
  return a;
}

}  // namespace kprof::plan
