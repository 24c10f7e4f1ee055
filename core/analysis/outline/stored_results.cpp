#include "core/analysis/outline/stored_results.hpp"

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/outline/run_outline.hpp"
#include "core/base/error.hpp"
#include "core/base/spill_vector.hpp"

namespace kprof::analysis {

std::string store_results(store::CaptureDb& db, int64_t run_id) {
  const auto run = db.find_run(run_id);
  if (!run) return "";
  const store::PassInfo* trace = nullptr;
  const auto passes = db.list_passes(run_id);
  for (const auto& p : passes)
    if (p.kind == store::PassKind::trace && (!trace || p.ordinal < trace->ordinal)) trace = &p;
  if (!trace || !db.has_dispatches(trace->id)) return "";
  const RunTrace rt{*run, passes, *trace};
  const RunCounts counts = run_counts(db, rt);
  const std::string run_text = "run " + std::to_string(run_id);
  if (joins_current(db, counts) && read_outline(db, counts))
    return run_text + ": the stored counter join and outline are current";
  const size_t memory = spill_memory_bytes(size_t{4} << 20);
  size_t step_period = 0;
  const RunOutline ro = compute_outline_bounded(db, rt, counts, memory, &step_period);
  const auto joined =
      try_join_stored(db, counts, join_jump_bound(step_period, counts.trace.dispatches), memory);
  if (!joined || !joins_current(db, counts) || !try_store_outline(db, ro))
    return run_text +
           ": the counter join and outline were not stored (another kprof is writing "
           "the database); queries compute them until `kprof ingest` runs again";
  const size_t n = counts.counters.size();
  return run_text + ": stored for queries: " +
         (n ? "the counter join of " + std::to_string(n) + (n == 1 ? " pass" : " passes") + " and "
            : std::string()) +
         "the run's outline";
}

void print_stored_results(const std::filesystem::path& db, const std::vector<int64_t>& runs,
                          std::ostream& out) {
  if (runs.empty()) return;
  store::CaptureDb cdb(db, store::OpenMode::read_write);
  for (const int64_t run : runs) {
    std::string line;
    try {
      line = store_results(cdb, run);
    } catch (const Error& e) {
      line = "run " + std::to_string(run) +
             ": the counter join and outline were not stored: " + e.diagnostics().front().line();
    }
    if (!line.empty()) out << line << "\n";
  }
}

}  // namespace kprof::analysis
