// rocprofv3 as a ProfilerBackend, and the test double rocprofv3-sim as a variant of it: the same
// command lines (the double parses rocprofv3's), plus the double's variables in the environment.
#pragma once

#include "core/exec/profiler/profiler_backend.hpp"

namespace kprof::exec {

struct Rocprofv3Options {
  std::string executable = "rocprofv3";
  bool simulated = false;       // the double: figures are simulated
  std::optional<int64_t> seed;  // the double's seed
  ProfilerVersion version;      // what `--version` said (or a recorded copy)
};

// Whether `--help` lists `--replay-mode` and `--kernel-replay-beta-enabled` (asked only for a
// runbook that wants `replay: kernel`), and what was found, for messages.
struct KernelReplaySupport {
  bool offered = false;
  std::string probe = "not asked";
};

class Rocprofv3Backend final : public ProfilerBackend {
 public:
  Rocprofv3Backend(const runbook::Runbook& rb, Rocprofv3Options options,
                   KernelReplaySupport kernel_replay = {});

  std::string_view name() const override;
  const std::string& executable() const override { return m_options.executable; }
  bool simulated() const override { return m_options.simulated; }
  std::optional<int64_t> seed() const override { return m_options.seed; }
  const ProfilerVersion& version() const override { return m_options.version; }
  bool plans_counter_passes() const override { return true; }
  bool counters_count_outside_regions() const override;
  bool offers_kernel_replay() const override { return m_kernel_replay.offered; }
  std::string kernel_replay_probe() const override { return m_kernel_replay.probe; }

  std::vector<std::string> argv(const PassRequest& pass) const override;
  store::EnvDelta env() const override { return m_env; }
  std::span<const runbook::OwnedOption> owned_options() const override;
  Failure classify(const RunResult& result, const PassRequest& pass) const override;

  // The output format the passes use: the runbook's when it names one, else rocprofv3's default
  // for this version (rocpd from 1.0.0, csv before), and csv when the version has no rocpd.
  std::string output_format() const;

 private:
  const runbook::Runbook& m_rb;
  Rocprofv3Options m_options;
  KernelReplaySupport m_kernel_replay;
  store::EnvDelta m_env;
};

// The backend registered as "rocprofv3" (profiler_backends.cpp): the runbook's `profiler.path`
// (default "rocprofv3" on PATH), or with `choice.simulate` the double rocprofv3-sim from beside
// the kprof executable; a runbook whose profiler already is rocprofv3-sim is simulated as well.
// Reads the version (runs `<profiler> --version`) unless `choice.recorded_version` is given.
// Throws Error(runtime) when --simulate is asked and the double is missing.
std::unique_ptr<ProfilerBackend> make_rocprofv3_backend(const runbook::Runbook& rb,
                                                        const BackendChoice& choice);

// Whether the passes run the test double: --simulate, or a runbook whose `profiler.path` is
// rocprofv3-sim. The one place that decides it: make_rocprofv3_backend marks the backend (and so
// the run's stored provenance, run_provenance.hpp) simulated, and `kprof run` skips the node's
// checks for it.
bool runs_test_double(const runbook::Runbook& rb, bool simulate);

// The counter input file of a pass on a release without --pmc (ROCm 6.2): beside the pass's
// output folder, which is emptied before every attempt.
std::filesystem::path counter_input_file(const std::filesystem::path& output_dir);

// Writes the counter input file an attempt's argv names (`-i <...>.pmc.json`), in ROCm 6.2's
// shape: {"metrics": [{"pmc": [...]}]}, JSON because the launcher reads YAML only when PyYAML is
// importable (ROCm/rocprofiler-sdk tag rocm-6.2.0 source/bin/rocprofv3.py, parse_json and
// parse_yaml). Does nothing for an argv without one. Throws Error(runtime) when it cannot write.
void write_counter_input_file(const std::vector<std::string>& argv,
                              const std::vector<std::string>& counters);

// The rocprofiler-sdk text of ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT (error 38) as rocprofv3
// logs it before abort() (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/
// rocprofiler-sdk-tool/tool.cpp, release/rocm-rel-7.0, the ROCP_FATAL after
// rocprofiler_create_counter_config).
bool log_shows_error_38(const std::string& log_tail);

// Runs `<executable> --version` (with `env` on top of kprof's environment) and parses what it
// prints. A tool that rejects the option, prints nothing usable or cannot be started gives an
// unknown version saying why; it never throws.
ProfilerVersion read_rocprofv3_version(const std::string& executable, const store::EnvDelta& env);

// Whether `<executable> --help` offers kernel replay: both `--replay-mode` and
// `--kernel-replay-beta-enabled` (ROCm/rocm-systems projects/rocprofiler-sdk/source/docs/how-to/
// using-kernel-replay-rocprofv3.rst; no release names them in CHANGELOG.md up to 1.3.5, so the
// tool itself is asked, not its version). `probe` gets what was found, for messages.
bool read_rocprofv3_kernel_replay(const std::string& executable, const store::EnvDelta& env,
                                  std::string& probe);

}  // namespace kprof::exec
