// The use case of `kprof doctor [RUNBOOK]`: the pre-flight check of a node before a real run (what
// `rocprofv3-avail` and `nsys status -e` tell their users). One check per line, each passed,
// failed with a fix, or not needed: the runbook validated and planned, the rocprofv3 release and
// what kprof does with it, the GPUs and their architecture, each planned counter on the tool's
// list, the workload's PyTorch and vLLM and their ROCm builds, the model's weights, and free disk
// for the captures. `kprof run` runs it first with a real profiler and stops on a failed check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kprof::exec {

enum class CheckState { passed, failed, skipped };

struct DoctorCheck {
  CheckState state = CheckState::passed;
  std::string what;  // "rocprofv3: rocprofiler-sdk 1.0.0 (ROCm 7.0.0), ..."
  std::string fix;   // failed: what to do about it
};

struct DoctorRequest {
  std::optional<std::filesystem::path> runbook;
  std::optional<std::filesystem::path> db;  // as `kprof run --db`: where the captures go
  bool simulate = false;                    // the test double: no GPU, PyTorch or weights needed
  // Less free space than this where the captures go fails the disk check. A margin of kprof's
  // own for a trace pass plus counter passes, not a measured size.
  std::uint64_t min_free_bytes = std::uint64_t{4} << 30;
};

struct DoctorReport {
  std::vector<DoctorCheck> checks;
  bool ok() const;  // no check failed
};

// Runs every check; never throws for what it checks (a failed check is a line).
DoctorReport run_doctor(const DoctorRequest& request);

// One line per check, "✔ what", "✘ what" followed by an indented "fix: ..." line, or "– what"
// for a check not needed here; then a summary line. `width` > 0 wraps each at that many columns
// (a terminal's); 0 keeps each check on one line (logs, grep).
std::string doctor_text(const DoctorReport& report, size_t width = 0);

}  // namespace kprof::exec
