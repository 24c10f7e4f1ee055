#include "core/plan/rocprof_command.hpp"

#include <cctype>
#include <string_view>

namespace kprof::plan {

std::vector<std::string> rocprof_argv(const PassCommand& c) {
  std::vector<std::string> a{c.rocprofv3, "--pmc"};
  a.insert(a.end(), c.counters.begin(), c.counters.end());
  a.insert(a.end(), {"-d", c.output_dir.string(), "-o", c.output_name, "-f", c.output_format});
  if (c.kernel_include_regex)
    a.insert(a.end(), {"--kernel-include-regex", *c.kernel_include_regex});
  if (c.kernel_exclude_regex)
    a.insert(a.end(), {"--kernel-exclude-regex", *c.kernel_exclude_regex});
  if (c.kernel_iteration_range)
    a.insert(a.end(), {"--kernel-iteration-range", *c.kernel_iteration_range});
  if (c.selected_regions) a.push_back("--selected-regions");
  if (c.truncate_kernels) a.push_back("--truncate-kernels");
  if (c.agent_index) a.insert(a.end(), {"--agent-index", *c.agent_index});
  a.insert(a.end(), c.extra_args.begin(), c.extra_args.end());
  a.push_back("--");
  a.insert(a.end(), c.app.begin(), c.app.end());
  return a;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    bool plain = !a.empty();
    for (char ch : a)
      plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) ||
                        std::string_view("_-./=:,+@%").find(ch) != std::string_view::npos);
    if (plain) {
      s += a;
    } else {
      s += '\'';
      for (char ch : a) s += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      s += '\'';
    }
  }
  return s;
}

}  // namespace kprof::plan
