// Failure classification: the generic rules (failure.hpp) and rocprofv3's own on top of them
// (Rocprofv3Backend::classify), checked through the backend as the executor calls it.
#include <gtest/gtest.h>
#include <signal.h>

#include "core/exec/profiler/failure.hpp"
#include "core/exec/profiler/rocprofv3_backend.hpp"

namespace kprof::exec {
namespace {

const runbook::Runbook& minimal_runbook() {
  static const runbook::Runbook rb = runbook::parse_runbook(
      "schema_version: 1\nname: f\nworkload:\n  command: [\"true\"]\n", "/tmp/f.yaml");
  return rb;
}

Failure classify(const RunResult& r, const std::vector<std::string>& counters) {
  Rocprofv3Backend backend(minimal_runbook(), Rocprofv3Options{});
  PassRequest pass;
  pass.mode = counters.empty() ? PassMode::trace : PassMode::counters;
  pass.counters = counters;
  return backend.classify(r, pass);
}

// The stderr rocprofv3 7.0 prints before aborting (ROCm/rocm-systems projects/rocprofiler-sdk/
// source/lib/rocprofiler-sdk-tool/tool.cpp, release/rocm-rel-7.0).
const char* k_error38_log =
    "F20250808 12:00:00.000000 1234 tool.cpp:1017]  :: [tool.cpp:1012]\n"
    "\trocprofiler_create_counter_config( agent_id, counters_v.data(), counters_v.size(), "
    "&profile_v)\n"
    "\n"
    "Could not construct profile cfg failed with error code 38: Request exceeds the capabilities "
    "of "
    "the hardware to collect\n"
    "*** Check failure stack trace: ***\n";

RunResult exited(int code, std::string log = {}) {
  RunResult r;
  r.exit_code = code;
  r.log_tail = std::move(log);
  return r;
}

RunResult signalled(int sig, std::string log = {}) {
  RunResult r;
  r.exit_code = -1;
  r.signal = sig;
  r.log_tail = std::move(log);
  return r;
}

TEST(Failure, SuccessIsNone) { EXPECT_EQ(classify(exited(0), {}).kind, FailureKind::none); }

TEST(Failure, Error38AbortIsDeterministicAndNamesCounters) {
  Failure f = classify(signalled(SIGABRT, k_error38_log), {"SQ_WAVES", "TCC_HIT_sum"});
  EXPECT_EQ(f.kind, FailureKind::deterministic);
  EXPECT_EQ(f.reason,
            "counters exceed hardware limits (rocprofiler error 38): SQ_WAVES TCC_HIT_sum");
}

TEST(Failure, Error38ThroughAShellIsExit134) {
  Failure f = classify(exited(134, k_error38_log), {"A"});
  EXPECT_EQ(f.kind, FailureKind::deterministic);
  EXPECT_EQ(f.reason, "counters exceed hardware limits (rocprofiler error 38): A");
}

TEST(Failure, AbortWithoutError38IsTransient) {
  Failure f = classify(signalled(SIGABRT, "some other assertion\n"), {"A"});
  EXPECT_EQ(f.kind, FailureKind::transient);
  EXPECT_EQ(f.reason, "killed by signal 6 (SIGABRT)");
}

TEST(Failure, ExitTwoIsDeterministic) {
  Failure f = classify(exited(2), {});
  EXPECT_EQ(f.kind, FailureKind::deterministic);
  EXPECT_EQ(f.reason, "exit 2 (usage or input error of the workload or profiler)");
}

// A workload program that is not there or cannot be executed: through a shell or the double's
// fork-exec (127/126), or through rocprofv3's os.execvpe (a Python traceback, exit 1).
TEST(Failure, MissingWorkloadProgramIsDeterministic) {
  Failure f = classify(exited(127), {});
  EXPECT_EQ(f.kind, FailureKind::deterministic);
  EXPECT_EQ(f.reason,
            "exit 127 (the workload program was not found: check workload.command and its PATH)");
  EXPECT_EQ(classify(exited(126), {}).kind, FailureKind::deterministic);
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"/opt/rocm/bin/rocprofv3\", line 1, in "
      "<module>\n    os.execvpe(app_args[0], app_args, env=app_env)\nFileNotFoundError: [Errno 2] "
      "No such file or directory: 'vlm'\n";
  f = classify(exited(1, traceback), {"SQ_WAVES"});
  EXPECT_EQ(f.kind, FailureKind::deterministic);
  EXPECT_NE(f.reason.find("could not be started (rocprofv3: FileNotFoundError"), std::string::npos)
      << f.reason;
}

TEST(Failure, CrashAndOtherExitsAreTransient) {
  EXPECT_EQ(classify(signalled(SIGSEGV), {}).kind, FailureKind::transient);
  EXPECT_EQ(classify(signalled(SIGSEGV), {}).reason, "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(classify(exited(1), {}).kind, FailureKind::transient);
  EXPECT_EQ(classify(exited(1), {}).reason, "exit 1");
}

TEST(Failure, TimeoutIsTransient) {
  RunResult r = signalled(SIGTERM);
  r.timed_out = true;
  r.duration = std::chrono::milliseconds(1500);
  Failure f = classify(r, {});
  EXPECT_EQ(f.kind, FailureKind::transient);
  EXPECT_EQ(f.reason.rfind("timed out after ", 0), 0u) << f.reason;
}

TEST(Failure, InterruptionWins) {
  RunResult r = signalled(SIGINT, k_error38_log);
  r.interrupted = true;
  r.interrupt_signal = SIGINT;
  Failure f = classify(r, {});
  EXPECT_EQ(f.kind, FailureKind::interrupted);
  EXPECT_EQ(f.reason, "interrupted (SIGINT)");
}

}  // namespace
}  // namespace kprof::exec
