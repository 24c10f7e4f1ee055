#include "core/exec/registered_names.hpp"

#include <algorithm>

#include "core/base/text.hpp"
#include "core/exec/counter_names.hpp"
#include "core/exec/pass_launcher.hpp"
#include "core/exec/profiler_backend.hpp"

namespace kprof::exec {

Diagnostic unregistered_name(const runbook::Runbook& rb, const runbook::LocatedString& name,
                             std::string_view key, const std::vector<std::string>& names) {
  // Spelt as the runbook's other closed choices are (core/runbook/yaml_values.cpp, choice).
  const std::string choices = names.size() == 2 ? names[0] + " or " + names[1] : join(names, ", ");
  const std::string meant = did_you_mean(nearest_names(name.value, names, 1));
  return runbook::diagnostic(rb, name.pos,
                             std::string(key) + ": unknown value '" + name.value + "'",
                             (meant.empty() ? "" : meant + " ") + "use " + choices);
}

std::vector<Diagnostic> unregistered_names(const runbook::Runbook& rb) {
  std::vector<Diagnostic> out;
  const auto check = [&](const runbook::LocatedString& name, std::string_view key,
                         const std::vector<std::string>& names) {
    if (std::find(names.begin(), names.end(), name.value) == names.end())
      out.push_back(unregistered_name(rb, name, key, names));
  };
  check(rb.profiler.backend, "profiler.backend", profiler_backend_names());
  check(rb.launcher.type, "launcher.type", pass_launcher_names());
  return out;
}

void check_registered_names(const runbook::Runbook& rb) {
  auto problems = unregistered_names(rb);
  for (auto& d : unknown_counter_names(rb)) problems.push_back(std::move(d));
  if (!problems.empty()) throw Error(ErrorKind::input, std::move(problems));
}

}  // namespace kprof::exec
