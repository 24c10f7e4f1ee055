#include "core/exec/passes/rotated_pass.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/passes/pass_plan.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

bool rotates(const runbook::Runbook& rb, const ProfilerBackend& backend) {
  const auto& r = rb.passes.counters.replay;
  if (r.value != runbook::Replay::rotate || !rb.passes.counters.enabled.value) return false;
  const ProfilerVersion& v = backend.version();
  if (!v.has_rocpd())
    throw Error(ErrorKind::input,
                runbook::diagnostic(rb, r.pos,
                                    "passes.counters.replay: rotate needs rocprofv3 from ROCm 7.0 "
                                    "(input-file pmc_groups), but " +
                                        v.summary(),
                                    "write replay: application, or use a newer ROCm"));
  if (rb.profiler.selected_regions.value && backend.counters_count_outside_regions())
    throw Error(ErrorKind::input,
                runbook::diagnostic(
                    rb, r.pos,
                    "passes.counters.replay: rotate is not supported with --selected-regions on " +
                        v.summary() +
                        ": this rocprofv3 counts (and rotates over) the warm-up's launches too",
                    "write replay: application, or use a rocprofv3 that pauses counters outside "
                    "the region (ROCm 7.13+)"));
  return true;
}

fs::path rotation_input_file(const runbook::Runbook& rb, int64_t run_id, int64_t ordinal) {
  return run_dir(rb, run_id) / ("pass-" + std::to_string(ordinal) + ".pmc_groups.json");
}

// JSON, not YAML: the launcher reads YAML only when PyYAML is importable by the Python it runs
// under, which ROCm's packages do not depend on (ROCm/rocm-systems projects/rocprofiler-sdk/
// source/bin/rocprofv3.py, parse_yaml's ImportError message); JSON needs nothing.
std::string rotation_input_text(const std::vector<std::vector<std::string>>& groups,
                                uint64_t interval) {
  nlohmann::json g = nlohmann::json::array();
  for (const auto& group : groups) g.push_back(group);
  const nlohmann::json job = {{"pmc_groups", g}, {"pmc_group_interval", interval}};
  return nlohmann::json{{"jobs", nlohmann::json::array({job})}}.dump(1) + "\n";
}

RotatedPass prepare_rotated_pass(store::CaptureDb& db, int64_t run_id, const runbook::Runbook& rb,
                                 const ProfilerBackend& backend,
                                 std::vector<std::vector<std::string>> groups,
                                 const fs::path& input_file) {
  RotatedPass out;
  out.groups = std::move(groups);
  const auto& c = rb.passes.counters;
  out.basis =
      rotation_on_run(db, run_id, rb, out.groups.size(), backend.version(), c.min_samples.value);
  const auto& p = out.basis;
  if (!p.unavailable.empty())
    throw Error(
        ErrorKind::input,
        runbook::diagnostic(rb, c.replay.pos, "passes.counters.replay: rotate: " + p.unavailable,
                            "write replay: application"));
  if (!p.choice.feasible)
    throw Error(
        ErrorKind::input,
        runbook::diagnostic(rb, c.replay.pos, "passes.counters.replay: rotate: " + p.choice.why,
                            "lower min_samples, narrow the kernels of interest, or write "
                            "replay: application"));
  if (p.choice.repeats > 1 && !rb.workload.repeat_option.value)
    throw Error(ErrorKind::input,
                runbook::diagnostic(
                    rb, c.replay.pos,
                    "passes.counters.replay: rotate needs the request repeated " +
                        std::to_string(p.choice.repeats) + " times in one run (" +
                        std::to_string(p.choice.least) +
                        "+ samples of every group for every variant), but the workload has no "
                        "repeat_option",
                    "add workload.repeat_option (e.g. --repeat for workloads/qwen3_generate.py), "
                    "lower min_samples, or write replay: application"));
  out.interval = p.choice.interval;
  out.repeats = p.choice.repeats;
  fs::create_directories(input_file.parent_path());
  const fs::path tmp = input_file.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << rotation_input_text(out.groups, out.interval);
    if (!f.flush())
      throw Error::runtime("cannot write '" + tmp.string() + "'",
                           "check the captures folder's permissions and free space");
  }
  fs::rename(tmp, input_file);
  return out;
}

}  // namespace kprof::exec
