// The capture database: one SQLite file holding runs, their passes' bookkeeping, and every row
// ingested from rocprofv3's outputs. Schema: core/store/schema/*.sql (embedded at build time).
//
// This header deliberately names SQLiteCpp only by a forward declaration, so that exec, ingest,
// analysis and report can use the store without compiling SQLite headers. The store owns every
// table and statement: the analysis reads and writes through analysis_reads.hpp and
// analysis_results.hpp; the store's own files and tests use CaptureDb::sql().
//
// Threading: one CaptureDb per thread. Several processes may open the same file (WAL mode; writers
// wait up to the busy timeout for each other).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/store/rows.hpp"
#include "core/store/run_provenance.hpp"

namespace SQLite {
class Database;
}

namespace kprof::store {

// Wall-clock times are stored as integer milliseconds since the Unix epoch (UTC).
int64_t now_unix_ms();

enum class RunStatus { running, done, failed, interrupted };
enum class PassState { planned, running, done, failed, interrupted };

// The spellings stored in the database (and printed by the CLI): "running", "trace", ...
std::string_view to_string(RunStatus s);
std::string_view to_string(PassKind k);
std::string_view to_string(PassState s);
// Throw Error (runtime, "corrupt database") for a spelling the schema's CHECK would not allow.
RunStatus parse_run_status(std::string_view s);
PassKind parse_pass_kind(std::string_view s);
PassState parse_pass_state(std::string_view s);

enum class OpenMode {
  read_write,  // creates the file if missing, applies forward migrations
  read_only,   // never writes; refuses a missing file or one whose schema is not the current one
};

// What create_run() records about a run. The runbook's text is copied so a database alone says
// what was asked for, even after the runbook file changed.
struct NewRun {
  std::string name;
  std::string runbook_path;    // absolute path, as given
  std::string runbook_sha256;  // hex sha256 of the runbook's bytes (resume refuses a changed one)
  std::string runbook_text;
  std::string host;
  std::string kprof_version;
  bool simulated = false;       // true when the profiler was the rocprofv3 test double
  std::optional<int64_t> seed;  // the double's seed, when simulated
  // What `<profiler> --version` printed (or why there is no version), read once per run.
  std::string profiler_version = {};
};

struct RunInfo {
  int64_t id = 0;
  std::string name;
  std::string runbook_path;
  std::string runbook_sha256;
  std::string runbook_text;
  std::string host;
  int64_t started_ms = 0;
  std::optional<int64_t> finished_ms;
  RunStatus status = RunStatus::running;
  std::string kprof_version;
  bool simulated = false;
  std::optional<int64_t> seed;
  std::string profiler_version;  // '' for runs recorded before schema version 2
};

using EnvDelta = std::vector<std::pair<std::string, std::string>>;  // name, value; in order

// A pass as the planner made it; add_planned_pass() stores it in state `planned`.
struct PlannedPass {
  int64_t ordinal = 0;  // 0 = the trace pass, 1.. = counter passes, in plan order; unique per run
  PassKind kind = PassKind::trace;
  std::vector<std::string> counters;  // counters requested (empty for the trace pass)
  std::vector<std::string> argv;      // the full profiler command line
  EnvDelta env;                       // variables set on top of the inherited environment
  std::string output_dir;
  std::string log_path;
};

struct PassInfo {
  int64_t id = 0;
  int64_t run_id = 0;
  int64_t ordinal = 0;
  PassKind kind = PassKind::trace;
  std::vector<std::string> counters;
  std::vector<std::string> argv;
  EnvDelta env;
  PassState state = PassState::planned;
  int64_t attempts = 0;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  std::string reason;  // why it failed/was interrupted, or why it was retried; empty otherwise
  std::optional<int64_t> started_ms;
  std::optional<int64_t> finished_ms;
  std::string output_dir;
  std::string log_path;
  std::string log_excerpt;  // the tail of the profiler's log (the store keeps what it is given)
  std::optional<int64_t> owner_pid;  // set while running: who runs it
  std::string owner_host;
  // Set while running, once the attempt started: the launcher that started it ("local") and its
  // id for the attempt (exec/pass_launcher.hpp). With owner_pid/host, the owner record.
  std::string launcher;
  std::string launch_id;
};

// A state change of a pass. Fields left empty keep their stored value, except as noted.
struct PassTransition {
  PassState state = PassState::running;
  std::optional<int64_t> attempts;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  std::optional<std::string> reason;
  std::optional<std::string> log_excerpt;
  // Only for state == running: recorded as the owner. Any other state clears the owner.
  std::optional<int64_t> owner_pid;
  std::string owner_host;
  // The exact profiler command of this attempt (a counter pass learns its kernel filter only after
  // the trace pass ran, so the planned argv is replaced). Kept as it was when empty.
  std::optional<std::vector<std::string>> argv = std::nullopt;
};
// Timestamps follow the state: `running` sets started_ms = now and clears finished_ms and
// exit_code/signal (a new attempt); done/failed/interrupted set finished_ms = now; `planned` clears
// both (a reset for resume).

// A kernel of interest chosen from the trace; counter passes are joined to these.
struct SelectedKernel {
  std::string name;
  int64_t rank = 0;    // 1 = first by the selection's measure
  std::string reason;  // "top 10 by total_duration", "include_regex 'gemm'"
};

// Who holds a run's lock (the executor's guard against two processes driving one run).
struct RunLockHolder {
  int64_t pid = 0;
  std::string host;
  int64_t acquired_ms = 0;
};

// Provenance and counts of one ingested file (a row of ingest_stats).
struct IngestFileInfo {
  int64_t id = 0;
  int64_t pass_id = 0;
  std::string path;
  std::string
      kind;  // the kind given to RowSink::begin_file: "kernel_trace", "counter_collection"...
  int64_t size_bytes = 0;
  std::string sha256;        // of the bytes the reader read; empty when no reader hashed it
  std::string tool_version;  // rocprofv3's version when the reader found it; else empty
  int64_t rows_read = 0;
  int64_t rows_rejected = 0;
  std::optional<int64_t> first_reject_line;
  std::string first_reject_reason;
  int64_t loaded_ms = 0;
};

// Numbers of rows a pass holds, per table.
struct PassRowCounts {
  int64_t agents = 0;
  int64_t dispatches = 0;
  int64_t counter_values = 0;
  int64_t kernel_stats = 0;
  int64_t memory_copies = 0;
  int64_t memory_allocations = 0;
  int64_t api_calls = 0;
  int64_t ingest_files = 0;
};

// Creates a complete, empty capture database at `path` unless a file is already there: it is built
// under a temporary name in the same folder and linked into place, so another process sees either
// no file or a whole database. CaptureDb(path, read_write) does the same for a missing file.
void create_capture_db(const std::filesystem::path& path);

class CaptureDb {
 public:
  // The schema version this binary creates and understands.
  static int64_t latest_schema_version();

  // Throws Error: runtime for I/O or a locked file; input for a file that is not a kprof database
  // (foreign SQLite, not SQLite, 0 bytes, a folder), a damaged one (read-write: PRAGMA
  // quick_check), or one of a newer schema ("... has schema version 3, but this kprof knows
  // versions up to 1"). A refused file is left byte for byte as it was. read_write creates a
  // missing file whole (capture_db_open.cpp).
  explicit CaptureDb(const std::filesystem::path& path, OpenMode mode = OpenMode::read_write);
  ~CaptureDb();
  CaptureDb(const CaptureDb&) = delete;
  CaptureDb& operator=(const CaptureDb&) = delete;

  const std::filesystem::path& path() const;
  bool read_only() const;
  // PRAGMA quick_check: throws Error(input) naming the first problem and how to recover the rows.
  // Opening read-write already ran it (kprof never writes into a damaged file); readers call it
  // where a full scan is worth it (`kprof status`).
  void check_intact();
  int64_t schema_version();

  // Runs.
  int64_t create_run(const NewRun& run);  // status running, started now
  std::optional<RunInfo> find_run(int64_t run_id);
  std::optional<RunInfo> find_run_by_name(std::string_view name);  // the latest of that name
  std::optional<RunInfo> find_last_run();                          // the latest created
  std::vector<RunInfo> list_runs();                                // oldest first
  // A run's provenance (run_provenance.hpp, run_provenance.cpp); nullopt for no such run.
  void set_run_provenance(int64_t run_id, const RunProvenance& provenance);
  std::optional<RunProvenance> run_provenance(int64_t run_id);
  // done/failed/interrupted also set finished_ms (now unless given); running clears it.
  void set_run_status(int64_t run_id, RunStatus status,
                      std::optional<int64_t> finished_ms = std::nullopt);

  // Passes.
  int64_t add_planned_pass(int64_t run_id, const PlannedPass& pass);
  // Every transition clears the launch (a new attempt has not started yet; a finished one has no
  // owner).
  void set_pass_state(int64_t pass_id, const PassTransition& t);
  // The started attempt of a running pass, as its launcher names it. Throws unless it is running.
  void set_pass_launch(int64_t pass_id, const std::string& launcher, const std::string& launch_id);
  std::optional<PassInfo> find_pass(int64_t pass_id);
  std::optional<PassInfo> find_pass(int64_t run_id, int64_t ordinal);
  std::vector<PassInfo> list_passes(int64_t run_id);  // by ordinal

  // Interned strings (kernel names, counter names, ...). intern() returns the existing id or
  // inserts; it never caches (a cache would outlive a rolled-back transaction).
  int64_t intern(std::string_view s);
  std::optional<int64_t> find_string(std::string_view s);
  std::optional<std::string> string_by_id(int64_t id);

  // Kernels of interest of a run: replaces the previous selection.
  void set_selected_kernels(int64_t run_id, const std::vector<SelectedKernel>& kernels);
  std::vector<SelectedKernel> selected_kernels(int64_t run_id);  // by rank

  // The run lock. try_lock_run returns nullopt when this caller got it, else the current holder
  // (deciding whether that holder is dead is the executor's job: then break_run_lock and retry).
  std::optional<RunLockHolder> try_lock_run(int64_t run_id, int64_t pid, const std::string& host);
  std::optional<RunLockHolder> run_lock(int64_t run_id);
  void unlock_run(int64_t run_id, int64_t pid, const std::string& host);  // no-op if not holder
  void break_run_lock(int64_t run_id);

  // Reading back what a pass holds.
  PassRowCounts row_counts(int64_t pass_id);
  // Whether the pass holds any dispatch row: one index probe, where row_counts counts them all.
  bool has_dispatches(int64_t pass_id);
  std::vector<IngestFileInfo> ingest_files(int64_t pass_id);
  std::vector<AgentRow> agents(int64_t pass_id);             // by node_id
  std::vector<KernelStatRow> kernel_stats(int64_t pass_id);  // in file order
  // Those of the pass's files of one kind ("kernel_stats": not hip_api_stats, domain_stats ...).
  std::vector<KernelStatRow> kernel_stats(int64_t pass_id, const std::string& file_kind);
  // In (pid, dispatch_id) order. The callbacks' rows are valid only during the call.
  void for_each_dispatch(int64_t pass_id, const std::function<void(const DispatchRow&)>& fn);
  void for_each_counter(int64_t pass_id, const std::function<void(const CounterRow&)>& fn);
  std::vector<MemoryCopyRow> memory_copies(int64_t pass_id);
  std::vector<MemoryAllocationRow> memory_allocations(int64_t pass_id);  // in file order
  std::vector<ApiCallRow> api_calls(int64_t pass_id);

  // The SQLiteCpp connection, for the store's own files and tests (never analysis, report, apps).
  SQLite::Database& sql();

  // Opaque outside core/store (defined in capture_db_impl.hpp).
  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
  friend class PassLoader;
  friend class WriteTransaction;
  friend struct RawInsert;
};

// What a WriteTransaction writes. `records`: a few rows, every foreign key checked as it is
// written. `bulk_load`: pass rows through PassLoaders, whose references hold by construction; the
// per-row foreign-key searches are skipped and the record tables are checked once before COMMIT
// (write_transaction.cpp says why and which).
enum class WriteKind { records, bulk_load };

// THE write path into a capture database: every writer's transaction is one of these (PassLoader
// and RawInsert open their own when none is open; CaptureDb's multi-row writes, merge and the
// analysis join cache use it directly). BEGIN IMMEDIATE takes SQLite's write lock at once (a
// second writer fails at the start, not half-way); commit() commits; destroying it without
// commit() rolls back, so a broken file anywhere in `kprof ingest` leaves the database as it was.
// PassLoaders made while it is open load inside it (each in a savepoint, so a pass still replaces
// its old rows). One per connection at a time. The run lock (exec::RunLock, a flock on the file)
// is the process-level guard and is taken by the command around its connection, not here: a
// store type cannot know which run a command drives.
class WriteTransaction {
 public:
  explicit WriteTransaction(CaptureDb& db, WriteKind kind = WriteKind::records);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit();

 private:
  CaptureDb& m_db;
  bool m_open = false;
  bool m_bulk = false;
};

// Loads one pass's rows inside ONE transaction:
//   PassLoader loader(db, pass_id); reader.read(file, loader); loader.commit();
// The constructor begins an IMMEDIATE transaction (a savepoint inside a WriteTransaction) and
// deletes the pass's previous rows, so a repeated ingest replaces and never duplicates. Destroying
// it without commit() rolls everything back (the database is exactly as before). A process killed
// mid-load leaves no partial pass: SQLite discards the uncommitted WAL frames on the next open.
//
// Rejected rows (RowSink::bad_row) and duplicate counter values are counted per file in
// ingest_stats with the first one's line and reason; each file's size and sha256 come from the
// reader (RowSink::file_digest), which hashes the bytes as it reads them. On commit, agents whose
// product name says "(simulated)" (the rocprofv3 test double's) mark the pass's run simulated, and
// a counter pass recorded without a counter list gets the names it holds.
class PassLoader : public RowSink {
 public:
  PassLoader(CaptureDb& db, int64_t pass_id);
  ~PassLoader() override;
  PassLoader(const PassLoader&) = delete;
  PassLoader& operator=(const PassLoader&) = delete;

  void begin_file(const std::string& path, const std::string& kind) override;
  void agent(const AgentRow& row) override;
  void dispatch(const DispatchRow& row) override;
  void counter(const CounterRow& row) override;
  void kernel_stat(const KernelStatRow& row) override;
  void bad_row(const BadRow& row) override;
  void end_file(int64_t rows_read) override;
  void memory_copy(const MemoryCopyRow& row) override;
  void memory_allocation(const MemoryAllocationRow& row) override;
  void api_call(const ApiCallRow& row) override;
  void profiler_version(const std::string& version) override;
  void file_digest(int64_t size_bytes, const std::string& sha256) override;

  // Rows rejected so far across all files (what `kprof ingest --strict` checks before commit).
  int64_t rows_rejected() const;
  // Makes the pass's rows durable. After commit the loader accepts no more rows.
  void commit();

 private:
  struct Impl;
  Impl& open_impl();
  std::unique_ptr<WriteTransaction> m_own;  // when no WriteTransaction was open: the load's own
  std::unique_ptr<Impl> m_impl;
};

// The storage limit, for bench/ingest: the same typed rows inserted with the same prepared
// statement and settings as PassLoader, but with no interning (one given name id for every row),
// no file bookkeeping and no parsing. One transaction; commits. Returns rows inserted.
struct RawInsert {
  static int64_t dispatches(CaptureDb& db, int64_t pass_id, std::span<const DispatchRow> rows,
                            int64_t kernel_name_id);
  // counter_ids[i] is the interned name of rows[i].counter.
  static int64_t counters(CaptureDb& db, int64_t pass_id, std::span<const CounterRow> rows,
                          std::span<const int64_t> counter_ids);
};

}  // namespace kprof::store
