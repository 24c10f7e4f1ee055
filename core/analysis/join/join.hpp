// Cross-pass join: maps each dispatch of a counter pass to the dispatch of the trace pass that ran
// the same launch. rocprofv3 re-runs the application for every pass, so dispatch ids restart, pids
// change and timestamps are unrelated (counter collection also serializes kernels). What does carry
// over is the program order of launches and each launch's identity: kernel name, grid size and
// workgroup size (products, since counter_collection.csv reports only those). The join therefore
// aligns the two identity sequences with an LCS (align.hpp), per process and agent, and tolerates
// kernels that ran in one pass only (lazy initialisation, allocator kernels, a changed filter).
//
// Repeats: a rotated pass may run the measured request k times in one run (core/exec/
// rotated_pass.hpp); when a counter stream holds k times the trace's launches (to within 1%), it
// is cut into k consecutive chunks and each is aligned onto the trace.
//
// Exception: a counter pass written by the SAME rocprofv3 invocation as the trace (`--kernel-trace
// --pmc ...` in one run) carries the trace's own Dispatch_Ids, pids and timestamps
// (rocprofiler-sdk source/lib/output/generateCSV.cpp writes both files from the same dispatch
// records). When every counter dispatch has a trace dispatch of the same id, kernel, grid and
// workgroup, and the same start and end times (or, without times, the same non-zero pid), the
// passes are one run and are joined exactly, by id.
//
// Exact match before alignment: a separate run of the same program usually numbers its dispatches
// as the trace did, or shifted by the launches one run made before the other (lazy
// initialisation). So each (process, agent) stream first tries constant Dispatch_Id offsets
// (0, and those that pair an early counter dispatch with a trace dispatch of its identity); an
// offset under which every counter dispatch whose shifted id the trace recorded (inside one of its
// windows of consecutive ids: an id in a hole between windows ran untraced) finds a trace dispatch
// of that id with the same kernel, grid and workgroup is the mapping (method "offset"), proven pair
// by pair. Offset 0 is taken whenever it holds (the same program gives the same launch the same
// id; an offset of a whole step may prove as many pairs, with the next step's launches). Only
// streams without one are aligned.
//
// Self-check: an alignment of two runs may still pair launches far apart (a long run of unmatched
// kernels, a different step count). Between consecutive matched counter dispatches the trace must
// not skip more than `jump_bound` dispatches beyond what the counter pass skipped (one step when
// steps are known with high confidence). A join with such jumps is unreliable: reported, and its
// counters are left out of metrics unless the user forces them (`kprof query --force-join`).
//
// Contrast: rocprofiler-compute joins passes on Kernel_Name + Grid_Size + cumcount with an inner
// join (ROCm/rocprofiler-compute src/rocprof_compute_profile/profiler_base.py, join_prof), so one
// extra kernel early in a pass shifts every later count of that name.
//
// Memory: the join reads each pass as rows in (pid, Dispatch_Id) order (JoinInput), from a loaded
// PassData or straight from the capture database, and holds one process pair's identity
// sequences and its results in SpillVectors: unbounded in memory for in-memory analysis, about a
// fixed number of bytes each for a first `kprof export --perfetto`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/base/spill_vector.hpp"
#include "core/store/analysis_results.hpp"

namespace kprof::analysis {

struct DispatchRef {
  int64_t pid = 0;
  int64_t dispatch_id = 0;
  auto operator<=>(const DispatchRef&) const = default;
};

struct JoinMatch {
  DispatchRef counter;
  DispatchRef trace;
};

// One dispatch as the join reads it: its key, clock, launch identity and agent.
struct JoinRow {
  int64_t pid = 0, dispatch_id = 0, start_ns = 0, end_ns = 0, agent = 0;
  uint32_t name = 0;         // NameTable id: both passes' names from one table
  int64_t grid = 0, wg = 0;  // grid and workgroup size products

  // Dispatch `d` of `pass`.
  static JoinRow of(const PassData& pass, const Dispatch& d) {
    const KernelShape& s = pass.shape(d);
    return {d.pid,         d.dispatch_id, d.start_ns,       d.end_ns,
            pass.agent(d), d.name,        s.grid_product(), s.wg_product()};
  }
};

// A pass's rows as the join reads them, as often as it needs, in (pid, Dispatch_Id) order (program
// order within a process): from a loaded pass (PassJoinInput) or from the capture database
// (analysis_db.hpp stored_join_input), so the join never needs the pass in memory.
class JoinInput {
 public:
  class Cursor {
   public:
    virtual ~Cursor() = default;
    virtual bool next(JoinRow& row) = 0;
  };
  virtual ~JoinInput() = default;
  // Every row, from the first.
  virtual std::unique_ptr<Cursor> rows() const = 0;
};

// The rows of a loaded pass, ordered once (an index of 4 bytes per dispatch).
class PassJoinInput final : public JoinInput {
 public:
  explicit PassJoinInput(const PassData& pass);
  std::unique_ptr<Cursor> rows() const override;

 private:
  const PassData& m_pass;
  std::vector<uint32_t> m_order;
};

// One process (and agent) of the counter pass and the trace process it was paired with.
struct StreamPair {
  int64_t counter_pid = 0, trace_pid = 0, agent = 0;
  size_t counter_dispatches = 0;
  size_t trace_considered = 0;  // trace dispatches of the kernels the counter pass holds
  size_t matched = 0;
};

struct JoinResult {
  // memory_bytes: what each of the three sequences below holds before spilling (0: unbounded).
  explicit JoinResult(size_t memory_bytes = 0)
      : matches(memory_bytes), unmatched_counter(memory_bytes), unmatched_trace(memory_bytes) {}
  SpillVector<JoinMatch> matches;  // ordered by (counter pid, counter program order)
  SpillVector<DispatchRef> unmatched_counter;
  SpillVector<DispatchRef> unmatched_trace;  // among the considered (same-kernel) trace dispatches
  std::vector<StreamPair> streams;
  size_t counter_total = 0;
  size_t trace_considered = 0;
  // True when the counter pass held only some of the trace's kernel names (a kernel filter); the
  // trace side is then the subsequence of those kernels.
  bool filtered = false;

  // A counter stream holding k >= 2 times the trace's launches (a rotated run that repeated the
  // request k times, core/exec/passes/rotated_pass.hpp) is aligned chunk by chunk, each chunk onto
  // the same trace dispatches as further samples. `repeats`: the largest k; `repeat_starts`: the
  // indices in `matches` where a later chunk starts (the self-check does not compare across them).
  int repeats = 1;
  std::vector<size_t> repeat_starts;

  // How the mapping was made: by_id (one invocation), offset (separate runs, every stream
  // matched under a constant Dispatch_Id offset) or aligned (separate runs, aligned by launch
  // order).
  store::JoinMethod method = store::JoinMethod::aligned;
  // Streams matched under a constant offset, and that offset (of the first such stream).
  size_t offset_streams = 0;
  int64_t offset = 0;
  // The self-check: mapping in program order on both sides, and jumps beyond the bound.
  bool monotone = true;
  int64_t jump_bound = 0;
  int64_t jumps = 0;     // consecutive matches whose trace distance exceeds the counter's + bound
  int64_t max_jump = 0;  // the largest such excess, in trace dispatches
  bool reliable() const { return monotone && jumps == 0; }

  // Share of the counter pass's dispatches that found their trace dispatch (1 when it has none).
  double matched_share() const {
    return counter_total ? static_cast<double>(matches.size()) / counter_total : 1.0;
  }
};

// Both passes' names must come from one NameTable (the capture database interns them once).
// Program order within a process is dispatch-id order (rocprofv3 numbers dispatches as they are
// enqueued); rows may arrive in any order.
// `jump_bound`: the most trace dispatches a join may skip between two consecutive matches beyond
// what the counter pass skipped there (callers pass the step length when steps are known); 0
// leaves jumps unchecked.
JoinResult join_pass(const PassData& trace, const PassData& counters, int64_t jump_bound = 0);

// The same from rows read through `trace` and `counters`: every sequence the join holds (a
// process pair's identities and ids, the matches, the unmatched) keeps about `memory_bytes`
// (0: unbounded) and spills the rest. What still grows: a bit per dispatch of the aligned
// process pair (which were matched), and Myers' diagonals with the edit distance.
JoinResult join_pass(const JoinInput& trace, const JoinInput& counters, int64_t jump_bound,
                     size_t memory_bytes);

}  // namespace kprof::analysis
