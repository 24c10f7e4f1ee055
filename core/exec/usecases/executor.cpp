// `kprof run` and `kprof resume`: record the run (or find it and reset what is to run again),
// hand it to the driver loop (driver.hpp), print the summary (status_view.hpp).
#include "core/exec/usecases/executor.hpp"

#include <unistd.h>

#include <iostream>

#include "core/base/crash_point.hpp"
#include "core/base/environment.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"
#include "core/exec/launch/launcher_choice.hpp"
#include "core/exec/launch/local_launcher.hpp"
#include "core/exec/launch/registered_names.hpp"
#include "core/exec/node/captures_owner.hpp"
#include "core/exec/node/gpu_select.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/exec/node/run_lock.hpp"
#include "core/exec/node/text_diff.hpp"
#include "core/exec/passes/pass_plan.hpp"
#include "core/exec/passes/run_provenance.hpp"
#include "core/exec/passes/runbook_hints.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/exec/run/driver.hpp"
#include "core/exec/run/run_status.hpp"
#include "core/exec/usecases/status_view.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using store::PassKind;
using store::PassState;

// The status table and the command that goes on (status_view.hpp), fitted to the terminal when
// the summary goes to one.
void print_summary(store::CaptureDb& db, const ExecResult& r, const ExecOptions& o) {
  const size_t width = o.out ? 0 : terminal_width(STDOUT_FILENO);
  out_of(o) << run_summary_text(load_run_status(db.path(), r.run_id), r, o.gpus, o.force, width,
                                launcher_flag_args(o.launcher));
}

// Takes the run's row lock. We hold the file lock, so any other holder recorded there is a kprof
// that died without unlocking.
void lock_run_row(store::CaptureDb& db, int64_t run_id) {
  const auto host = host_name();
  if (auto holder = db.try_lock_run(run_id, ::getpid(), host)) {
    db.break_run_lock(run_id);
    db.try_lock_run(run_id, ::getpid(), host);
  }
}

std::unique_ptr<ProfilerBackend> backend_of(const ExecSeams& seams, const runbook::Runbook& rb,
                                            const BackendChoice& choice) {
  return seams.backend ? seams.backend(rb, choice) : make_profiler_backend(rb, choice);
}

// The run's plan, made once per run or resume and handed to the driver. Its commands are made
// for run id 0 (the run may not exist yet); commands_for_run gives them the run's id.
RunPlan plan_of(const ExecSeams& seams, const runbook::Runbook& rb,
                const ProfilerBackend& backend) {
  return seams.plan ? seams.plan(rb, backend, 0, {}) : plan_run(rb, backend, 0);
}

// Stops what the dead kprof that ran pass `p` may have left running, from its owner record: the
// launcher that started the attempt and its id there. A pass recorded running by a kprof before
// schema 6 has no such record in the database (its launcher is ''); that kprof ran every attempt
// as a local process group and kept "<pgid> <start time>" beside the pass log, so that group is
// stopped by the local launcher. On another host (resume --force) an id of a launcher whose ids are
// host-local (that pgid) names a process there, not here: nothing is stopped, and the user is told.
void reap_orphan_of(const store::PassInfo& p, PassLauncher& launcher, const fs::path& log,
                    std::ostream& out) {
  const bool foreign = !p.owner_host.empty() && p.owner_host != host_name();
  if (!p.launcher.empty()) {
    std::unique_ptr<PassLauncher> other;
    if (p.launcher != launcher.name()) other = make_pass_launcher(p.launcher);
    PassLauncher& owner = other ? *other : launcher;
    if (foreign && owner.ids_are_host_local()) {
      out << "kprof: pass " << p.ordinal << " ran as " << p.launcher << " attempt " << p.launch_id
          << " on host " << p.owner_host
          << ", which cannot be stopped from here; stop it there if it still runs\n";
      return;
    }
    owner.reap_orphan(p.launch_id);
    return;
  }
  if (foreign) return;
  if (const auto id = legacy_local_launch_id(log)) {
    LocalLauncher().reap_orphan(*id);
    std::error_code ec;
    fs::remove(log.string() + ".pgid", ec);  // the next attempt's owner record is in the database
  }
}

// The launcher the runbook and the flags ask for, unless the caller gave one (tests); nullptr for
// the local default. Refused before the database is touched.
std::unique_ptr<PassLauncher> chosen_launcher(const runbook::Runbook& rb, const ExecOptions& o,
                                              const ExecSeams& seams) {
  if (seams.launcher) return nullptr;
  auto l = make_launcher(rb, o.launcher);
  if (l && !o.gpus.empty()) {
    throw Error::input("--gpus picks GPUs of this host, but the passes go to Slurm",
                       "drop --gpus: Slurm gives each task its GPUs (launcher.gpus_per_task or "
                       "--gpus-per-task)");
  }
  return l;
}

// The launcher flags of a resume: those given, else (no launcher flag, no `launcher:` in the
// runbook) the launcher the run's running attempts were recorded with (passes.launcher), so a
// plain `kprof resume` of a run started with --slurm or --launcher NAME adopts its live tasks
// instead of cancelling them and running the passes here. Slurm settings given as flags to that
// run (--partition, --gpus-per-task, ...) are not recorded: the cluster's defaults apply to what
// the resume submits, unless they are given again.
LauncherFlags resume_launcher_flags(const runbook::Runbook& rb, const LauncherFlags& given,
                                    const std::vector<store::PassInfo>& passes) {
  const bool any_given = given.type || given.partition || given.time || given.gpus_per_task ||
                         !given.sbatch_args.empty();
  if (any_given || rb.launcher.present) return given;
  for (const auto& p : passes) {
    if (p.state == PassState::running && !p.launcher.empty() && p.launcher != "local") {
      LauncherFlags f = given;
      f.type = p.launcher;
      return f;
    }
  }
  return given;
}

// What a launcher needs to take over an attempt of pass `p` (its log, folder, limit, ordinal).
LaunchSpec adoption_spec(const runbook::Runbook& rb, int64_t run_id, const store::PassInfo& p) {
  LaunchSpec s;
  s.argv = p.argv;
  s.log_path = pass_log(rb, run_id, p.ordinal);
  s.output_dir = pass_dir(rb, run_id, p.ordinal);
  if (rb.workload.timeout.value) s.timeout = *rb.workload.timeout.value;
  s.ordinal = p.ordinal;
  return s;
}

}  // namespace

ExecResult run_runbook(const runbook::Runbook& given, const ExecOptions& options,
                       const ExecSeams& seams) {
  runbook::Runbook rb = given;
  if (options.db) runbook::use_database(rb, *options.db);
  check_registered_names(rb);
  const auto backend = backend_of(seams, rb, {options.simulate, std::nullopt});
  // Planned before the database is touched: a bad runbook or plan leaves no trace. The commands
  // are made with the run's id once it exists (their paths hold it).
  const RunPlan rp = plan_of(seams, rb, *backend);
  // Refuses a bad --gpus setting early.
  gpu_slot_envs(gpu_slots(options.gpus, rb), rb, current_environment());
  const auto chosen = chosen_launcher(rb, options, seams);

  const fs::path db_path = rb.database.value;
  check_captures_free(rb.captures.value, db_path);  // before the database: a refusal leaves none
  install_interrupt_handlers();
  RunLock lock(db_path);
  store::CaptureDb db(db_path);
  claim_captures(rb.captures.value, db_path);

  store::NewRun nr;
  nr.name = rb.name.value;
  nr.runbook_path = rb.source.string();
  nr.runbook_sha256 = rb.sha256;
  nr.runbook_text = rb.text;
  nr.host = host_name();
  nr.kprof_version = KPROF_VERSION;
  // Decided once, here, and stored with the run: every reader takes it from the database.
  const store::RunProvenance provenance = provenance_of(*backend);
  nr.simulated = provenance.simulated;
  nr.seed = backend->seed();
  nr.profiler_version = backend->version().text;
  // The run and every planned pass are stored together: a kill -9 while planning leaves no run
  // rather than one that resume would find with passes missing.
  int64_t run_id = 0;
  {
    store::WriteTransaction tx(db);
    run_id = db.create_run(nr);
    db.set_run_provenance(run_id, provenance);
    store::store_runbook_hints(db, run_id, runbook_hints_of(rb));
    crash_point("plan.run_created");
    // A counter pass's include regex from the trace is not known yet; each attempt records the
    // exact command line that ran.
    for (const auto& c : commands_for_run(rp, rb, *backend, run_id)) {
      // replay: auto decided on this run's trace: the driver records the counter passes then.
      if (rp.replay.mode == ReplayMode::after_trace && c.kind == store::PassKind::counters)
        continue;
      db.add_planned_pass(run_id, planned_pass(c));
      crash_point("plan.pass_added");
    }
    tx.commit();
  }
  lock_run_row(db, run_id);  // its own transaction; the file lock is what guards the run

  LocalLauncher local;
  PassLauncher& launcher = seams.launcher ? *seams.launcher : chosen ? *chosen : local;
  ExecResult r = drive_run(db, rb, *backend, rp, launcher, run_id, options);
  db.unlock_run(run_id, ::getpid(), host_name());
  print_summary(db, r, options);
  return r;
}

namespace {

// The runbook as it is now: the one given, else the recorded path, else the recorded text; its
// pass folders are where this database's run put them (beside it, when it was given with --db).
runbook::Runbook runbook_to_resume(std::optional<runbook::Runbook>& given,
                                   const store::RunInfo& run, const fs::path& db_path) {
  runbook::Runbook rb = given ? std::move(*given)
                        : fs::exists(run.runbook_path)
                            ? runbook::load_runbook(run.runbook_path)
                            : runbook::parse_runbook(run.runbook_text, run.runbook_path);
  if (fs::absolute(db_path).lexically_normal() != rb.database.value)
    runbook::use_database(rb, db_path);
  return rb;
}

// A runbook changed since the run was recorded: its diff is shown, and resuming needs --force.
void check_runbook_unchanged(const runbook::Runbook& rb, const store::RunInfo& run,
                             const ExecOptions& options, std::ostream* diff_out) {
  if (rb.sha256 == run.runbook_sha256) return;
  const std::string diff = line_diff(run.runbook_text, rb.text);
  std::ostream& os = diff_out ? *diff_out : std::cerr;
  os << "runbook " << rb.source.string() << " changed since run " << run.id << " was recorded:\n"
     << diff;
  if (!options.force) {
    throw Error::input(
        "runbook '" + rb.source.string() + "' changed since run " + std::to_string(run.id) +
            " (sha256 " + run.runbook_sha256.substr(0, 12) + " -> " + rb.sha256.substr(0, 12) + ")",
        "restore it, start a new run with 'kprof run', or resume anyway with --force");
  }
}

// Every pass that did not finish runs again: a running one whose attempt the launcher still
// knows is adopted (returned: pass id, launch id), the others are planned again.
std::vector<std::pair<int64_t, std::string>> replan_unfinished(
    store::CaptureDb& db, const runbook::Runbook& rb, const store::RunInfo& run,
    const std::vector<store::PassInfo>& before, PassLauncher& launcher,
    const ExecOptions& options) {
  std::vector<std::pair<int64_t, std::string>> adopted;
  const std::string host = host_name();
  for (const auto& p : before) {
    bool reset = false;
    if (p.state == PassState::running) {
      if (!p.owner_host.empty() && p.owner_host != host && !options.force) {
        throw Error::runtime("pass " + std::to_string(p.ordinal) +
                                 " is recorded as running on host " + p.owner_host +
                                 " (kprof pid " + std::to_string(p.owner_pid.value_or(0)) + ")",
                             "resume on that host, or with --force once you know it is dead");
      }
      // Its kprof is dead (we hold the lock): a launcher that still knows the attempt (a Slurm
      // task pending, running or ended) takes it over and it is waited for; else the launcher
      // that started it stops what it may have left running, and the pass runs again.
      const bool foreign_local = p.owner_host != host && launcher.ids_are_host_local();
      if (!p.launcher.empty() && p.launcher == launcher.name() && !foreign_local &&
          launcher.adopt(p.launch_id, adoption_spec(rb, run.id, p))) {
        adopted.emplace_back(p.id, p.launch_id);
        continue;
      }
      reap_orphan_of(p, launcher,
                     p.log_path.empty() ? pass_log(rb, run.id, p.ordinal) : fs::path(p.log_path),
                     out_of(options));
      reset = true;
    } else if (p.state == PassState::interrupted) {
      reset = true;
    } else if (p.state == PassState::failed && options.retry_failed) {
      reset = true;
    }
    if (reset) {
      store::PassTransition t;
      t.state = PassState::planned;
      t.reason = "resumed after: " +
                 (p.reason.empty() ? std::string(store::to_string(p.state)) : p.reason);
      db.set_pass_state(p.id, t);
    }
  }
  return adopted;
}

}  // namespace

ExecResult resume_run(const fs::path& target, const ExecOptions& options, std::ostream* diff_out,
                      const ExecSeams& seams) {
  const std::string ext = to_lower(target.extension().string());
  std::optional<runbook::Runbook> given;
  fs::path db_path;
  if (ext == ".yaml" || ext == ".yml") {
    given = runbook::load_runbook(target);
    db_path = options.db.value_or(given->database.value);
  } else {
    db_path = target;
  }
  if (!fs::exists(db_path)) {
    throw Error::input("no capture database at '" + db_path.string() + "'",
                       "start one with 'kprof run RUNBOOK'");
  }
  install_interrupt_handlers();
  RunLock lock(db_path);
  store::CaptureDb db(db_path);
  const auto run = db.find_last_run();
  if (!run)
    throw Error::input("database '" + db_path.string() + "' holds no run",
                       "start one with 'kprof run RUNBOOK'");
  runbook::Runbook rb = runbook_to_resume(given, *run, db_path);
  claim_captures(rb.captures.value, db_path);
  check_runbook_unchanged(rb, *run, options, diff_out);

  // The backend the run was recorded with: a simulated run stays simulated, and the recorded
  // profiler version gives the command lines the run started with.
  std::optional<std::string> recorded_version;
  if (!run->profiler_version.empty()) recorded_version = run->profiler_version;
  check_registered_names(rb);
  const auto backend = backend_of(seams, rb, {run->simulated, recorded_version});
  const RunPlan rp = plan_of(seams, rb, *backend);
  ExecOptions resumed = options;
  resumed.launcher = resume_launcher_flags(rb, options.launcher, db.list_passes(run->id));
  const auto chosen = chosen_launcher(rb, resumed, seams);
  LocalLauncher local;
  PassLauncher& launcher = seams.launcher ? *seams.launcher : chosen ? *chosen : local;
  lock_run_row(db, run->id);
  db.set_run_status(run->id, store::RunStatus::running);

  const auto before = db.list_passes(run->id);
  if (!options.quiet) out_of(options) << resume_header(*run, before, options.retry_failed);
  const auto adopted = replan_unfinished(db, rb, *run, before, launcher, options);

  ExecResult r = drive_run(db, rb, *backend, rp, launcher, run->id, resumed, adopted);
  db.unlock_run(run->id, ::getpid(), host_name());
  print_summary(db, r, resumed);
  return r;
}

}  // namespace kprof::exec
