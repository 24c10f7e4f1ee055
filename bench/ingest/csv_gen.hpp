// Seeded generators of rocprofv3-format CSV files (layout: rocprofiler-sdk
// source/lib/output/generateCSV.cpp, ROCm 7.x, csv.hpp): strings quoted,
// numbers bare, doubles as rocprofv3 prints them. The kernel names are vLLM-on-ROCm style
// templates with commas, angle brackets and '&'.
#pragma once

#include <cstdint>
#include <string>

namespace kprof::bench {

// Writes `rows` dispatches to `path`; returns bytes written.
int64_t write_kernel_trace(const std::string& path, int64_t rows, uint64_t seed);
// Writes `rows` (dispatch, counter) rows, `counters_per_dispatch` per dispatch.
int64_t write_counter_collection(const std::string& path, int64_t rows, int counters_per_dispatch,
                                 uint64_t seed);

}  // namespace kprof::bench
