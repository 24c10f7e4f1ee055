// The rocprofv3 output formats kprof reads, and how a file's format is recognised: by the
// rocprofv3 file-name suffix (rocprofiler-sdk source/lib/output/domain_type.cpp names the
// domains), confirmed or — for renamed files — decided by the header line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kprof::ingest {

enum class Format {
  kernel_trace,
  counter_collection,
  agent_info,
  stats,  // kernel_stats.csv, domain_stats.csv, hip_api_stats.csv, ...
  memory_copy_trace,
  memory_allocation_trace,
  api_trace,  // hip_api_trace.csv, hsa_api_trace.csv, marker_api_trace.csv
  rocpd,      // <prefix>_results.db
  json,       // <prefix>_results.json (rocprofv3 --output-format json)
};

// "kernel_trace", "counter_collection", ... — also the `kind` passed to RowSink::begin_file,
// except stats and api traces, whose kind is the rocprofv3 domain name ("hip_api_stats").
std::string_view format_name(Format f);

// By file name alone; nullopt for files that are not rocprofv3 outputs kprof reads (txt,
// scratch_memory_trace.csv, pc_sampling_*.csv, ...).
std::optional<Format> format_from_name(std::string_view filename);

// By a CSV header line (the raw first line); nullopt when it matches no known format.
std::optional<Format> format_from_header(std::string_view header_line);

// The rocprofv3 domain of a file name: "hip_api_stats" for "123_hip_api_stats.csv".
std::string domain_from_name(std::string_view filename);

// The %pid% of rocprofv3's default "<pid>_<domain>.csv" names; nullopt for other prefixes.
std::optional<int64_t> pid_from_name(std::string_view filename);

// Reads the first line of `path` and decides: the name's format when the header agrees (the
// reader checks the columns in detail), the header's when the name says nothing. Throws
// kprof::Error (input) when the file cannot be opened or is recognised by neither.
Format sniff_format(const std::string& path);

}  // namespace kprof::ingest
