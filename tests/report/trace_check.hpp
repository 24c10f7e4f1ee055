// Checks of a Chrome trace-event JSON document as kprof writes it, shared by the Perfetto tests:
// the fields the Trace Event Format requires of each event
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h8I0nSsKchNAySU: name, ph,
// pid, tid; ts and dur in microseconds on complete events; args on metadata events, and on every
// event as kprof writes them), with their JSON types, every used thread named, and what Perfetto's
// JSON importer (google/perfetto src/trace_processor/importers/json/) would drop or misread: a
// negative ts, a pid or tid outside [0, 2^32), a process_name or thread_name without a non-empty
// name, a NaN or infinite number, and slices of one thread that partially overlap (compared in the
// integer nanoseconds Perfetto reads; they must nest or be disjoint). No Perfetto trace processor
// ships in Debian 12, so this check stands in for opening the trace in one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kprof::report::test {

struct TraceCheck {
  std::vector<std::string> problems;   // empty when the document passes
  std::map<std::string, int64_t> cat;  // complete and instant events per "cat"
  int64_t threads = 0, processes = 0;
};

TraceCheck check_trace(const nlohmann::json& doc);

}  // namespace kprof::report::test
