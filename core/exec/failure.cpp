#include "core/exec/failure.hpp"

namespace kprof::exec {

Failure classify_generic(const RunResult& r) {
  if (r.interrupted) return {FailureKind::interrupted, r.describe()};
  if (r.ok()) return {};
  if (r.timed_out) return {FailureKind::transient, r.describe()};
  // A usage or input error of the workload (argparse, our qwen3_generate.py without a GPU) or of
  // the profiler itself (unknown option): the same argv fails again.
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
