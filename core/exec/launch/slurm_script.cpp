#include "core/exec/launch/slurm_script.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/passes/pass_manifest.hpp"

namespace kprof::exec {

namespace {

std::string seconds(std::chrono::milliseconds ms) {
  const auto s = (ms.count() + 999) / 1000;
  return std::to_string(s < 1 ? 1 : s) + "s";
}

bool plain_word(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == ',' || c == ':';
  });
}

// The `version` and `rocm_version` values of this node's `rocprofv3 --version`, in the words of
// ProfilerVersion::release_key (a tool before ROCm 7.0 rejects --version: "none" for both).
std::string release_check() {
  const auto value = [](const std::string& key) {
    return "$(printf '%s\\n' \"$out\" | sed -n "
           "'s/^[[:space:]]*" +
           key + ":[[:space:]]*\\(.*[^[:space:]]\\)[[:space:]]*$/\\1/p' | head -n 1)";
  };
  std::string s = "if [ -n \"$want\" ]; then\n";
  s += "  out=$(env \"${vars[@]}\" \"${cmd[0]}\" --version 2>/dev/null) || out=\"\"\n";
  s += "  v=" + value("version") + "\n";
  s += "  r=" + value("rocm_version") + "\n";
  s += "  have=\"version=${v:-none} rocm=${r:-none}\"\n";
  s += "  printf '%s\\n' \"$have\" > \"$dir/" + std::string(k_release_file) + "\"\n";
  s += "  if [ \"$have\" != \"$want\" ]; then\n";
  s += "    echo \"kprof: ${cmd[0]} on $(hostname) says $have, but the commands were built for "
       "$want ($want_text) where kprof planned them: plan (or kprof run --slurm) with the "
       "rocprofv3 the compute nodes have, or give the nodes that one (same ROCm module or "
       "--rocm-root)\" | tee -a \"$log\" >&2\n";
  s += "    exit 2\n  fi\nfi\n";
  return s;
}

}  // namespace

std::string array_spec(std::vector<int64_t> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::string out;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(indices[i]);
    if (j > i) out += "-" + std::to_string(indices[j]);
    i = j + 1;
  }
  return out;
}

std::string sbatch_script(const std::vector<SlurmTask>& tasks, const SbatchOptions& o) {
  if (tasks.empty()) throw Error::input("no passes to submit", "every pass is done already");
  if (!plain_word(o.job_name))
    throw Error::input("Slurm job name '" + o.job_name + "' has characters sbatch would split",
                       "use letters, digits, '-', '_' and '.'");
  if (!o.partition.empty() && !plain_word(o.partition))
    throw Error::input("Slurm partition '" + o.partition + "' is not a partition name",
                       "give a name (or a comma list) as `sinfo -s` shows them");
  for (const auto& a : o.extra_args) {
    if (a.rfind("-", 0) != 0 || a.find('\n') != std::string::npos)
      throw Error::input("sbatch argument '" + a + "' is not an option",
                         "give options as sbatch reads them, e.g. --sbatch-arg=--account=proj");
  }
  std::vector<int64_t> indices;
  for (const auto& t : tasks) indices.push_back(t.index);
  std::string s = "#!/bin/bash\n";
  s += "# Written by kprof: one Slurm array task per pass; the task id is the pass ordinal.\n";
  s += "# Slurm sets ROCR_VISIBLE_DEVICES for the GPUs a task gets (--gres); kprof never does.\n";
  s += "#SBATCH --job-name=" + o.job_name + "\n";
  s += "#SBATCH --array=" + array_spec(indices) + "\n";
  if (!o.slurm_log_dir.empty())
    s += "#SBATCH --output=" + shell_quote((o.slurm_log_dir / "slurm-%A_%a.out").string()) + "\n";
  if (o.gpus_per_task > 0) s += "#SBATCH --gres=gpu:" + std::to_string(o.gpus_per_task) + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time_limit.empty()) s += "#SBATCH --time=" + o.time_limit + "\n";
  for (const auto& a : o.extra_args) s += "#SBATCH " + a + "\n";
  s += "set -u\n";
  s += "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n";
  for (const auto& t : tasks) {
    s += "  " + std::to_string(t.index) + ")\n";
    s += "    dir=" + shell_quote(t.output_dir.string()) + "\n";
    s += "    log=" + shell_quote(t.log_path.string()) + "\n";
    s += "    cwd=" + shell_quote(t.cwd.empty() ? std::string(".") : t.cwd.string()) + "\n";
    std::string limit;
    if (t.timeout.count() > 0)
      limit = "timeout --kill-after=" + seconds(t.kill_grace) + " " + seconds(t.timeout) + " ";
    s += "    limit=(" + limit + ")\n";
    std::string env;
    for (const auto& [k, v] : t.env) env += " " + shell_quote(k + "=" + v);
    s += "    vars=(" + env + " )\n";
    s += "    cmd=(" + shell_join(t.argv) + ")\n";
    s += "    manifest=" + shell_quote(t.manifest) + "\n";
    s += "    want=" + shell_quote(t.release) + "\n";
    s += "    want_text=" + shell_quote(t.release_text) + "\n";
    s += "    ;;\n";
  }
  s += "  *)\n    echo \"kprof: this job has no pass ${SLURM_ARRAY_TASK_ID:-(no array task)}\" "
       ">&2\n";
  s += "    exit 2\n    ;;\nesac\n";
  s += "rm -rf -- \"$dir\" && mkdir -p -- \"$dir\" \"$(dirname -- \"$log\")\" || exit 2\n";
  s += "if [ -n \"$manifest\" ]; then\n";
  s += "  printf '%s\\n' \"$manifest\" > \"$dir/" + std::string(k_pass_manifest) + "\" || exit 2\n";
  s += "fi\n";
  // Slurm's default GPU environment sets CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL to the same
  // indices as ROCR_VISIBLE_DEVICES (gres.conf without Flags=amd_gpu_env,
  // https://slurm.schedmd.com/archive/slurm-22.05.8/gres.conf.html#OPT_Flags). HIP applies its
  // variable to the devices ROCr left, renumbered from 0
  // (https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html), so the task given GPU 1
  // would see none (hipErrorNoDevice; Parsl/parsl#3858 met it on Frontier). Slurm's choice stays
  // in ROCR_VISIBLE_DEVICES alone; a variable the pass's own env delta sets still wins.
  s += "if [ -n \"${ROCR_VISIBLE_DEVICES:-}\" ]; then\n";
  s += "  unset CUDA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES GPU_DEVICE_ORDINAL\n";
  s += "fi\n";
  s += "cd -- \"$cwd\" || exit 2\n";
  s += "echo \"kprof: slurm job ${SLURM_ARRAY_JOB_ID:-?}_${SLURM_ARRAY_TASK_ID} on $(hostname) "
       "ROCR_VISIBLE_DEVICES=${ROCR_VISIBLE_DEVICES:-}\" >> \"$log\"\n";
  s += release_check();
  s += "exec env \"${vars[@]}\" ${limit[@]+\"${limit[@]}\"} \"${cmd[@]}\" >> \"$log\" 2>&1\n";
  return s;
}

}  // namespace kprof::exec
