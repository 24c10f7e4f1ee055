// What one profiled process leaves behind at exit: its dispatch records, the counters collected
// for them, and where rocprofv3 would write the files. Shared by the CSV and rocpd writers.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/sim/counters.hpp"
#include "core/sim/model.hpp"
#include "core/sim/stream.hpp"

namespace kprof::sim {

struct ProcessCapture {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t tid = 0;
  uint64_t start_ns = 0;  // process start, rocpd_info_process
  uint64_t end_ns = 0;
  std::vector<std::string> command;
  const Model* model = nullptr;
  Stream stream;
  std::vector<std::string> counters;  // collected counter names (catalog-known)
  // pmc_groups rotation: the catalog-known counters of each group; a record's counters are those
  // of its group (DispatchRecord::group). Empty: every collected record has `counters`.
  std::vector<std::vector<std::string>> groups;
  const CounterModel* counter_model = nullptr;
  // Before ROCm 7.0 (no region switch) with --marker-trace: the roctxProfilerResume (end) and
  // roctxProfilerPause (start) timestamps around the region, written to marker_api_trace.csv.
  std::optional<std::pair<uint64_t, uint64_t>> region_markers;

  const std::vector<std::string>& counters_of(const DispatchRecord& r) const {
    if (groups.empty()) return counters;
    return groups[static_cast<size_t>(r.group) % groups.size()];
  }
};

struct OutputSettings {
  std::filesystem::path prefix;  // "<dir>/<file>"; files are "<prefix>_kernel_trace.csv", ...
  bool kernel_trace = false;
  bool stats = false;
  bool truncate_names = false;
  std::string agent_index = "relative";
  int layout = 7;  // 7: ROCm 7.0 layouts; 6: pre-6.3 18-column layouts with integer Agent_Id
  bool csv = false;
  bool rocpd = false;
};

// Agent_Id as written in CSV: "Agent N" (relative: logical node id, absolute: node id), "GPU N"
// (type-relative); a bare integer node id in the 6.x layout.
std::string agent_id_text(const Agent& agent, const std::string& agent_index, int layout);

// Writes the CSV files of non-empty domains (plus agent_info.csv when any was written). Returns
// the paths written, in the order they were opened. Logs "Opened result file" lines on stderr.
std::vector<std::filesystem::path> write_csv(const ProcessCapture& cap, const OutputSettings& out);

// Writes "<prefix>_results.db" (rocpd schema 3 tables suffixed with a UUID, plus the unsuffixed
// views). Nothing is written when the capture holds no record.
std::vector<std::filesystem::path> write_rocpd(const ProcessCapture& cap,
                                               const OutputSettings& out);

// How a CSV file's fields are quoted. rocprofv3's writer quotes string fields and leaves numbers
// bare, embedded quotes not escaped (source/lib/output/csv.hpp). Files that reach kprof have often
// been re-written by other tools: `all` quotes every field, numbers too (Python's csv.QUOTE_ALL),
// `minimal` only fields holding a comma, quote or line break, quotes doubled (csv.QUOTE_MINIMAL,
// pandas' default). ROCPROF_SIM_CSV_QUOTING selects one; kprof's ingest must read all three.
enum class CsvQuoting { rocprofv3, all, minimal };

// Rewrites a CSV file written in rocprofv3's quoting into `quoting` (nothing to do for rocprofv3).
void requote_csv(const std::filesystem::path& file, CsvQuoting quoting);

// The header columns of each CSV file in a layout (tests check files against these).
std::vector<std::string> kernel_trace_columns(int layout);
std::vector<std::string> counter_collection_columns(int layout);
std::vector<std::string> stats_columns();
std::vector<std::string> agent_info_columns();

}  // namespace kprof::sim
