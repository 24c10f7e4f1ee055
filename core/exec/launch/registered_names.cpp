#include "core/exec/launch/registered_names.hpp"

#include <algorithm>

#include "core/base/text.hpp"
#include "core/exec/launch/pass_launcher.hpp"
#include "core/exec/profiler/counter_names.hpp"
#include "core/exec/profiler/profiler_backend.hpp"

namespace kprof::exec {

std::vector<Diagnostic> unregistered_names(const runbook::Runbook& rb) {
  std::vector<Diagnostic> out;
  const auto check = [&](const runbook::LocatedString& name, std::string_view key,
                         const std::vector<std::string>& names) {
    if (std::find(names.begin(), names.end(), name.value) == names.end())
      out.push_back(runbook::unknown_value(rb, name, key, names));
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
