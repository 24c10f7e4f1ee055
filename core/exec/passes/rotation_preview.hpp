// What one-run counter rotation would take for a runbook's counter passes, planned on a trace pass
// already in the capture database (core/plan/rotation.hpp does the arithmetic): the kernel
// variants the rotated run would count, in the trace's dispatch order, the interval and the
// number of repeated requests, and how many application runs that saves.
//
// Each launch is counted with one group only, so figures combining groups are means over
// different launches of a variant: a statistical join, never one launch's numbers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/exec/profiler/rocprofv3_version.hpp"
#include "core/plan/rotation.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

struct RotationVariant {
  std::string kernel;       // name as traced
  std::string shape;        // "grid 1048576x1x1, wg 256x1x1"
  int64_t per_request = 0;  // launches in the trace's region (one request)
};

struct RotationPreview {
  std::string unavailable;  // non-empty: why there is no preview
  int64_t trace_run = 0;    // the run whose trace pass was used
  size_t groups = 0;        // one per counter pass of the plan
  int64_t min_samples = 30;
  bool phase_known = true;
  std::vector<RotationVariant> variants;
  plan::RotationChoice choice;
  int64_t region_ns = 0;  // the trace region's span (first start to last end), one request
};

// Reads the last run of `db` with a finished trace pass. `groups`: the counter passes planned.
// rocprofv3 older than ROCm 7.0 has no pmc_groups: the preview says so.
RotationPreview preview_rotation(const std::filesystem::path& db, const runbook::Runbook& rb,
                                 size_t groups, const ProfilerVersion& version,
                                 int64_t min_samples = 30);

// The same on run `run_id` of an open database (the executor, before it launches the rotated
// pass of that run). Reads the trace pass's stored variants once, decides per distinct kernel
// name whether the counter passes count it, then walks only the dispatches' variant ids in
// (pid, Dispatch_Id) order: no name and no regex per dispatch.
RotationPreview rotation_on_run(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                size_t groups, const ProfilerVersion& version, int64_t min_samples);

// Whether the rotated pass counts a kernel, by name.
using KernelPredicate = std::function<bool(const std::string& name)>;
// The counter passes' kernels of run `run_id`: its kernels of interest when it has any, else the
// runbook's include/exclude regexes as rocprofv3 applies them (regex_search).
KernelPredicate counted_kernels(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb);
// rotation_on_run with the predicate given (the tests count how often it is asked: once per
// distinct kernel name of the trace).
RotationPreview rotation_on_run(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                size_t groups, const ProfilerVersion& version, int64_t min_samples,
                                const KernelPredicate& counted);

}  // namespace kprof::exec
