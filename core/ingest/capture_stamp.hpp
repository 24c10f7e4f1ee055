// What a kernel trace or counter collection says about the process that wrote it, for files whose
// names do not say it.
//
// rocprofv3 names each file `<output_file>_<domain>.csv`, the output file `%pid%` unless `-o`
// sets it (ROCm/rocprofiler-sdk source/docs/how-to/using-rocprofv3.rst, "-o OUTPUT_FILE": the
// default path is %hostname%/%pid%). A `%pid%` prefix ties a file to its process; a name of the
// user's choosing, or none (kernel_trace.csv as the SDK's documentation shows it), does not:
// files found together may then come from different processes, machines or days.
//
// The rows do, where they show another program or machine. In ROCm/rocprofiler-sdk
// source/lib/output/generateCSV.cpp, kernel_trace.csv and counter_collection.csv give each
// dispatch its Agent_Id (in the same notation) and Kernel_Name. Counters that name an agent the
// trace does not ran on another machine (or GPU set); counters none of whose kernels the trace
// launched are of another program. Threads and times are no such evidence: a rerun of the same
// program (`rocprofv3 --kernel-trace -o NAME -- app`, then `rocprofv3 --pmc ... -o NAME -- app`)
// has other threads and runs later, and the join aligns its counter pass
// (core/analysis/join/join.hpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/ingest/discover.hpp"

namespace kprof::ingest {

struct CaptureStamp {
  int64_t dispatches = 0;         // dispatch rows read (0: the file says nothing)
  std::set<int64_t> agents;       // the N of Agent_Id ("Agent N", or the bare N of ROCm <= 6.4)
  std::set<std::string> kernels;  // Kernel_Name values
  std::set<int64_t> pids;         // Process_Id values (counter_collection.csv only), for notes
  bool complete = true;           // false: the read stopped early (`until`), sets are partial
};

// Reads a kernel_trace or counter_collection CSV file for its stamp (agent_info files of the same
// invocation in `agents` resolve "GPU N" ids). A file that cannot be read gives an empty stamp:
// the load that follows reports why.
//
// With `until` (the stamps of the counter files to compare), the read stops as soon as every
// agent of those stamps and at least one kernel of each has been seen: then no comparison can
// find a separate capture, and the rest of the file cannot change that. For counters of the
// trace's own program that is the first chunk read (read_file.cpp reads 1 MiB at a time) in which
// their agents and a kernel of each appear, usually the first; only a separate capture, or agents
// and kernels that appear late in the trace, cost a read of the trace to that point (for a
// separate capture, to its end) before the load reads it again.
CaptureStamp read_stamp(const InputFile& file, const std::vector<InputFile>& agents,
                        const std::vector<CaptureStamp>& until = {});

// Why `counters` cannot be of the program and machine that wrote `trace`, one reason per broken
// tie (agents, kernels); empty when the rows do not tell them apart.
std::vector<std::string> separate_capture_reasons(const CaptureStamp& trace,
                                                  const CaptureStamp& counters);

}  // namespace kprof::ingest
