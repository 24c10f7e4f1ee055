// Where the real captures are (tests/data/captures; tests/data/SOURCES.md lists repo, path and
// commit of each), the files the captures tests read, and kernel totals to compare readers with.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/store/rows.hpp"
#include "tests/ingest/independent_csv.hpp"

namespace kprof::ingest::test {

inline const std::filesystem::path k_captures = std::filesystem::path(KPROF_TEST_DATA) / "captures";

inline std::string capture(const std::string& rel) { return (k_captures / rel).string(); }

inline const std::string k_aq4 =
    "uLLM-project/2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
    "aq4-p3-diagnostic-rocprof-capture-v8/aq4-p3-diagnostic_kernel_trace.csv";
inline const std::string k_gemma =
    "uLLM-project/2026-07-28/gemma4-reader-attribution-v0.1/raw/rocprof-n128/"
    "homelab1-WRX80-Creator/4108606_kernel_trace.csv";
inline const std::string k_flydsl =
    "flydsl-kernel-profiling/pa_mqa_logits_fp4/compute_viewer/discover";
inline const std::string k_docs_trace = "rocprofiler-sdk-docs/kernel_trace.csv";
inline const std::string k_docs_counters = "rocprofiler-sdk-docs/counter_collection.csv";
inline const std::string k_pmc =
    "uLLM-project/2026-07-26/sq8-r9700-attention-phase1-v0.1/decode/pmc/rocprof/"
    "sq8-attention-decode-pmc_counter_collection.csv";
inline const std::string k_component =
    "uLLM-project/2026-07-10/sq8-optimized-component-v0.1/profiler/";

// Launches and summed duration per kernel name: of the rows a reader delivered, and counted
// independently from the file (independent_csv.hpp).
struct KernelTotals {
  std::map<std::string, int64_t> calls, total_ns;
};

inline KernelTotals totals_of(const std::vector<store::DispatchRow>& rows) {
  KernelTotals t;
  for (const auto& d : rows) {
    ++t.calls[d.kernel_name];
    t.total_ns[d.kernel_name] += d.end_ns - d.start_ns;
  }
  return t;
}

inline KernelTotals independent_totals(const std::string& path) {
  auto t = simple_read(path);
  EXPECT_FALSE(t.has_embedded_quote) << path;
  int name = t.col("Kernel_Name"), start = t.col("Start_Timestamp"), end = t.col("End_Timestamp");
  KernelTotals k;
  for (const auto& r : t.rows) {
    ++k.calls[r[static_cast<size_t>(name)]];
    k.total_ns[r[static_cast<size_t>(name)]] +=
        std::stoll(r[static_cast<size_t>(end)]) - std::stoll(r[static_cast<size_t>(start)]);
  }
  return k;
}

}  // namespace kprof::ingest::test
