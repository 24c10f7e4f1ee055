// `kprof ingest DB DIR|FILE...`: load rocprofv3 outputs captured by hand or on another machine
// into a capture database: one run, one pass per discovered pass folder. Every file is read once
// (validated, hashed and loaded in the same pass over its bytes), and the whole command is one
// transaction: a broken file leaves the database as it was (a database this command created is
// removed again).
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "apps/kprof/command.hpp"
#include "core/base/crash_point.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/exec/run_lock.hpp"
#include "core/ingest/discover.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;

// Loads every discovered pass in one transaction; returns the rows rejected. What it prints goes to
// `out`, shown only once everything is committed.
int64_t load_all(const std::string& db_path, const std::string& run_name,
                 const ingest::Discovery& found, std::optional<store::PassKind> forced_kind,
                 ingest::ReadOptions read_opts, std::ostream& out) {
  // One writer per database file (exec::RunLock is keyed by the file's identity); the lock is
  // declared first so that it outlives the connection.
  exec::RunLock lock(db_path);
  store::CaptureDb db(db_path);
  store::WriteTransaction tx(db);
  int64_t run_id = 0;
  if (auto existing = db.find_run_by_name(run_name)) {
    run_id = existing->id;
  } else {
    store::NewRun run;
    run.name = run_name;
    run.host = exec::host_name();
    run.kprof_version = KPROF_VERSION;
    run_id = db.create_run(run);  // simulated once a loaded agent says so (PassLoader::commit)
    crash_point("ingest_cmd.run_created");
  }

  // The root folder's files are the trace pass (ordinal 0) unless they hold counters; pass_N
  // folders keep N.
  int max_number = 0;
  for (const auto& p : found.passes) max_number = std::max(max_number, p.number);
  read_opts.pipelined = true;  // parse on a second thread while SQLite writes on this one
  int64_t rejected_total = 0;
  std::ostringstream passes_text;
  for (const auto& pass : found.passes) {
    store::PassKind kind =
        forced_kind.value_or(store::parse_pass_kind(ingest::infer_pass_kind(pass)));
    int64_t ordinal = pass.number;
    if (ordinal == 0 && kind == store::PassKind::counters) ordinal = max_number + 1;
    int64_t pass_id = 0;
    if (auto existing = db.find_pass(run_id, ordinal)) {
      pass_id = existing->id;
    } else {
      store::PlannedPass planned;
      planned.ordinal = ordinal;
      planned.kind = kind;
      planned.output_dir = pass.folder;
      pass_id = db.add_planned_pass(run_id, planned);  // counters: the names loaded (commit)
    }
    crash_point("ingest_cmd.pass_added");
    // No `running` state is recorded: inside the one transaction nobody could see it, and a
    // killed ingest leaves no pass behind to call "owner dead".
    std::vector<ingest::FileResult> results;
    {
      store::PassLoader loader(db, pass_id);
      crash_point("ingest.loader_open");
      results = ingest::read_pass(pass, loader, read_opts);
      crash_point("ingest.before_commit");
      loader.commit();
      crash_point("commit.rows_committed");
    }
    store::PassTransition done;
    done.state = store::PassState::done;
    db.set_pass_state(pass_id, done);
    crash_point("commit.pass_done");
    passes_text << "pass " << ordinal << " (" << store::to_string(kind) << ") " << pass.folder
                << "\n";
    Table files;
    files.columns = {"file", "kind", "rows_read", "rejected"};
    for (const auto& r : results) {
      files.rows.push_back({std::filesystem::path(r.path).filename().string(), r.kind,
                            static_cast<int64_t>(r.rows_read),
                            static_cast<int64_t>(r.rows_rejected)});
      rejected_total += r.rows_rejected;
    }
    render_text(passes_text, files, TextLayout{terminal_width(STDOUT_FILENO), false});
  }
  db.set_run_status(run_id, store::RunStatus::done);
  const bool simulated = db.find_run(run_id)->simulated;
  crash_point("commit.run_status");
  tx.commit();
  out << "run " << run_id << " '" << run_name << "' in " << db_path
      << (simulated ? " (simulated: agents say so)" : " (measured)") << "\n"
      << passes_text.str();
  return rejected_total;
}

int cmd_ingest(const app::Args& args) {
  namespace po = app::po;
  po::options_description opts("options");
  opts.add_options()("pass-kind", po::value<std::string>(),
                     "trace or counters, for every pass (default: counters when a pass holds "
                     "counter_collection.csv)")(
      "run", po::value<std::string>(),
      "add the passes to the run of this name (created when missing; a pass already there is "
      "replaced)")("strict", po::bool_switch(), "fail on any bad row instead of counting it")(
      "db", po::value<std::string>(), "capture database")(
      "inputs", po::value<std::vector<std::string>>()->multitoken(), "rocprofv3 outputs");
  po::positional_options_description pos;
  pos.add("db", 1).add("inputs", -1);
  auto vm = app::parse_args("ingest",
                            "DB DIR|FILE... [--pass-kind trace|counters] [--run NAME] [--strict]",
                            args, opts, pos,
                            "examples:\n  kprof ingest k.db path/to/rocprofv3-output/\n  kprof "
                            "ingest k.db pass_1/ pass_2/ --run mi300x-2026-07-26 --strict");
  if (!vm) return 0;
  if (!vm->count("db") || !vm->count("inputs")) {
    throw Error::input("expected a database and at least one directory or file",
                       "usage: kprof ingest DB DIR|FILE...");
  }
  const std::string db_path = (*vm)["db"].as<std::string>();
  const auto inputs = (*vm)["inputs"].as<std::vector<std::string>>();
  std::optional<store::PassKind> forced_kind;
  if (vm->count("pass-kind")) {
    const std::string k = (*vm)["pass-kind"].as<std::string>();
    if (k != "trace" && k != "counters") {
      throw Error::input("--pass-kind must be trace or counters, not '" + k + "'",
                         "see kprof ingest --help");
    }
    forced_kind = store::parse_pass_kind(k);
  }
  ingest::ReadOptions read_opts;
  read_opts.strict = (*vm)["strict"].as<bool>();
  std::filesystem::path first = std::filesystem::absolute(inputs.front()).lexically_normal();
  if (first.filename().empty()) first = first.parent_path();  // "dir/" names dir
  const std::string run_name =
      vm->count("run") ? (*vm)["run"].as<std::string>() : "ingest:" + first.filename().string();

  const ingest::Discovery found = ingest::discover(inputs);
  std::error_code ec;
  const bool created = !std::filesystem::exists(db_path, ec);
  try {
    std::ostringstream out;
    const int64_t rejected_total = load_all(db_path, run_name, found, forced_kind, read_opts, out);
    std::cout << out.str();
    for (const auto& s : found.skipped)
      std::cout << "skipped (not a format kprof reads): " << s << "\n";
    if (rejected_total > 0)
      std::cout << rejected_total
                << " bad rows were skipped (see ingest_stats; --strict fails instead)\n";
  } catch (...) {
    // Nothing was committed; a database file this command created holds only an empty schema.
    if (created) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + suffix, ec);
    }
    throw;
  }
  return 0;
}

}  // namespace

KPROF_COMMAND("ingest", "load rocprofv3 outputs (CSV or rocpd) into a capture database",
              cmd_ingest);
