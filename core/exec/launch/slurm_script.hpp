// The batch script of a Slurm job array that runs passes, one array task per pass: the task id is
// the pass ordinal, so `--array=1-12` runs counter passes 1..12 and a resume submits only the
// ordinals left (`--array=3,7`). The script is self-contained (each pass's exact command, env
// delta, folder, log and time limit, all shell-quoted): the compute nodes need the profiler and
// the workload, not kprof, and never open the capture database (SQLite's WAL does not work over a
// network file system, https://sqlite.org/wal.html). `kprof run --slurm` submits it;
// `kprof plan --emit-sbatch` prints it for users who submit by hand.
//
// GPUs: `--gres=gpu:N` makes Slurm set ROCR_VISIBLE_DEVICES (and CUDA_VISIBLE_DEVICES,
// GPU_DEVICE_ORDINAL) to the task's devices (slurm src/plugins/gres/gpu/gres_gpu.c in
// SchedMD/slurm sets them in the task's environment); the script never sets them, so a pass
// profiles the GPU Slurm gave it. Where ROCR_VISIBLE_DEVICES is set it unsets the HIP-level
// duplicates (CUDA_/HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL), which HIP would apply a second time
// to the one device ROCr left (slurm_script.cpp says why).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::exec {

// One pass as an array task.
struct SlurmTask {
  int64_t index = 0;  // the array task id: the pass ordinal
  std::vector<std::string> argv;
  store::EnvDelta env;
  std::filesystem::path cwd;         // empty: the submit folder (sbatch's default)
  std::filesystem::path output_dir;  // emptied before the command runs, as the local launcher does
  std::filesystem::path log_path;    // the command's stdout+stderr, appended
  std::chrono::milliseconds timeout{0};  // 0: none (Slurm's --time still applies)
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};
  // Written to <output_dir>/kprof-pass.json before the command runs (pass_manifest.hpp); empty:
  // none.
  std::string manifest;
  // The profiler release the command was built for (ProfilerVersion::release_key) and its summary.
  // Set: the task first asks its own node's profiler (`argv[0] --version`), writes what it says to
  // <output_dir>/kprof-release.txt, and on any other release exits 2 naming both, before the
  // workload starts: the plan read the release on the submitting node, and a command for another
  // release's options fails late or measures differently.
  std::string release;
  std::string release_text;
};

// The runbook's `launcher:` settings and `kprof run --slurm` flags.
struct SbatchOptions {
  std::string job_name = "kprof";
  std::string partition;                // --partition; empty: the cluster's default
  std::string time_limit;               // --time as Slurm reads it ("30:00"); empty: default
  int gpus_per_task = 1;                // --gres=gpu:N; 0: no GPU asked
  std::vector<std::string> extra_args;  // more sbatch options, one per #SBATCH line
  std::filesystem::path slurm_log_dir;  // sbatch --output folder (%A_%a.out per task)
};

// "1-3,5,7-8": the ordinals, sorted and deduplicated, as sbatch --array reads them.
std::string array_spec(std::vector<int64_t> indices);

// The whole script. Throws Error(input) for an extra argument that is not an option ("--x=y" or
// "-x y" forms), a job name or partition with characters sbatch would split, and no tasks.
std::string sbatch_script(const std::vector<SlurmTask>& tasks, const SbatchOptions& options);

}  // namespace kprof::exec
