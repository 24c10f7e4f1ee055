#include "core/exec/usecases/ingest_manifest.hpp"

#include <algorithm>
#include <map>

#include "core/base/error.hpp"
#include "core/exec/node/run_lock.hpp"
#include "core/exec/passes/pass_ingest.hpp"
#include "core/exec/passes/rank_check.hpp"
#include "core/exec/passes/runbook_hints.hpp"
#include "core/ingest/discover.hpp"
#include "core/runbook/runbook.hpp"
#include "core/store/pass_ranks.hpp"
#include "core/store/runbook_hints.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

namespace {

struct Found {
  fs::path file;
  PassManifest m;
  fs::path folder() const { return file.parent_path(); }
};

bool under(const fs::path& path, const fs::path& folder) {
  const auto rel = path.lexically_relative(folder);
  return !rel.empty() && rel.native().rfind("..", 0) != 0;
}

// Capture files that no manifest speaks for would be silently dropped or put in the wrong pass.
void refuse_files_outside(const std::vector<std::string>& inputs, const std::vector<Found>& all) {
  ingest::Discovery found;
  try {
    found = ingest::discover(inputs);
  } catch (const Error&) {
    return;  // no capture file at all: every pass is reported as having written none
  }
  for (const auto& p : found.passes)
    for (const auto& f : p.files) {
      const bool owned = std::any_of(all.begin(), all.end(),
                                     [&](const Found& x) { return under(f.path, x.folder()); });
      if (!owned)
        throw Error::input(f.path + " is in no pass folder with a " + std::string(k_pass_manifest) +
                               ", unlike " + all.front().file.string(),
                           "give only the run's pass folders, and load other captures with a "
                           "kprof ingest of their own (--run NAME)");
    }
}

std::vector<Found> read_all(const std::vector<fs::path>& files) {
  std::vector<Found> all;
  for (const auto& f : files) all.push_back({f, read_manifest(f)});
  std::sort(all.begin(), all.end(),
            [](const Found& a, const Found& b) { return a.m.ordinal < b.m.ordinal; });
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& a = all.front();
    const auto& b = all[i];
    if (b.m.run_name != a.m.run_name || b.m.runbook_sha256 != a.m.runbook_sha256)
      throw Error::input(b.file.string() + " is a pass of run '" + b.m.run_name + "' (runbook " +
                             b.m.runbook_sha256.substr(0, 12) + "), " + a.file.string() +
                             " of run '" + a.m.run_name + "' (runbook " +
                             a.m.runbook_sha256.substr(0, 12) + ")",
                         "load each script's pass folders with a kprof ingest of their own");
    if (i > 0 && all[i - 1].m.ordinal == b.m.ordinal)
      throw Error::input(all[i - 1].file.string() + " and " + b.file.string() + " are both pass " +
                             std::to_string(b.m.ordinal),
                         "give each pass folder once");
  }
  return all;
}

int64_t run_for(store::CaptureDb& db, const std::string& name, const PassManifest& m) {
  if (const auto existing = db.find_run_by_name(name)) {
    if (existing->runbook_sha256 != m.runbook_sha256)
      throw Error::input("run '" + name + "' in this database was recorded from another runbook (" +
                             existing->runbook_sha256.substr(0, 12) + ", these passes " +
                             m.runbook_sha256.substr(0, 12) + ")",
                         "give --run NAME to load them as a run of their own");
    return existing->id;  // the same passes again reload their rows
  }
  store::NewRun nr;
  nr.name = name;
  nr.runbook_path = m.runbook_path;
  nr.runbook_sha256 = m.runbook_sha256;
  nr.runbook_text = m.runbook_text;
  nr.host = host_name();
  nr.kprof_version = KPROF_VERSION;
  nr.simulated = m.simulated;
  nr.seed = m.seed;
  nr.profiler_version = m.profiler_version;
  const int64_t id = db.create_run(nr);
  // The runbook the script was emitted from, parsed here once for the queries (runbook_hints.hpp).
  // One that does not parse on this machine is left as text; a query then says why it is unused.
  try {
    store::store_runbook_hints(
        db, id, runbook_hints_of(runbook::parse_runbook(m.runbook_text, m.runbook_path)));
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::input) throw;
  }
  return id;
}

// Whether a loaded pass holds something measured (judge_capture) and every rank the run expects
// (judge_ranks).
Failure judge_loaded(store::CaptureDb& db, int64_t pass_id, const PassManifest& m,
                     std::optional<int> ranks) {
  const bool regions =
      m.region != RegionCut::none ||
      std::find(m.argv.begin(), m.argv.end(), "--selected-regions") != m.argv.end();
  const Failure failure = judge_capture(db.row_counts(pass_id), m.kind, regions, ranks.value_or(1));
  if (failure.kind != FailureKind::none) return failure;
  return judge_ranks(store::pass_ranks(db, pass_id), db.agents(pass_id), ranks, {},
                     "run its task again and load its folder with kprof ingest")
      .failure;
}

}  // namespace

IngestedRun ingest_manifest_run(store::CaptureDb& db, const IngestRequest& request,
                                const std::vector<std::string>& inputs,
                                const std::vector<fs::path>& manifests,
                                std::vector<std::string>& notes) {
  if (request.forced_kind)
    throw Error::input(
        "--pass-kind: these pass folders say their kinds in " + std::string(k_pass_manifest),
        "drop --pass-kind");
  const std::vector<Found> all = read_all(manifests);
  refuse_files_outside(inputs, all);
  const PassManifest& first = all.front().m;
  IngestedRun out;
  out.name = request.run_name.value_or(first.run_name);
  out.id = run_for(db, out.name, first);
  bool all_done = true;
  // The ranks each pass must hold, as the run's hints keep them (workload.ranks).
  const auto hints = store::runbook_hints(db, out.id);
  const std::optional<int> ranks = hints ? hints->ranks : std::nullopt;
  for (const auto& f : all) {
    const PassManifest& m = f.m;
    IngestedPass ip;
    ip.ordinal = m.ordinal;
    ip.kind = m.kind;
    ip.folder = f.folder().string();
    int64_t pass_id = 0;
    if (const auto existing = db.find_pass(out.id, m.ordinal)) {
      if (existing->kind != m.kind)
        throw Error::input("run '" + out.name + "' has pass " + std::to_string(m.ordinal) +
                               " as a " + std::string(store::to_string(existing->kind)) +
                               " pass; " + f.file.string() + " says " +
                               std::string(store::to_string(m.kind)),
                           "give --run NAME to load them as a run of their own");
      pass_id = existing->id;
      ip.action = "reloaded: pass " + std::to_string(m.ordinal) + " was already in the run";
    } else {
      store::PlannedPass p;
      p.ordinal = m.ordinal;
      p.kind = m.kind;
      p.counters = m.counters;
      p.argv = m.argv;
      p.env = m.env;
      p.output_dir = ip.folder;
      p.log_path = m.log_path;
      pass_id = db.add_planned_pass(out.id, p);
    }
    // Notes on what the region cut left out go to the pass log, as `kprof run` writes them; a
    // folder moved from the cluster without its logs gets one of its own.
    fs::path log = m.log_path;
    std::error_code ec;
    if (log.empty() || !fs::is_directory(log.parent_path(), ec)) log = f.folder() / k_ingest_log;
    std::optional<RegionContext> region;
    if (m.region == RegionCut::markers) region = RegionContext{true, 0, log, m.profiler};
    if (m.region == RegionCut::trace) {
      for (const auto& p : db.list_passes(out.id))
        if (p.kind == store::PassKind::trace && p.state == store::PassState::done)
          region = RegionContext{false, p.id, log, m.profiler};
      if (!region)
        notes.push_back("pass " + std::to_string(m.ordinal) +
                        " kept whole: the run has no loaded trace pass to find the region with");
    }
    store::PassTransition t;
    t.state = store::PassState::failed;
    if (!holds_capture_file(f.folder())) {
      t.reason = "the task wrote no capture file (see " + m.log_path + ")";
    } else {
      ip.files = ingest_attempt(db, pass_id, f.folder(), region);
      const Failure failure = judge_loaded(db, pass_id, m, ranks);
      if (failure.kind == FailureKind::none)
        t.state = store::PassState::done;
      else
        t.reason = failure.reason;
    }
    if (t.state != store::PassState::done) {
      all_done = false;
      ip.action = "failed: " + *t.reason;
    }
    t.attempts = 1;
    db.set_pass_state(pass_id, t);
    out.passes.push_back(std::move(ip));
  }
  for (const int64_t o : first.run_passes) {
    if (!db.find_pass(out.id, o)) {
      all_done = false;
      notes.push_back("pass " + std::to_string(o) + " of run '" + out.name +
                      "' has no manifest under the inputs: its task did not run, or its folder "
                      "was not given");
    }
  }
  notes.push_back("loaded as run '" + out.name + "' of " + first.runbook_path + " (from " +
                  std::to_string(all.size()) + " " + k_pass_manifest + "), its passes as " +
                  "`kprof run` records them");
  db.set_run_status(out.id, all_done ? store::RunStatus::done : store::RunStatus::failed);
  out.simulated = db.find_run(out.id)->simulated;
  return out;
}

}  // namespace kprof::exec
