// The analysis' side of the capture database: loading a run's passes into plain values
// (analysis_db.cpp), computing the cross-pass join mapping and storing and reading it through the
// store (join_store.cpp; core/store/analysis_results.hpp) and moving counter values onto
// trace dispatches through it (joined_counters.cpp). The mapping is computed once per counter pass
// and stored; it is redone only when a pass's dispatch count changed since (a re-ingest), and
// callers say so when it is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/analysis/join/join.hpp"
#include "core/analysis/metrics/metrics.hpp"
#include "core/analysis/structure/capture.hpp"
#include "core/store/analysis_reads.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::analysis {

struct Capture {
  store::RunInfo run;
  std::vector<store::PassInfo> passes;
  NameTable names;
  PassData trace;                  // the run's trace pass (ordinal 0, or the first trace pass)
  std::vector<PassData> counters;  // counter passes with rows, by ordinal
  // False when load_capture left the counter passes' rows in the database (`counters` empty):
  // views that read joined counters through the stored join need none of them.
  bool counter_rows = true;
  int wave_size = 64;   // Wave_Front_Size of the trace's GPU agent (64 if unknown)
  std::string arch;     // the GPU agent's name (gfx942), "" if unknown
  std::string product;  // its product name
};

// The run (the latest when run_id is empty) and its trace pass (the trace pass of lowest ordinal),
// without loading any rows. Throws Error(input) as load_capture does.
struct RunTrace {
  store::RunInfo run;
  std::vector<store::PassInfo> passes;
  store::PassInfo trace;
};
RunTrace find_run_trace(store::CaptureDb& db, std::optional<int64_t> run_id);

// Throws the Error(input) of a run whose trace pass holds no dispatches.
[[noreturn]] void no_dispatches(store::CaptureDb& db, const store::RunInfo& run,
                                int64_t trace_pass_id);

// Every launch configuration (kernel_variants row) of pass `pass_id` in id order: its id, its
// shape (shape.name not set) and its kernel name.
void for_each_shape(store::CaptureDb& db, int64_t pass_id,
                    const std::function<void(int64_t, KernelShape, const std::string&)>& f);

// Pass `pass.pass_id`'s launch configurations read into `pass.shapes` (names interned into
// `names`): kernel_variants.id -> index into pass.shapes, what StoredDispatchReader maps rows by.
using StoredShapes = std::unordered_map<int64_t, uint32_t>;
StoredShapes read_stored_shapes(store::CaptureDb& db, PassData& pass, NameTable& names);

// Pass `pass.pass_id`'s dispatch rows in (pid, Dispatch_Id) order, as load_capture keeps them, one
// at a time (through the index dispatches_by_key, core/store/schema/0005_kernel_variants.sql: no
// sort): shapes from `shape_of` (read_stored_shapes of the same pass), lanes interned into
// `pass.lanes` as they come; `pass.ordinal` names the pass in the error of a Process_Id no process
// has. Several readers of one pass may be open at once.
class StoredDispatchReader {
 public:
  StoredDispatchReader(store::CaptureDb& db, PassData& pass, const StoredShapes& shape_of);
  bool next(Dispatch& d);

 private:
  store::CaptureDb& m_db;
  PassData& m_pass;
  const StoredShapes& m_shape_of;
  store::DispatchTimingReader m_rows;
  Lane m_last_lane{-1, -1};
  uint32_t m_last_lane_index = 0;
};

// Every row of a StoredDispatchReader of `pass`, its shapes read first. Rows are not collected:
// callers that need them (the loader) keep them, the bounded outline keeps what it needs.
void for_each_stored_dispatch(store::CaptureDb& db, PassData& pass, NameTable& names,
                              const std::function<void(const Dispatch&)>& f);

// Loads the run (the latest when run_id is empty). Throws Error(input) when the database has no
// run, no such run, or the run has no trace pass with dispatches. `counter_rows` false: the
// counter passes are not loaded (Capture::counter_rows), 40 B per counter-pass dispatch saved
// for views that do not join (explain, phases) or read a current stored join.
Capture load_capture(store::CaptureDb& db, std::optional<int64_t> run_id, bool counter_rows = true);
// The counter passes of a capture loaded without them, read now (nothing when they are there).
void load_counter_rows(store::CaptureDb& db, Capture& cap);
// The trace pass of a loaded capture as find_run_trace names it, without reading rows.
RunTrace run_trace_of(const Capture& cap);

struct JoinSummary {
  int64_t counter_pass_id = 0, trace_pass_id = 0, ordinal = 0;
  int64_t counter_dispatches = 0, trace_considered = 0, matched = 0;
  double matched_share = 0;
  bool filtered = false;
  int64_t streams = 0;
  int64_t unmatched_counter = 0, unmatched_trace = 0;
  bool computed_now = false;  // true when this call (re)computed and stored it
  store::JoinMethod method = store::JoinMethod::aligned;
  bool monotone = true, reliable = true;
  int64_t jump_bound = 0, jumps = 0, max_jump = 0;
  int64_t offset_streams = 0, offset = 0;  // streams matched under a constant Dispatch_Id offset
};

// A pass of a run and its dispatch count: what the stored analysis (join mapping, outline) is
// checked against, known without loading the rows (run_counts(db, ...) counts them in SQL).
struct PassCount {
  int64_t pass_id = 0, ordinal = 0, dispatches = 0;
};
struct RunCounts {
  PassCount trace;
  std::vector<PassCount> counters;  // counter passes with dispatches, by ordinal (as Capture's)
};
RunCounts run_counts(const Capture& cap);
RunCounts run_counts(store::CaptureDb& db, const RunTrace& rt);

// The join's view of stored pass `pass` (join.hpp): its rows in (pid, Dispatch_Id) order through
// the store's index, launch names interned into `names` (the other pass's table too). Holds only
// the pass's launch configurations; `db` must outlive it.
std::unique_ptr<JoinInput> stored_join_input(store::CaptureDb& db, const PassCount& pass,
                                             NameTable& names);

// Whether counter pass `counter`'s stored mapping against trace pass `trace` is current: it was
// self-checked, made from as many dispatches on both sides as the passes hold now, and neither
// pass was ingested again after it (`kprof ingest --replace` keeps a pass's id and, from a re-run,
// often its count; pass_files_fingerprint tells). The one test every
// reader of a stored join uses.
bool pass_join_current(store::CaptureDb& db, const PassCount& counter, const PassCount& trace);
// True when every counter pass of `cap` has a current mapping.
bool joins_current(store::CaptureDb& db, const Capture& cap);
bool joins_current(store::CaptureDb& db, const RunCounts& counts);
// Computes the mapping of every counter pass that has none or a stale one and stores them in one
// transaction. Needs a read-write database.
std::vector<JoinSummary> ensure_joins(store::CaptureDb& db, const Capture& cap);
// Every counter pass's mapping computed in memory, nothing read or written (a query session that
// may not write uses it for its own views).
struct ComputedJoins {
  std::vector<JoinSummary> summaries;     // computed_now set
  std::map<int64_t, JoinResult> results;  // by counter pass id
};
ComputedJoins compute_joins(const Capture& cap);
// Stores `joins` in one transaction if the write lock is free right now; false, having changed
// nothing, when another connection holds it (never waits). Needs a read-write database.
bool try_store_joins(store::CaptureDb& db, const Capture& cap, const ComputedJoins& joins);
// The self-check's jump bound (JoinResult::jump_bound): one step of the trace when its phase
// model has steps (`step_period`), else a twentieth of the trace, at least 64 dispatches.
int64_t join_jump_bound(size_t step_period, int64_t trace_dispatches);
// Joins every counter pass of `counts` whose stored mapping is missing or stale, reading both
// passes from the database (stored_join_input) with each sequence the join holds spilled past
// about `memory_bytes` (no capture loaded), and stores the mappings in one transaction
// if the write lock is free now. Returns the summaries of the joins it computed, or nullopt,
// having stored nothing, when another connection holds the lock. `jump_bound`: join_jump_bound of
// the trace's phase model. Read-write.
std::optional<std::vector<JoinSummary>> try_join_stored(store::CaptureDb& db,
                                                        const RunCounts& counts, int64_t jump_bound,
                                                        size_t memory_bytes);
// The stored summaries of the passes of `counts` that have one.
std::vector<JoinSummary> read_joins(store::CaptureDb& db, const Capture& cap);
std::vector<JoinSummary> read_joins(store::CaptureDb& db, const RunCounts& counts);

// Counter values of every counter pass moved onto the trace dispatches through the stored mapping.
// Passes whose join failed its self-check are left out unless `use_unreliable` (--force-join).
JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap,
                                    bool use_unreliable = false);

// The same from a mapping computed in memory (the counter values are still read from `db`).
JoinedCounters load_joined_counters(store::CaptureDb& db, const Capture& cap,
                                    const ComputedJoins& joins, bool use_unreliable = false);

// "joined by Dispatch_Id (same invocation)", "UNRELIABLE: 3 matches skip more than one step ...".
std::string join_check_text(const JoinSummary& j);

// What was ingested into a pass, as text: its ingest_stats rows (id, file sha256, load time, rows
// read), one line per file (a few per pass). `kprof ingest --replace` reloads a pass under the same
// id, possibly with as many rows, but never with the same rows: a stored result (join mapping,
// outline) kept with it is current only while it is unchanged. Text, not a hash: hashing would
// initialize OpenSSL (core/base/sha256.cpp), about 2 MiB of an export's peak RSS.
std::string pass_files_fingerprint(store::CaptureDb& db, int64_t pass_id);

// Whether this user can write the database file and its folder (SQLite needs both for the WAL and
// its index): derived analysis (join mapping, outline) is stored only then.
bool writable_database(const std::filesystem::path& db);

namespace detail {
// A stored Process_Id as the analysis holds it; Error(input) naming pass `ordinal` when no Linux
// process can have it.
int32_t stored_pid(store::CaptureDb& db, int ordinal, int64_t pid);
// The GPU agent of pass `pass_id` that ran `agent` (else its first GPU agent): its name (gfx942),
// product and wave size (0 when unknown).
struct GpuAgent {
  std::string arch, product;
  int64_t wave_size = 0;
};
GpuAgent gpu_agent(store::CaptureDb& db, int64_t pass_id, int64_t agent);
}  // namespace detail

}  // namespace kprof::analysis
