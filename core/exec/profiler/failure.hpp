// How a failed pass attempt is classified: whether retrying can help, and the reason stored in the
// database and printed by `kprof status`. These are the rules that hold for any profiler; a
// backend (profiler_backend.hpp) adds what it knows about its own failures first.
#pragma once

#include <string>
#include <string_view>

#include "core/exec/node/process_runner.hpp"

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

// Interrupted, ok, timed out, exit 2 (usage error), 126/127 (the program cannot be executed or is
// not found): deterministic; anything else transient.
Failure classify_generic(const RunResult& result);

// The end of a failed pass's stored reason when a retry would fail the same way.
inline constexpr std::string_view k_not_retried = " (not retried: deterministic)";
// The start of a planned counter pass's reason while a trace pass that failed that way holds it
// back (`kprof status` shows it blocked; a resume runs it once the trace pass is done).
inline constexpr std::string_view k_blocked_prefix = "blocked: ";

}  // namespace kprof::exec
