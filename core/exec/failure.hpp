// How a failed pass attempt is classified: whether retrying can help, and the reason stored in the
// database and printed by `kprof status`.
#pragma once

#include <string>
#include <vector>

#include "core/exec/process_runner.hpp"

namespace kprof::exec {

enum class FailureKind {
  none,           // the attempt succeeded
  interrupted,    // kprof was asked to stop; the pass is re-run by `kprof resume`
  deterministic,  // the same inputs fail the same way: never retried
  transient,      // may succeed on another attempt: retried per the runbook's retry policy
};

struct Failure {
  FailureKind kind = FailureKind::none;
  std::string reason;  // one line, e.g. "counters exceed hardware limits: SQ_WAVES, ..."
};

// `counters` are the pass's requested counters, named in the error-38 message so the user knows
// which set the GPU refused.
Failure classify(const RunResult& result, const std::vector<std::string>& counters);

// The rocprofiler-sdk text of ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT as rocprofv3 logs it before
// abort() (shared/facts/rocprofv3.md §3; source: ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/rocprofiler-sdk-tool/tool.cpp, release/rocm-rel-7.0).
bool log_shows_error_38(const std::string& log_tail);

const char* failure_kind_name(FailureKind kind);

}  // namespace kprof::exec
