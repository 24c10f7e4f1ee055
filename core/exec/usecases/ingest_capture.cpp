#include "core/exec/usecases/ingest_capture.hpp"

#include <algorithm>
#include <set>

#include "core/base/crash_point.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/run_lock.hpp"
#include "core/exec/passes/pass_manifest.hpp"
#include "core/exec/usecases/ingest_manifest.hpp"
#include "core/ingest/discover.hpp"
#include "core/ingest/trace_stats.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

namespace {

bool is_trace_file(const ingest::InputFile& f) {
  return f.format == ingest::Format::kernel_trace || f.format == ingest::Format::rocpd ||
         f.format == ingest::Format::json;
}

std::vector<std::string> stored_paths(store::CaptureDb& db, int64_t pass_id) {
  std::vector<std::string> out;
  // Statistics computed from the trace are no file to read again: the trace gives them again.
  for (const auto& f : db.ingest_files(pass_id))
    if (f.kind != ingest::k_stats_from_trace_kind) out.push_back(f.path);
  return out;
}

// The files a pass already holds, to be read again with the new ones (a pass is the rows of its
// files). A file that is gone cannot be read again: refused, as dropping its rows would lose data.
std::vector<ingest::InputFile> old_inputs(const std::vector<std::string>& paths, int64_t ordinal) {
  std::vector<ingest::InputFile> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      throw Error::input("pass " + std::to_string(ordinal) + " of this run holds rows of " + p +
                             ", which no longer exists; adding files to the pass would drop them",
                         "give --replace to make the pass only the new files, or --run NAME to "
                         "load them into a run of their own");
    }
    out.push_back(ingest::InputFile{p, ingest::sniff_format(p), ingest::pid_from_name(p)});
  }
  return out;
}

std::string run_name_for(const IngestRequest& r, const std::string& label) {
  std::string base;
  if (r.run_name) {
    base = *r.run_name;
  } else {
    fs::path first = fs::absolute(r.inputs.front()).lexically_normal();
    if (first.filename().empty()) first = first.parent_path();  // "dir/" names dir
    base = "ingest:" + first.filename().string();
  }
  return label.empty() ? base : base + "/" + label;
}

class Loader {
 public:
  Loader(store::CaptureDb& db, const IngestRequest& request) : m_db(db), m_request(request) {}

  IngestedRun load_run(const ingest::PlannedRun& planned) {
    IngestedRun out;
    out.name = run_name_for(m_request, planned.label);
    if (auto existing = m_db.find_run_by_name(out.name)) {
      out.id = existing->id;
    } else {
      store::NewRun run;
      run.name = out.name;
      run.host = host_name();
      run.kprof_version = KPROF_VERSION;
      out.id = m_db.create_run(run);  // simulated once a loaded agent says so (PassLoader::commit)
      crash_point("ingest_cmd.run_created");
    }
    for (const auto& p : planned.passes) out.passes.push_back(load_pass(out.id, p));
    m_db.set_run_status(out.id, store::RunStatus::done);
    out.simulated = m_db.find_run(out.id)->simulated;
    crash_point("commit.run_status");
    return out;
  }

  int64_t rejected() const { return m_rejected; }

 private:
  // Which pass of the run the planned files go to, and what is read into it.
  IngestedPass load_pass(int64_t run_id, const ingest::PlannedInput& planned) {
    IngestedPass out;
    out.kind = planned.counters ? store::PassKind::counters : store::PassKind::trace;
    out.folder = planned.input.folder;
    ingest::PassInput input = planned.input;
    std::set<std::string> new_paths;
    for (const auto& f : input.files)
      if (!f.context) new_paths.insert(f.path);
    const std::optional<store::PassInfo> existing = find_pass(run_id, planned, new_paths, out);
    if (existing) reconcile(run_id, planned, *existing, new_paths, input, out);
    const int64_t pass_id = existing ? existing->id : add_pass(run_id, planned, out);
    read_into(pass_id, input, out);
    return out;
  }

  // The pass that already holds the planned files (sets out.ordinal): the planned ordinal's,
  // or for a counter pass the one that holds one of these files; nullopt for a new pass.
  std::optional<store::PassInfo> find_pass(int64_t run_id, const ingest::PlannedInput& planned,
                                           const std::set<std::string>& new_paths,
                                           IngestedPass& out) {
    std::optional<store::PassInfo> existing;
    if (planned.ordinal) {
      existing = m_db.find_pass(run_id, *planned.ordinal);
      out.ordinal = *planned.ordinal;
    } else {
      // A counter pass: the one that already holds one of these files, else a new one.
      int64_t max_ordinal = 0;
      for (const auto& p : m_db.list_passes(run_id)) {
        max_ordinal = std::max(max_ordinal, p.ordinal);
        if (p.kind != store::PassKind::counters) continue;
        for (const auto& path : stored_paths(m_db, p.id))
          if (new_paths.count(path)) existing = p;
      }
      out.ordinal = existing ? existing->ordinal : max_ordinal + 1;
    }
    return existing;
  }

  // Loading into a pass that exists: refused for another kind of pass, or (without --replace)
  // when it would replace a trace; otherwise the files it holds are read again with the new ones
  // (`input`). Says what happens in out.action.
  void reconcile(int64_t run_id, const ingest::PlannedInput& planned,
                 const store::PassInfo& existing, const std::set<std::string>& new_paths,
                 ingest::PassInput& input, IngestedPass& out) {
    if (existing.kind != out.kind) {
      throw Error::input("run '" + m_db.find_run(run_id)->name + "' has pass " +
                             std::to_string(out.ordinal) + " as a " +
                             std::string(store::to_string(existing.kind)) + " pass; " +
                             planned.what + " is " + std::string(store::to_string(out.kind)),
                         "load it into a run of its own (--run NAME)");
    }
    const std::vector<std::string> old = stored_paths(m_db, existing.id);
    std::vector<std::string> old_only;
    for (const auto& p : old)
      if (!new_paths.count(p)) old_only.push_back(p);
    if (m_request.replace) {
      std::vector<std::string> names;
      for (const auto& p : old_only) names.push_back(fs::path(p).filename().string());
      if (!old_only.empty())
        out.action = "replaced: pass " + std::to_string(out.ordinal) + " held " +
                     std::string(store::to_string(existing.kind)) + " rows of " +
                     std::to_string(old.size()) +
                     " file(s); no longer loaded: " + join(names, ", ");
    } else if (!old_only.empty()) {
      // Adding to a pass keeps what is there, except a second kernel trace (or a pass_N folder
      // of other files), which would replace data: that needs --replace.
      bool old_trace = false, new_trace = false;
      const auto old_files = old_inputs(old_only, out.ordinal);
      for (const auto& f : old_files) old_trace |= is_trace_file(f);
      for (const auto& f : input.files) new_trace |= is_trace_file(f) && !f.context;
      if ((planned.ordinal && *planned.ordinal > 0) || (old_trace && new_trace)) {
        std::string held;
        for (const auto& f : old_files)
          if (is_trace_file(f) || !(old_trace && new_trace))
            held += (held.empty() ? "" : ", ") + f.path;
        if (old_files.size() > 1) held += " (" + std::to_string(old_files.size()) + " files)";
        throw Error::input(
            "run '" + m_db.find_run(run_id)->name + "' already has pass " +
                std::to_string(out.ordinal) + " (" + std::string(store::to_string(existing.kind)) +
                ") with " + held + "; loading " + planned.what +
                " into it would replace those rows",
            "give --replace to replace them, or --run NAME to load into a run of its own");
      }
      input.files.insert(input.files.end(), old_files.begin(), old_files.end());
      std::stable_sort(input.files.begin(), input.files.end(), [](const auto& a, const auto& b) {
        return (a.format == ingest::Format::agent_info) > (b.format == ingest::Format::agent_info);
      });
      out.action = "added to pass " + std::to_string(out.ordinal) + ": its " +
                   std::to_string(old_only.size()) + " file(s) already loaded were read again";
    } else {
      out.action = "reloaded: pass " + std::to_string(out.ordinal) + " held the same files";
    }
  }

  // A new pass for the planned files; counters: the names loaded (commit).
  int64_t add_pass(int64_t run_id, const ingest::PlannedInput& planned, const IngestedPass& out) {
    store::PlannedPass p;
    p.ordinal = out.ordinal;
    p.kind = planned.counters ? store::PassKind::counters : store::PassKind::trace;
    p.output_dir = planned.input.folder;
    return m_db.add_planned_pass(run_id, p);
  }

  // Reads `input` into the pass, replacing its rows, and marks it done.
  void read_into(int64_t pass_id, const ingest::PassInput& input, IngestedPass& out) {
    crash_point("ingest_cmd.pass_added");
    ingest::ReadOptions read = m_request.read;
    read.pipelined = true;  // parse on a second thread while SQLite writes on this one
    {
      // No `running` state is recorded: inside the one transaction nobody could see it, and a
      // killed ingest leaves no pass behind to call "owner dead".
      store::PassLoader loader(m_db, pass_id);
      crash_point("ingest.loader_open");
      out.files = ingest::read_pass(input, loader, read);
      crash_point("ingest.before_commit");
      loader.commit();
      crash_point("commit.rows_committed");
    }
    store::PassTransition done;
    done.state = store::PassState::done;
    m_db.set_pass_state(pass_id, done);
    crash_point("commit.pass_done");
    for (const auto& f : out.files) m_rejected += f.rows_rejected;
  }

  store::CaptureDb& m_db;
  const IngestRequest& m_request;
  int64_t m_rejected = 0;
};

}  // namespace

store::PassKind parse_pass_kind_option(std::string_view text) {
  for (auto k : {store::PassKind::trace, store::PassKind::counters})
    if (store::to_string(k) == text) return k;
  throw Error::input("--pass-kind must be trace or counters, not '" + std::string(text) + "'",
                     "see kprof ingest --help");
}

IngestReport ingest_capture(const IngestRequest& request) {
  if (request.inputs.empty())
    throw Error::input("expected at least one directory or file",
                       "usage: kprof ingest DB DIR|FILE...");
  // Absolute paths: ingest_stats keeps them, so a later ingest into the same run can read a
  // pass's files again from any working directory.
  std::vector<std::string> inputs;
  for (const auto& i : request.inputs)
    inputs.push_back(fs::absolute(i).lexically_normal().string());
  // Pass folders a batch script's tasks wrote: the run they are (ingest_manifest.hpp).
  const std::vector<fs::path> manifests = find_manifests(inputs);
  std::optional<ingest::Discovery> found;
  std::optional<ingest::IngestPlan> plan;
  if (manifests.empty()) {
    found = ingest::discover(inputs);
    plan = ingest::plan_ingest(*found, request.forced_kind);
  }

  IngestReport report;
  if (found) report.notes = found->notes;
  if (plan) report.notes.insert(report.notes.end(), plan->notes.begin(), plan->notes.end());
  if (found) report.skipped = found->skipped;
  // One writer per database file (RunLock is keyed by the file's identity); the lock is declared
  // first so that it outlives the connection.
  RunLock lock(request.db);
  try {
    store::CaptureDb db(request.db);
    // bulk_load: foreign keys checked once before COMMIT, not per row
    // (core/store/write_transaction.cpp).
    store::WriteTransaction tx(db, store::WriteKind::bulk_load);
    if (!manifests.empty()) {
      report.runs.push_back(ingest_manifest_run(db, request, inputs, manifests, report.notes));
    } else {
      Loader loader(db, request);
      for (const auto& run : plan->runs) report.runs.push_back(loader.load_run(run));
      report.rejected = loader.rejected();
    }
    tx.commit();
  } catch (...) {
    // Nothing was committed; a database file this call created holds only an empty schema.
    lock.remove_created_file();
    throw;
  }
  return report;
}

}  // namespace kprof::exec
