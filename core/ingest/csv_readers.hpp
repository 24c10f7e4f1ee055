// One reader per rocprofv3 CSV format (formats: rocprofiler-sdk source/lib/output/generateCSV.cpp;
// the 6.x/early 18/19-column kernel_trace layout: rocprofiler-sdk
// source/docs/data/kernel_trace.csv).
#pragma once

#include <memory>
#include <string>

#include "core/ingest/csv_format_reader.hpp"
#include "core/ingest/format.hpp"

namespace kprof::ingest {

// `kind` is what begin_file receives ("kernel_trace", "hip_api_stats", ...). Format::rocpd and
// Format::json are not CSV and have their own readers (rocpd_reader.hpp, json_reader.hpp).
std::unique_ptr<CsvFormatReader> make_csv_reader(Format format, const std::string& file,
                                                 const std::string& kind, store::RowSink& sink,
                                                 const ReadOptions& options);

}  // namespace kprof::ingest
