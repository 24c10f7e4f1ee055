// What a kernel trace or counter collection says about the process that wrote it, for files whose
// names do not say it.
//
// rocprofv3 names each file `<output_file>_<domain>.csv`, the output file `%pid%` unless `-o`
// sets it (ROCm/rocprofiler-sdk source/docs/how-to/using-rocprofv3.rst, "-o OUTPUT_FILE": the
// default path is %hostname%/%pid%). A `%pid%` prefix ties a file to its process; a name of the
// user's choosing, or none (kernel_trace.csv as the SDK's documentation shows it), does not:
// files found together may then come from different processes, machines or days.
//
// The rows do. In ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp, one process writes its
// kernel dispatches to kernel_trace.csv (Agent_Id, Thread_Id, Dispatch_Id, Start_Timestamp,
// End_Timestamp; no Process_Id column) and the counted ones to counter_collection.csv with the
// same Agent_Id notation, the same thread, id and timestamps of each dispatch, and its pid in
// Process_Id. So the counters of a trace's own process were dispatched by its threads, on its
// agents, within its time span; counters that break any of these are another capture.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/ingest/discover.hpp"

namespace kprof::ingest {

struct CaptureStamp {
  int64_t dispatches = 0;           // dispatch rows read (0: the file says nothing)
  std::set<int64_t> pids;           // Process_Id values (counter_collection.csv only)
  std::set<int64_t> threads;        // Thread_Id values
  std::set<int64_t> agents;         // the N of Agent_Id ("Agent N", or the bare N of ROCm <= 6.4)
  std::optional<int64_t> first_ns;  // earliest Start_Timestamp (absent: no timestamps)
  std::optional<int64_t> last_ns;   // latest End_Timestamp
};

// Reads a kernel_trace or counter_collection CSV file for its stamp (agent_info files of the same
// invocation in `agents` resolve "GPU N" ids). A file that cannot be read gives an empty stamp:
// the load that follows reports why.
CaptureStamp read_stamp(const InputFile& file, const std::vector<InputFile>& agents);

// Why `counters` cannot hold dispatches of the process that wrote `trace`, one reason per broken
// tie (threads, agents, time span); empty when the rows do not tell them apart.
std::vector<std::string> separate_capture_reasons(const CaptureStamp& trace,
                                                  const CaptureStamp& counters);

}  // namespace kprof::ingest
