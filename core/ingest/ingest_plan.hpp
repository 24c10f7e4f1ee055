// Which pass of which run each discovered file belongs to, decided by the file's kind and by the
// profiler invocation that wrote it (no SQL; no I/O beyond what discover() did, except the stamps
// of capture_stamp.hpp where the file names do not tell the process).
//
// rocprofv3 names every file of one invocation `<prefix>_<domain>.csv` in one folder, the prefix
// being `%pid%` unless `-o NAME` sets it (ROCm/rocprofiler-sdk source/lib/output/output_config.cpp,
// source/docs/how-to/using-rocprofv3.rst "Output file fields"). So (folder, prefix) is one
// invocation, and:
//   - its kernel trace (with its API, marker, memory and stats files and agent_info) is the trace
//     pass, ordinal 0;
//   - its counter_collection is a counter pass of its own; when the same invocation also traced
//     kernels, both carry the same pids and Dispatch_Ids, and the join matches them by id;
//   - an invocation that wrote only counters, or neither (stats, markers, copies only), joins the
//     trace invocation of its prefix (a counter pass, or the trace pass), else is a run of its own;
//   - pass_N/ and pmc_N/ folders (rocprofv3's multi-pass layout, kprof's own runs) stay one pass
//     each with ordinal N, as before.
// Separate invocations are separate captures whatever files they hold: each becomes a run of its
// own, and a counter-only or stats-only invocation goes with the trace invocation of the same
// prefix (or the longest prefix of its own: `-o m8-evicted-fetch` counters go with `-o
// m8-evicted`); one that no trace invocation owns is a run of its own. Invocations of agent_info
// alone go with the run of their prefix, else with the first run.
// A prefix that is not a pid (none at all, or one `-o` chose) does not make files one process: a
// kernel trace and a counter collection under it are compared by their rows (capture_stamp.hpp),
// and counters that no dispatch of the trace's process can have written are a run of their own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ingest/capture_stamp.hpp"
#include "core/ingest/discover.hpp"

namespace kprof::ingest {

// One profiler invocation: the files of one folder with one output prefix.
struct Invocation {
  std::string folder;
  std::string prefix;  // "1323859", "component-m8", "" (files named just kernel_trace.csv)
  int pass_number = 0;
  std::vector<InputFile> files;
  // Files of a prefix split off because their rows show another process: a capture of its own,
  // owned by no trace of the prefix; `name` then tells it apart ("counter_collection").
  bool apart = false;
  std::string name;
  bool has(Format f) const;
  bool traces() const {
    return has(Format::kernel_trace) || has(Format::rocpd) || has(Format::json);
  }
  bool counts() const { return has(Format::counter_collection); }
};

// The prefix of a rocprofv3 file name: "1323859" for 1323859_kernel_trace.csv.
std::string output_prefix(const std::string& path);

// The invocations of a discovery, in path order.
std::vector<Invocation> invocations_of(const Discovery& found);

struct PlannedInput {
  bool counters = false;       // a counter pass (else the trace pass)
  std::optional<int> ordinal;  // fixed ordinal (pass_N folders, the trace pass 0); else next free
  PassInput input;             // the files, agent_info first; `context` ones are read, not stored
  std::string what;            // "invocation 1323859 (kernel trace + counters)" for messages
};

struct PlannedRun {
  std::string label;  // "" for the only run; else what tells it apart ("probe-sq/1323859")
  std::vector<PlannedInput> passes;
};

struct IngestPlan {
  std::vector<PlannedRun> runs;
  std::vector<std::string> notes;  // how the inputs were split, for the user
};

// Reads one file's stamp; the agent_info files of its invocation come with it, and the stamps
// whose comparison ends the read early (read_stamp's `until`).
using StampReader =
    std::function<CaptureStamp(const InputFile&, const std::vector<InputFile>& agents,
                               const std::vector<CaptureStamp>& until)>;

// `forced_kind` (--pass-kind) keeps the old behaviour: one pass per discovered pass folder, of
// that kind. `stamp` reads the files whose invocation must be told apart by their rows.
IngestPlan plan_ingest(const Discovery& found, std::optional<store::PassKind> forced_kind,
                       const StampReader& stamp = read_stamp);

}  // namespace kprof::ingest
