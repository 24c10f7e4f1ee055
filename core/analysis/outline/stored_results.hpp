// Storing a run's analysis results (the cross-pass join mapping and the run outline) after its
// passes were loaded: what a command that writes the database (`kprof ingest`) does so that a
// query, which never writes, reads them instead of computing them again. Bounded memory: both are
// found from the database (try_join_stored, compute_outline_bounded), no capture is loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "core/store/capture_db.hpp"

namespace kprof::analysis {

// Joins run `run_id`'s counter passes whose stored mapping is missing or stale and stores the
// mappings and the run's outline, each in one transaction that never waits for another writer.
// `db` read-write. Returns the line that says what was stored ("stored for queries: ..."), or
// why nothing was; "" for a run with no trace dispatches (there is nothing to join or outline).
std::string store_results(store::CaptureDb& db, int64_t run_id);

// store_results for each run of `runs` in the database at `db` (opened read-write), each line
// printed to `out`. A run whose results cannot be computed (an Error) gets a line saying why; the
// rows loaded before are kept either way.
void print_stored_results(const std::filesystem::path& db, const std::vector<int64_t>& runs,
                          std::ostream& out);

}  // namespace kprof::analysis
