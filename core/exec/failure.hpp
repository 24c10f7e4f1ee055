// How a failed pass attempt is classified: whether retrying can help, and the reason stored in the
// database and printed by `kprof status`. These are the rules that hold for any profiler; a
// backend (profiler_backend.hpp) adds what it knows about its own failures first.
#pragma once

#include <string>

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

// Interrupted, ok, timed out, exit 2 (usage error: deterministic), anything else transient.
Failure classify_generic(const RunResult& result);

const char* failure_kind_name(FailureKind kind);

}  // namespace kprof::exec
