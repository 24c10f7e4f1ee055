// kprof merge: see merge.hpp. The merge's SQL is here and in merge_rows.cpp (the pass rows, whose
// layout is read from the target's schema); this file names only the bookkeeping tables (runs,
// passes, strings, selected_kernels).
#include "core/store/merge.hpp"

#include <sys/stat.h>

#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <optional>

#include "core/store/capture_db_impl.hpp"
#include "core/store/merge_rows.hpp"
#include "core/store/runbook_hints.hpp"

namespace kprof::store {

std::string_view to_string(MergeOutcome o) {
  switch (o) {
    case MergeOutcome::added:
      return "added";
    case MergeOutcome::same:
      return "same";
    case MergeOutcome::not_in_source:
      return "not done in source";
  }
  return "?";
}

namespace {

namespace fs = std::filesystem;
using merge_rows::copy_pass_record;
using merge_rows::copy_pass_rows;
using merge_rows::digest_pass;
using merge_rows::drop_derived_results;
using merge_rows::pass_tables;

std::string describe(const PassInfo& p) {
  std::string s = "pass " + std::to_string(p.ordinal) + " (" + std::string(to_string(p.kind));
  if (!p.counters.empty()) {
    s += ":";
    for (const auto& c : p.counters) s += " " + c;
  }
  return s + ")";
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 12); }

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The run-scoped data (kernels of interest), merged as a whole: copied when the target has none.
void merge_selected(CaptureDb& src, CaptureDb& target, int64_t src_run, int64_t dst_run,
                    const fs::path& src_path) {
  const auto theirs = src.selected_kernels(src_run);
  if (theirs.empty()) return;
  const auto ours = target.selected_kernels(dst_run);
  if (ours.empty()) {
    for (const auto& k : theirs) target.intern(k.name);
    SQLite::Statement ins(target.sql(),
                          "INSERT INTO selected_kernels (run_id, name_id, rank, reason) VALUES "
                          "(?, (SELECT id FROM strings WHERE value = ?), ?, ?)");
    for (const auto& k : theirs) {
      ins.bind(1, dst_run);
      ins.bind(2, k.name);
      ins.bind(3, k.rank);
      ins.bind(4, k.reason);
      ins.exec();
      ins.reset();
    }
    return;
  }
  auto same = [](const SelectedKernel& a, const SelectedKernel& b) {
    return a.name == b.name && a.rank == b.rank;
  };
  if (!std::equal(ours.begin(), ours.end(), theirs.begin(), theirs.end(), same)) {
    throw Error::input("the kernels of interest of run " + std::to_string(dst_run) + " in '" +
                           target.path().string() + "' differ from those of run " +
                           std::to_string(src_run) + " in '" + src_path.string() + "'",
                       "their trace passes chose different kernels: they are not one run");
  }
}

// The target's run for a source's run: the one chosen by an earlier source (`run_id`), else the
// latest of the same runbook; an empty target gets a copy of the source's run (`created`).
std::optional<RunInfo> target_run(CaptureDb& target, CaptureDb& src, const RunInfo& src_run,
                                  std::optional<int64_t> run_id, bool& created) {
  std::optional<RunInfo> run;
  if (run_id) {
    run = target.find_run(*run_id);
  } else {
    for (const auto& r : target.list_runs())
      if (r.runbook_sha256 == src_run.runbook_sha256) run = r;
  }
  if (!run && !run_id && target.list_runs().empty()) {
    NewRun n{src_run.name,         src_run.runbook_path, src_run.runbook_sha256,
             src_run.runbook_text, src_run.host,         src_run.kprof_version,
             src_run.simulated,    src_run.seed,         src_run.profiler_version};
    const int64_t id = target.create_run(n);
    if (const auto p = src.run_provenance(src_run.id)) target.set_run_provenance(id, *p);
    if (const auto f = runbook_hints(src, src_run.id)) store_runbook_hints(target, id, *f);
    SQLite::Statement up(target.sql(), "UPDATE runs SET started_ms = ? WHERE id = ?");
    up.bind(1, src_run.started_ms);
    up.bind(2, id);
    up.exec();
    run = target.find_run(id);
    created = true;
  }
  return run;
}

// Refuses a source whose run is not the target's: another runbook, simulated against measured,
// or another profiler version.
void check_same_run(CaptureDb& target, const std::optional<RunInfo>& run, const RunInfo& src_run,
                    const fs::path& path) {
  if (!run || run->runbook_sha256 != src_run.runbook_sha256) {
    const auto last = run ? run : target.find_last_run();
    throw Error::input(
        "run " + std::to_string(src_run.id) + " ('" + src_run.name + "') in '" + path.string() +
            "' was made from runbook sha256 " + short_sha(src_run.runbook_sha256) +
            "..., but run " + std::to_string(last->id) + " ('" + last->name + "') in '" +
            target.path().string() + "' from " + short_sha(last->runbook_sha256) + "...",
        "merge only databases of one run of one runbook (`kprof status DB` shows a "
        "database's run)");
  }
  if (run->simulated != src_run.simulated) {
    throw Error::input("'" + path.string() + "' holds a " +
                           (src_run.simulated ? "simulated" : "measured") + " run, '" +
                           target.path().string() + "' a " +
                           (run->simulated ? "simulated" : "measured") + " one",
                       "simulated and measured captures are never merged");
  }
  if (!run->profiler_version.empty() && !src_run.profiler_version.empty() &&
      run->profiler_version != src_run.profiler_version) {
    throw Error::input("'" + path.string() + "' was captured with profiler '" +
                           src_run.profiler_version + "', '" + target.path().string() + "' with '" +
                           run->profiler_version + "'",
                       "passes of one run must come from one profiler version (their "
                       "command lines and outputs differ); merge each version separately");
  }
}

// Merges the source's passes into the target run's, pass by pass: a pass done in the source only
// is copied, one done in both must hold the same rows. An empty target takes the source's plan.
void merge_passes(CaptureDb& src, CaptureDb& target, const std::vector<merge_rows::Table>& tables,
                  const RunInfo& src_run, const RunInfo& run, const fs::path& path,
                  MergeReport& report) {
  SQLite::Database& dst = target.sql();
  auto ours = target.list_passes(run.id);
  const auto theirs = src.list_passes(src_run.id);
  if (ours.empty()) {
    for (const auto& p : theirs)
      target.add_planned_pass(run.id, PlannedPass{p.ordinal, p.kind, p.counters, p.argv, p.env,
                                                  p.output_dir, p.log_path});
    ours = target.list_passes(run.id);
  }
  auto plan_error = [&](const std::string& what) {
    return Error::input(what + ": the plans of run " + std::to_string(src_run.id) + " in '" +
                            path.string() + "' and run " + std::to_string(run.id) + " in '" +
                            target.path().string() + "' differ",
                        "merge only databases of one run (same runbook, same kprof)");
  };
  if (ours.size() != theirs.size()) {
    throw plan_error(std::to_string(theirs.size()) + " passes against " +
                     std::to_string(ours.size()));
  }
  for (size_t i = 0; i < theirs.size(); ++i) {
    const auto& s = theirs[i];
    const auto& t = ours[i];
    if (s.ordinal != t.ordinal || s.kind != t.kind || s.counters != t.counters)
      throw plan_error(describe(s) + " against " + describe(t));
    MergedPass m{path, s.ordinal, MergeOutcome::not_in_source, 0};
    if (s.state == PassState::done && t.state == PassState::done) {
      if (!(digest_pass(src.sql(), tables, s.id) == digest_pass(dst, tables, t.id))) {
        throw Error::input(
            describe(s) + " is done in both '" + path.string() + "' (run " +
                std::to_string(src_run.id) + ") and '" + target.path().string() + "' (run " +
                std::to_string(run.id) + ") with different rows: two captures of one pass",
            "keep one: merge without the other database, or re-run the pass with `kprof "
            "resume`");
      }
      m.outcome = MergeOutcome::same;
    } else if (s.state == PassState::done) {
      delete_pass_rows(dst, t.id);
      drop_derived_results(dst, run.id);
      m.rows = copy_pass_rows(src.sql(), target, tables, s.id, t.id);
      copy_pass_record(src.sql(), dst, s.id, t.id);
      m.outcome = MergeOutcome::added;
    }
    report.passes.push_back(m);
  }
}

// The merged run's totals; a run whose passes are now all done is marked done.
void finish_run(CaptureDb& target, int64_t run_id, MergeReport& report) {
  report.run_id = run_id;
  const auto passes = target.list_passes(run_id);
  report.passes_total = static_cast<int64_t>(passes.size());
  int64_t last_end = 0;
  for (const auto& p : passes) {
    if (p.state == PassState::done) ++report.passes_done;
    last_end = std::max(last_end, p.finished_ms.value_or(0));
  }
  if (report.passes_done == report.passes_total && report.passes_total > 0) {
    const auto run = target.find_run(run_id);
    target.set_run_status(run_id, RunStatus::done, std::max(last_end, run->started_ms));
  }
  report.status = target.find_run(run_id)->status;
}

}  // namespace

MergeReport merge_captures(CaptureDb& target, const std::vector<fs::path>& sources) {
  MergeReport report;
  SQLite::Database& dst = target.sql();
  try {
    WriteTransaction tx(target);  // records: every copied row's foreign keys checked as written
    const auto tables = pass_tables(dst);
    std::optional<int64_t> run_id;
    for (const auto& path : sources) {
      if (same_file(path, target.path())) {
        throw Error::input("'" + path.string() + "' is the target database itself",
                           "name the database to merge into first, then the others");
      }
      CaptureDb src(path, OpenMode::read_only);
      const auto src_run = src.find_last_run();
      if (!src_run) {
        throw Error::input("capture database '" + path.string() + "' holds no run",
                           "merge databases written by `kprof run` or `kprof ingest`");
      }
      const std::optional<RunInfo> run =
          target_run(target, src, *src_run, run_id, report.run_created);
      check_same_run(target, run, *src_run, path);
      run_id = run->id;
      merge_passes(src, target, tables, *src_run, *run, path, report);
      merge_selected(src, target, src_run->id, run->id, path);
    }
    if (run_id) finish_run(target, *run_id, report);
    tx.commit();
  } catch (const SQLite::Exception& e) {
    rethrow_sqlite(target.path(), "merging", e);
  }
  return report;
}

}  // namespace kprof::store
