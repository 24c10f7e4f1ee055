// Reader for rocpd SQLite databases (<prefix>_results.db, rocprofv3's default output since ROCm
// 7.0). This is a foreign file format read through SQLite read-only, not kprof's store.
#pragma once

#include <string>

#include "core/ingest/read_options.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

// Agents, kernel dispatches (with full grid/workgroup dims) and, when the file holds counter
// samples, one CounterRow per (dispatch, counter) summed over instances — what rocpd's
// counters_collection view computes. Throws kprof::Error when the file is not a rocpd database.
FileResult read_rocpd(const std::string& path, store::RowSink& sink, const ReadOptions& options);

}  // namespace kprof::ingest
