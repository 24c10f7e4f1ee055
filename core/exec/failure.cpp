#include "core/exec/failure.hpp"

#include <signal.h>

#include "core/base/text.hpp"

namespace kprof::exec {

bool log_shows_error_38(const std::string& log_tail) {
  return log_tail.find("error code 38") != std::string::npos ||
         log_tail.find("Request exceeds the capabilities of the hardware to collect") !=
             std::string::npos;
}

Failure classify(const RunResult& r, const std::vector<std::string>& counters) {
  if (r.interrupted) return {FailureKind::interrupted, r.describe()};
  if (r.ok()) return {};
  if (r.timed_out) return {FailureKind::transient, r.describe()};
  // rocprofv3 re-raises SIGABRT after its handler; through `sh -c` the same death reads as 134.
  const bool aborted = r.signal == SIGABRT || r.exit_code == 128 + SIGABRT;
  if (aborted && log_shows_error_38(r.log_tail)) {
    std::string what = "counters exceed hardware limits (rocprofiler error 38)";
    if (!counters.empty()) what += ": " + join(counters, " ");
    return {FailureKind::deterministic, what};
  }
  // A usage or input error of the workload (argparse, our qwen3_generate.py without a GPU) or of
  // rocprofv3 itself (unknown option): the same argv fails again.
  if (r.signal == 0 && r.exit_code == 2) {
    return {FailureKind::deterministic,
            "exit 2 (usage or input error of the workload or profiler)"};
  }
  return {FailureKind::transient, r.describe()};
}

const char* failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::none:
      return "none";
    case FailureKind::interrupted:
      return "interrupted";
    case FailureKind::deterministic:
      return "deterministic";
    case FailureKind::transient:
      return "transient";
  }
  return "?";
}

}  // namespace kprof::exec
