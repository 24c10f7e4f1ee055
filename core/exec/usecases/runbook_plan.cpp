#include "core/exec/usecases/runbook_plan.hpp"

#include <chrono>

#include "core/base/environment.hpp"
#include "core/base/error.hpp"
#include "core/exec/launch/registered_names.hpp"
#include "core/exec/node/gpu_list.hpp"
#include "core/exec/node/gpu_select.hpp"
#include "core/exec/node/tool_probe.hpp"
#include "core/exec/passes/pass_ingest.hpp"
#include "core/exec/profiler/profiler_backend.hpp"

namespace kprof::exec {

namespace {

// The id `kprof run` would give the next run of this database: the commands hold it in paths.
int64_t next_run_id(const std::filesystem::path& db_path) {
  if (!std::filesystem::exists(db_path)) return 1;
  try {
    store::CaptureDb db(db_path, store::OpenMode::read_only);
    const auto last = db.find_last_run();
    return last ? last->id + 1 : 1;
  } catch (const Error&) {
    return 1;  // unreadable or older schema: `run` will report it; the plan stays useful
  }
}

// A plan for a profiler that is not there would print commands that cannot run, under an
// unknown version whose option table is a guess.
void require_on_path(const runbook::Runbook& rb, const std::string& executable) {
  store::EnvDelta env;
  for (const auto& e : rb.workload.env.value) env.emplace_back(e.name.value, e.value.value);
  if (find_tool(executable, env)) return;
  const auto& at = rb.profiler.path;
  throw Error::runtime("profiler '" + executable + "' not found" +
                           (executable.find('/') == std::string::npos ? " on PATH" : ""),
                       "install ROCm with rocprofv3 (docs/real-node.md; 'kprof doctor " +
                           rb.source.string() +
                           "' checks the node), or add --simulate for the test double's plan",
                       at.from_file ? std::optional<SourcePos>(at.pos) : std::nullopt);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

RunbookPlan plan_runbook(const RunbookPlanRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  RunbookPlan out;
  out.rb = runbook::load_runbook(request.runbook);
  const runbook::Runbook& rb = out.rb;
  if (request.db) runbook::use_database(out.rb, *request.db);
  check_registered_names(rb);
  const auto backend = make_profiler_backend(rb, {request.simulate, std::nullopt});
  if (request.require_profiler && !backend->simulated()) require_on_path(rb, backend->executable());
  if (request.gpus) out.gpus = parse_gpu_list(*request.gpus);
  out.slots = gpu_slots(out.gpus, rb);
  out.slot_envs = gpu_slot_envs(out.slots, rb, current_environment());
  const auto db_path = rb.database.value;
  out.run_id = next_run_id(db_path);
  RunPlanOptions ro;
  ro.planner.node_budget = request.node_budget;
  if (request.filter_placeholder) ro.filter_placeholder = "<decided after the trace pass>";
  out.plan = plan_run(rb, *backend, out.run_id, ro);
  out.profiler = backend->executable();
  out.simulated = backend->simulated();
  out.version = backend->version();
  out.seed = backend->seed();
  out.trace_cut = region_cut(store::PassKind::trace, rb, *backend);
  out.counters_cut = region_cut(store::PassKind::counters, rb, *backend);
  if (out.plan.counters) {
    const auto& c = *out.plan.counters;
    out.first_fit_passes = plan::first_fit_plan(c.target, c.request).passes.size();
    // One-run rotation of the planned passes as counter groups, on a trace already in the
    // database.
    // Not with `replay: application` or `kernel`: the runbook asked for another way.
    const bool rotation_asked = rb.passes.counters.replay.value == runbook::Replay::automatic ||
                                rb.passes.counters.replay.value == runbook::Replay::rotate;
    if (c.plan.passes.size() >= 2 && rotation_asked) {
      const auto p0 = std::chrono::steady_clock::now();
      out.rotation = preview_rotation(db_path, rb, c.plan.passes.size(), out.version,
                                      rb.passes.counters.min_samples.value);
      out.preview_ms = ms_since(p0);
    }
    if (out.rotation && out.rotation->unavailable.empty() &&
        out.plan.replay.mode == ReplayMode::after_trace)
      out.predicted = choose_replay_on_trace(*out.rotation, rb);
    if (c.plan.passes.size() >= 2 && rotation_asked) {
      const auto e0 = std::chrono::steady_clock::now();
      // The model is read once: the rotation on it and the estimate share it.
      const WorkloadModelLoader model = loaded_once(request.workload_model);
      int repeats = 1;
      int64_t counted = 0;
      std::string basis;
      if (out.rotation && out.rotation->unavailable.empty()) {
        repeats = out.rotation->choice.repeats;
        for (const auto& v : out.rotation->variants) counted += v.per_request;
        basis = "R chosen on run " + std::to_string(out.rotation->trace_run) + "'s trace";
      } else if (const auto m = rotation_on_model(rb, c.plan.passes.size(),
                                                  rb.passes.counters.min_samples.value, model)) {
        // No trace yet: R is decided on the run's trace; the model's own sequence estimates it.
        counted = m->counted;
        if (m->choice.feasible) {
          repeats = m->choice.repeats;
          basis = "R ESTIMATED on the workload model's dispatch sequence (interval " +
                  std::to_string(m->choice.interval) + "); kprof decides R on the run's trace";
        } else {
          basis = "no R on the workload model's dispatch sequence (" + m->choice.why +
                  "); kprof decides on the run's trace";
        }
      }
      out.estimate = estimate_runs(rb, c.plan.passes.size(), repeats, counted, model);
      out.estimate->repeats_basis = basis;
      out.estimate_ms = ms_since(e0);
    }
  }
  out.total_ms = ms_since(t0);
  return out;
}

std::string plan_sbatch(RunbookPlanRequest request, const LauncherFlags& flags) {
  if (request.gpus)
    throw Error::input("--gpus picks GPUs of this host; the batch script asks Slurm for them",
                       "drop --gpus (--gpus-per-task sets how many each pass gets)");
  request.filter_placeholder = false;
  request.require_profiler = false;
  const RunbookPlan whole = plan_runbook(request);
  SbatchTaskFiles files;
  files.release = whole.version.release_key();
  files.release_text = whole.version.summary();
  std::vector<int64_t> ordinals;
  for (const auto& c : whole.plan.passes) ordinals.push_back(c.ordinal);
  for (const auto& c : whole.plan.passes) {
    PassManifest m;
    m.run_name = whole.rb.name.value;
    m.runbook_path = whole.rb.source.string();
    m.runbook_sha256 = whole.rb.sha256;
    m.runbook_text = whole.rb.text;
    m.simulated = whole.simulated;
    m.seed = whole.seed;
    m.profiler_version = whole.version.text;
    m.profiler = whole.version.summary();
    const store::PlannedPass p = planned_pass(c);
    m.ordinal = p.ordinal;
    m.run_passes = ordinals;
    m.kind = p.kind;
    m.counters = p.counters;
    m.argv = p.argv;
    m.env = p.env;
    m.log_path = p.log_path;
    m.region = p.kind == store::PassKind::trace ? whole.trace_cut : whole.counters_cut;
    files.manifests[c.ordinal] = manifest_json(m);
  }
  return emit_sbatch(whole.rb, whole.plan, whole.run_id, flags, files);
}

}  // namespace kprof::exec
