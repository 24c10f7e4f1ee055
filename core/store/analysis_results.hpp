// The analysis' results kept in the capture database (schema/0007_analysis_results.sql): the
// cross-pass join mapping of each counter pass and the run outline of each trace pass. The analysis
// computes them (core/analysis join_store.cpp, run_outline.cpp); the store reads and writes them.
// Written only by commands that say they write (ingest, run, export); a query reads them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::store {

// How a join's mapping was made (analysis_join_proofs.method).
enum class JoinMethod { by_id, offset, aligned };
std::string_view to_string(JoinMethod m);
JoinMethod parse_join_method(std::string_view s);  // throws Error(runtime) for another spelling

// The self-check of a stored join (analysis_join_proofs).
struct JoinProof {
  JoinMethod method = JoinMethod::aligned;
  bool monotone = true, reliable = true;
  int64_t jump_bound = 0, jumps = 0, max_jump = 0;
  int64_t offset_streams = 0, id_offset = 0;
};

// A counter pass's stored join (analysis_join_passes), its unmatched dispatches counted and its
// proof when it has one.
struct StoredJoin {
  int64_t counter_pass_id = 0, trace_pass_id = 0;
  int64_t counter_dispatches = 0, trace_dispatches = 0, trace_considered = 0, matched = 0;
  double matched_share = 0;
  bool filtered = false;
  int64_t streams = 0;
  int64_t unmatched_counter = 0, unmatched_trace = 0;  // read back; a JoinWriter counts its own
  std::optional<JoinProof> proof;
};
std::optional<StoredJoin> read_join(CaptureDb& db, int64_t counter_pass_id);
// What was ingested into pass `pass_id` when counter pass `counter_pass_id` was joined
// (analysis_join_files), if recorded.
std::optional<std::string> join_files(CaptureDb& db, int64_t counter_pass_id, int64_t pass_id);

// A dispatch on one side of a join: (process, Dispatch_Id).
struct DispatchKey {
  int64_t pid = 0, dispatch_id = 0;
};
// Every matched pair of counter pass `counter_pass_id` onto trace pass `trace_pass_id`.
void for_each_join_pair(CaptureDb& db, int64_t counter_pass_id, int64_t trace_pass_id,
                        const std::function<void(DispatchKey counter, DispatchKey trace)>& fn);

// Replaces counter pass `counter_pass_id`'s stored join: the constructor deletes the old rows,
// pair() and unmatched() add rows, finish() the summary, proof and files. Inside a write
// transaction (try_write_now or WriteTransaction) that the caller commits.
class JoinWriter {
 public:
  JoinWriter(CaptureDb& db, int64_t counter_pass_id);
  ~JoinWriter();
  JoinWriter(const JoinWriter&) = delete;
  JoinWriter& operator=(const JoinWriter&) = delete;
  void pair(DispatchKey counter, int64_t trace_pass_id, DispatchKey trace);
  void unmatched_counter(DispatchKey d);
  void unmatched_trace(DispatchKey d);
  // `join.proof` must be set. `files`: (pass id, what was ingested into it) of both passes.
  void finish(const StoredJoin& join, const std::vector<std::pair<int64_t, std::string>>& files);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// ---- The run outline (analysis_outline*)

struct StoredOutline {
  int64_t version = 0;  // the analysis' outline format (run_outline.cpp)
  std::string arch, product;
  int64_t main_pid = 0, main_agent = 0;
};
struct StoredOutlinePass {
  int64_t pass_id = 0, dispatches = 0, base_ns = 0, reorder_window = 0;
  std::string files;  // what was ingested into it when outlined
};
struct StoredSegment {
  int64_t first_id = 0;
  std::string phase;  // the analysis' spelling (phases.hpp to_string)
  int64_t step = 0, start_ns = 0, end_ns = 0, dispatches = 0, window_no = 0;
};

// Trace pass `trace_pass_id`'s outline when one of `version` is stored.
std::optional<StoredOutline> read_outline_head(CaptureDb& db, int64_t trace_pass_id,
                                               int64_t version);
std::vector<StoredOutlinePass> read_outline_passes(CaptureDb& db, int64_t trace_pass_id);
void for_each_outline_segment(CaptureDb& db, int64_t trace_pass_id,
                              const std::function<void(const StoredSegment&)>& fn);  // by first_id
// Replaces trace pass `trace_pass_id`'s outline. Inside a write transaction the caller commits.
void replace_outline(CaptureDb& db, int64_t trace_pass_id, const StoredOutline& head,
                     const std::vector<StoredOutlinePass>& passes,
                     const std::vector<StoredSegment>& segments);

// Runs `write` in one transaction if the write lock is free right now and commits it when `write`
// returns true; false, having changed nothing, when another connection holds the lock or `write`
// returned false. Never waits for another writer: with
// a busy timeout of 0, BEGIN IMMEDIATE fails at once with SQLITE_BUSY while `kprof run` or
// `kprof ingest` holds the lock (https://sqlite.org/lang_transaction.html,
// https://sqlite.org/c3ref/busy_timeout.html). Sets the connection's busy timeout to 0 for good:
// use a connection of its own. Read-write.
bool try_write_now(CaptureDb& db, const std::function<bool()>& write);

}  // namespace kprof::store
