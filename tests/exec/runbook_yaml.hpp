// The runbook the exec tests write: one skeleton (schema 1, a workload, rocprofv3 with CSV output,
// gfx942, the trace pass, a counter pass, retries, the database) with what each test varies, so
// the end-to-end tests (executor_e2e.hpp), the executor's unit tests (executor_unit_fixture.hpp)
// and the plan tests (runbook_plan_test.cpp) keep one spelling of it.
#pragma once

#include <string>

namespace kprof::exec::testing {

struct RunbookYaml {
  std::string name = "small";
  std::string command;  // workload.command as a YAML flow list: "[\"./app\", \"--tokens\", \"8\"]"
  std::string timeout;  // workload.timeout ("60s"); empty: no limit
  int ranks = 0;        // workload.ranks; 0: not written
  std::string profiler = "  output_format: csv\n";  // the lines under `profiler:`
  bool stats = false;                               // passes.trace.stats: true
  std::string counters;             // passes.counters.counters ("A, B"); empty: no counter pass
  bool top_two_from_trace = false;  // passes.counters.kernels.from_trace: the 2 heaviest kernels
  std::string retry;                // the lines under `retry:`; empty: no retry map
  std::string database;             // empty: the default (<name>.db beside the runbook)
  std::string more;                 // appended as it is (e.g. a `sim:` map)
};

inline std::string runbook_yaml(const RunbookYaml& r) {
  std::string y =
      "schema_version: 1\nname: " + r.name + "\nworkload:\n  command: " + r.command + "\n";
  if (!r.timeout.empty()) y += "  timeout: " + r.timeout + "\n";
  if (r.ranks > 0) y += "  ranks: " + std::to_string(r.ranks) + "\n";
  y += "profiler:\n" + r.profiler +
       "target:\n  arch: gfx942\npasses:\n  trace:\n    enabled: true\n";
  if (r.stats) y += "    stats: true\n";
  if (!r.counters.empty()) {
    y += "  counters:\n    counters: [" + r.counters + "]\n";
    if (r.top_two_from_trace) y += "    kernels:\n      from_trace: {top: 2, by: total_duration}\n";
  }
  if (!r.retry.empty()) y += "retry:\n" + r.retry;
  if (!r.database.empty()) y += "database: " + r.database + "\n";
  return y + r.more;
}

}  // namespace kprof::exec::testing
