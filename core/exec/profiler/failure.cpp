#include "core/exec/profiler/failure.hpp"

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
  // The shell's and env's words for a program that is not there (127) or cannot be executed
  // (126) (POSIX "Command Search and Execution", https://pubs.opengroup.org/onlinepubs/9799919799/
  // utilities/V3_chap02.html#tag_19_09_01_01; the double's fork-exec exits 127 too).
  if (r.signal == 0 && (r.exit_code == 127 || r.exit_code == 126)) {
    return {FailureKind::deterministic,
            "exit " + std::to_string(r.exit_code) + " (the workload program " +
                (r.exit_code == 127 ? "was not found" : "could not be executed") +
                ": check workload.command and its PATH)"};
  }
  return {FailureKind::transient, r.describe()};
}

}  // namespace kprof::exec
