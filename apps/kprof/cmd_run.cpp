// `kprof run RUNBOOK [--simulate] [--gpus LIST | --slurm ...] [--db PATH] [--quiet]`: plan, run
// every pass under rocprofv3 (or the test double), ingest each as it finishes, print the summary.
// `kprof run [--metric-set S | --counters A,B] [--kernels REGEX] [--simulate] -- app args...`: the
// same for the runbook that command line stands for, written next to the database first.

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/launcher_args.hpp"
#include "apps/kprof/one_line_args.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/base/table.hpp"
#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/node/gpu_list.hpp"
#include "core/exec/profiler/rocprofv3_backend.hpp"
#include "core/exec/usecases/doctor.hpp"
#include "core/exec/usecases/executor.hpp"
#include "core/runbook/runbook.hpp"

namespace {

// With a real profiler and local passes the node is checked before the first pass (`kprof
// doctor`), and a failed check stops the run; the test double needs no GPU, PyTorch or weights.
bool node_ready(const std::filesystem::path& runbook, const kprof::runbook::Runbook& rb,
                const kprof::exec::ExecOptions& o) {
  if (kprof::exec::runs_test_double(rb, o.simulate)) return true;
  // The passes run on Slurm's nodes, not here: this host's GPUs and packages say nothing of them.
  if (kprof::exec::wants_slurm(rb, o.launcher)) {
    if (!o.quiet)
      std::cout << "run: the passes run on Slurm's nodes; check one with 'srun ... kprof doctor "
                << runbook.string() << "'\n";
    return true;
  }
  kprof::exec::DoctorRequest request;
  request.runbook = runbook;
  request.db = o.db;
  const auto report = kprof::exec::run_doctor(request);
  if (!report.ok()) {
    std::cerr << kprof::exec::doctor_text(report, kprof::terminal_width(STDERR_FILENO))
              << "run: stopped before any pass; fix the ✘ lines above, or add --no-doctor\n";
    return false;
  }
  if (!o.quiet) std::cout << kprof::exec::doctor_text(report, kprof::terminal_width(STDOUT_FILENO));
  return true;
}

int cmd_run(const kprof::app::Args& all_args) {
  namespace po = kprof::app::po;
  const auto [args, app] = kprof::app::split_at_dashes(all_args);
  po::options_description opts("options");
  opts.add_options()("simulate",
                     "run the rocprofv3 test double (rocprofv3-sim) instead of rocprofv3")(
      "gpus", po::value<std::string>()->value_name("LIST"),
      "GPU indices, e.g. 0,1,2,3: counter passes run at once, one per listed GPU, or per "
      "workload.ranks consecutive GPUs (default: one pass at a time)")(
      "db", po::value<std::string>(),
      "capture database (default: the runbook's `database`; one-line: NAME.db here)")(
      "quiet,q", "no progress lines; only the summary")(
      "no-doctor", "skip the pre-flight checks of `kprof doctor` a real run starts with")(
      "runbook", po::value<std::string>(), "the runbook (.yaml)");
  kprof::app::add_launcher_options(opts);
  kprof::app::add_one_line_options(opts);
  po::positional_options_description pos;
  pos.add("runbook", 1);
  auto vm = kprof::app::parse_args(
      "run",
      "RUNBOOK [--simulate] [--gpus LIST | --slurm [--partition P] [--gpus-per-task N]] [--db "
      "PATH] [--quiet] [--no-doctor]\n"
      "       kprof run [--metric-set S | --counters A,B] [--kernels "
      "REGEX] [--simulate] [--db PATH] -- APP [ARGS...]",
      args, opts, pos,
      "examples:\n"
      "  kprof run runbooks/qwen3-30b-a3b-sim.yaml --simulate\n"
      "  kprof run runbooks/qwen3-30b-a3b-mi300x.yaml --gpus 0,1,2,3\n"
      "  kprof run runbooks/qwen3-30b-a3b-mi300x.yaml --slurm --partition mi300x\n"
      "      trace pass first, then every counter pass as one task of one sbatch --array job\n"
      "  kprof run --simulate --metric-set roofline --kernels fused_moe -- true\n"
      "      one-line profile: writes true.runbook.yaml beside true.db, then runs it\n"
      "\nCtrl-C stops the running pass; 'kprof resume DB' continues the run.");
  if (!vm) return 0;
  kprof::exec::ExecOptions o;
  o.simulate = vm->count("simulate") > 0;
  o.quiet = vm->count("quiet") > 0;
  if (vm->count("gpus")) o.gpus = kprof::exec::parse_gpu_list((*vm)["gpus"].as<std::string>());
  if (vm->count("db")) o.db = (*vm)["db"].as<std::string>();
  o.launcher = kprof::app::launcher_flags_from(*vm);
  const auto path = kprof::app::runbook_for_run(*vm, app, all_args, o.simulate);
  const auto rb = kprof::runbook::load_runbook(path);
  if (!vm->count("no-doctor") && !node_ready(path, rb, o)) return 2;
  const auto result = kprof::exec::run_runbook(rb, o);
  // A query never writes: the run's join and outline are stored here, and the line says so.
  if (result.status == kprof::store::RunStatus::done)
    kprof::analysis::print_stored_results(result.db, {result.run_id}, std::cout);
  return result.exit_code;
}

}  // namespace

KPROF_COMMAND("run", "run a runbook's passes (or a one-line profile) and ingest them", cmd_run);
